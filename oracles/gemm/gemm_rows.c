/* The exact GEMM over all rows: tp_gemm_exact_row (proven, IEEE float
 * model) on each row. This loop is not proven (see
 * oracles/gemm/proven/gemm.h); tests/test_gemm_exact.c compares every entry
 * with MPFR. */
#include "oracles/gemm/proven/gemm.h"

#include <stddef.h>

void tp_gemm_exact(int M, int N, int K, const float *A, const float *B, double *hi, double *lo)
{
    for (int i = 0; i < M; i++)
        tp_gemm_exact_row(N, K, A + (size_t)i * K, B, hi + (size_t)i * N, lo + (size_t)i * N);
}
