/* The element check of a binary16 GEMM output on the GPU, from the exact
 * sums the provider keeps there (oracles/gemm/gemm_exact_cuda.cu, built
 * with TP_GX_DEVICE_CHECK into build/libtp_gemm_cuda.so only, with
 * -fmad=false). It runs the CPU's own source, oracles/gemm/gemm_check_one.h:
 * tp_two_sum and the admitted interval of oracles/gemm/gemm_admitted.h (the
 * proven tp_sum_bound_rn and binary16 ends, compiled here from
 * oracles/common/proven/tp_sum_bound.c and tp_f16_round.c) and the element
 * rule and tally of
 * harness/tp_check_elem.h. Every double
 * operation in them is one IEEE binary64 operation, rounded to nearest on
 * the GPU as on the CPU, and nothing is fused, so the bits agree; the
 * caller recomputes a sample of elements on the CPU and compares their
 * tallies bit for bit all the same.
 *
 * Three steps: each thread checks TP_GC_RUN consecutive elements into a
 * tally of its own (the CPU's chunks are merged the same way, in order);
 * one thread per caller's chunk merges its runs in order; one thread per
 * sampled element checks it alone. */
#include "oracles/gemm/gemm_check_one.h"
#include "oracles/common/proven/tp_f16_round.c"
#include "oracles/common/proven/tp_sum_bound.c"

#include <string.h>

#define TP_GC_RUN 256
#define TP_GC_THREADS 128

/* Element i's tally step (oracles/gemm/gemm_check_one.h). */
__device__ static void tp_gc_element(int64_t i, const double *__restrict__ h, const double *__restrict__ l,
                                     const double *__restrict__ ah, const double *__restrict__ al,
                                     const uint16_t *__restrict__ out, double terms, double atol, double rtol,
                                     tp_check_tally *t)
{
    tp_gemm_check_one(i, h[i], l[i], ah[i], al[i], out[i], terms, atol, rtol, t);
}

__global__ void tp_gc_runs(int64_t n, const double *__restrict__ h, const double *__restrict__ l,
                           const double *__restrict__ ah, const double *__restrict__ al,
                           const uint16_t *__restrict__ out, double terms, double atol, double rtol,
                           tp_check_tally *__restrict__ runs)
{
    const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, from = g * TP_GC_RUN;
    if (from >= n)
        return;
    const int64_t to = from + TP_GC_RUN < n ? from + TP_GC_RUN : n;
    tp_check_tally t;
    memset(&t, 0, sizeof t);
    for (int64_t i = from; i < to; i++)
        tp_gc_element(i, h, l, ah, al, out, terms, atol, rtol, &t);
    runs[g] = t;
}

/* chunk k of the caller = runs [k * per, (k + 1) * per) */
__global__ void tp_gc_chunks(int64_t nruns, int64_t per, int64_t nchunks, const tp_check_tally *__restrict__ runs,
                             tp_check_tally *__restrict__ chunks)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nchunks)
        return;
    tp_check_tally t;
    memset(&t, 0, sizeof t);
    for (int64_t g = k * per; g < (k + 1) * per && g < nruns; g++)
        tp_check_tally_merge(&t, &runs[g]);
    chunks[k] = t;
}

__global__ void tp_gc_sample(size_t ns, const size_t *__restrict__ sample, const double *__restrict__ h,
                             const double *__restrict__ l, const double *__restrict__ ah,
                             const double *__restrict__ al, const uint16_t *__restrict__ out, double terms,
                             double atol, double rtol, tp_check_tally *__restrict__ tallies)
{
    const size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= ns)
        return;
    tp_check_tally t;
    memset(&t, 0, sizeof t);
    tp_gc_element((int64_t)sample[q], h, l, ah, al, out, terms, atol, rtol, &t);
    tallies[q] = t;
}

__global__ void tp_gc_gather(size_t ns, const size_t *__restrict__ idx, const double *__restrict__ h,
                             const double *__restrict__ l, const double *__restrict__ ah,
                             const double *__restrict__ al, double *__restrict__ v)
{
    const size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= ns)
        return;
    v[q] = h[idx[q]];
    v[ns + q] = l[idx[q]];
    v[2 * ns + q] = ah[idx[q]];
    v[3 * ns + q] = al[idx[q]];
}
