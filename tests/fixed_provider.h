/* A host exact provider for op gemm (oracles/gemm/gemm_exact_provider.h)
 * with the GPU's arithmetic, oracles/gemm/gemm_split.h within chunks and
 * oracles/gemm/gemm_fixed.h across them, element by element in the
 * kernel's order: the GPU path without a GPU, for
 * tests/test_gemm_fixed.c and tests/tool_emulate.c (--exact-provider).
 * fixed_provider_wrong_at >= 0 makes that element wrong by 2^-48 (lo, or
 * alo with fixed_provider_wrong_abs), to show that the cross-check catches
 * it. */
#ifndef TESTS_FIXED_PROVIDER_H
#define TESTS_FIXED_PROVIDER_H
#include "oracles/gemm/gemm_exact_provider.h"
#include "oracles/gemm/gemm_fixed.h"
#include "oracles/gemm/gemm_split.h"

#include <math.h>
#include <stddef.h>

static long fixed_provider_wrong_at = -1;

/* The kernel's arithmetic for one element, k = 0 .. K-1 in chunks of
 * TP_SD_K_CHUNK: S = hi + lo and A = ahi + alo (sum of |products|); NaN
 * where the kernel would fail the call. */
static inline void fixed_element(int K, const float *a, const float *b, int N, int j, double *hi, double *lo,
                                 double *ahi, double *alo)
{
    tp_fx128 acc = {0, 0}, aacc = {0, 0};
    int bad = 0;
    int chunks = K ? (K + TP_SD_K_CHUNK - 1) / TP_SD_K_CHUNK : 1;
    for (int c = 0, k0 = 0; c < chunks; c++, k0 += TP_SD_K_CHUNK) {
        tp_sd_acc s = {0.0, 0.0, 0.0, 0.0};
        for (int k = k0; k < K && k < k0 + TP_SD_K_CHUNK; k++)
            tp_sd_mac(&s, (double)a[k], (double)b[(size_t)k * N + j]);
        bad |= tp_fx_add_double(&acc, s.hi) | tp_fx_add_double(&acc, s.lo) | tp_fx_add_double(&aacc, s.ahi) |
               tp_fx_add_double(&aacc, s.alo);
    }
    if (bad || tp_fx_to_dd(acc, hi, lo) != 0 || tp_fx_to_dd(aacc, ahi, alo) != 0)
        *hi = *lo = *ahi = *alo = NAN;
}

/* fixed_provider_wrong_abs: the wrong element is wrong in A instead of S. */
static int fixed_provider_wrong_abs;

static int fixed_provider_sums(int M, int N, int K, const float *a, const float *b, double *hi, double *lo,
                               double *ahi, double *alo, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            size_t idx = (size_t)i * N + j;
            fixed_element(K, a + (size_t)i * K, b, N, j, &hi[idx], &lo[idx], &ahi[idx], &alo[idx]);
            if ((long)idx == fixed_provider_wrong_at)
                *(fixed_provider_wrong_abs ? &alo[idx] : &lo[idx]) += 0x1p-48;
        }
    return 0;
}

static const char *fixed_provider_device(void) { return "host emulation"; }

static const tp_gemm_exact_provider fixed_provider = {
    "emulated", "oracles/gemm/gemm_split.h and gemm_fixed.h on the host (a test of the GPU path without a GPU)", fixed_provider_sums,
    fixed_provider_device, NULL, NULL, NULL, NULL, NULL /* no kept sums: tests/lib_emulated_provider.c adds them */};
#endif
