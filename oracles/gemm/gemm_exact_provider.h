/* Where op "gemm" gets its exact sums: a pluggable "exact provider".
 *
 * By default (no provider set) op_gemm.c computes them on the CPU with the
 * WP-proven split-double code (oracles/gemm/proven/gemm.c). A provider
 * computes the same quantities elsewhere, today on a CUDA GPU
 * (oracles/gemm/gemm_exact_cuda.cu: linked into CUDA harnesses, and
 * build/libtp_gemm_cuda.so, which `tolproof check --device` loads). Its
 * results are trusted only after a cross-check: every call compares a
 * seeded random sample of at least TP_GEMM_CROSS_CHECK_MIN elements (all
 * when fewer) with the CPU path (op_gemm.c's own, passed in), and any disagreement is an error, never a
 * verdict. The admitted intervals are computed from the sums by the same
 * CPU bound code either way.
 *
 * The struct is the ABI between the runtime (C, gcc) and a provider built
 * by nvcc: plain C types only. */
#ifndef TP_GEMM_EXACT_PROVIDER_H
#define TP_GEMM_EXACT_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_GEMM_CROSS_CHECK_MIN 1000

/* op(X) of a GEMM as stored: binary16 patterns, element (r, c) at
 * h[r * rs + c * cs] (a row-major R x C matrix: rs = C, cs = 1; its
 * transpose: rs = 1, cs = R). */
typedef struct {
    const uint16_t *h;
    int64_t rs, cs;
} tp_gemm_f16_operand;

typedef struct tp_gemm_exact_provider {
    const char *name;      /* "cuda" */
    const char *algorithm; /* one sentence: how it computes the sums */
    /* For the row-major M x K matrix a and K x N matrix b of binary16
     * values widened to float, both sums the bound takes, in one pass:
     * hi[i*N+j] + lo[i*N+j] = S = sum_k a[i*K+k] * b[k*N+j] and ahi[i*N+j]
     * + alo[i*N+j] = A = sum_k |a[i*K+k] * b[k*N+j]|, exactly, each as the
     * normalized double-double (hi = RN(S), lo = S - hi). 0, or -1 with
     * one line in err. */
    int (*sums)(int M, int N, int K, const float *a, const float *b, double *hi, double *lo, double *ahi,
                double *alo, char *err, size_t errlen);
    /* The device the last sums ran on, for the record. */
    const char *(*device)(void);
    /* Optional (all NULL: not offered; the runtime and the provider are
     * built from one tree). The sums kept where they were computed instead
     * of copied back, for a check done there too:
     *  - sums_kept: the same sums as `sums`, of the M x K op(A) and the
     *    K x N op(B) read from their binary16 patterns, kept (one set at
     *    a time);
     *  - gather: the kept sums of elements idx[0 .. n-1];
     *  - fetch: all of them (M*N each), as `sums` returns them;
     *  - check_f16: the element check of the binary16 M x N output `out`
     *    (row-major patterns) against the references op gemm computes
     *    from the kept sums with `terms` terms (oracles/gemm/gemm_admitted.h),
     *    by harness/tp_check_elem.h's rule, claim atol + rtol |exact|, in
     *    round to nearest: tallies[k] (tp_check_tally) of elements
     *    [k*chunk, (k+1)*chunk), and sample_tallies[q] of element
     *    sample[q] alone (for the caller's cross-check); tally_size is
     *    sizeof(tp_check_tally) as the caller knows it;
     *  - release: frees the kept sums.
     * Each returns 0, or -1 with one line in err. */
    int (*sums_kept)(int M, int N, int K, const tp_gemm_f16_operand *a, const tp_gemm_f16_operand *b, char *err,
                     size_t errlen);
    int (*gather)(size_t n, const size_t *idx, double *hi, double *lo, double *ahi, double *alo, char *err,
                  size_t errlen);
    int (*fetch)(double *hi, double *lo, double *ahi, double *alo, char *err, size_t errlen);
    int (*check_f16)(const uint16_t *out, double terms, double atol, double rtol, int64_t chunk, void *tallies,
                     size_t nsample, const size_t *sample, void *sample_tallies, size_t tally_size, char *err,
                     size_t errlen);
    void (*release)(void);
} tp_gemm_exact_provider;

/* The provider op "gemm" uses from now on; NULL: the CPU path. */
void tp_gemm_exact_provider_set(const tp_gemm_exact_provider *p);
const tp_gemm_exact_provider *tp_gemm_exact_provider_get(void);

/* The seed of the cross-check samples: TP_CROSS_CHECK_SEED from the
 * environment when set (decimal or 0x hex), else fresh for each process
 * (time and pid). Reported with every cross-check. */
uint64_t tp_gemm_cross_check_seed(void);

/* op gemm's CPU path: hi + lo = the exact sum (any exact pair) for all
 * M*N elements. */
typedef void (*tp_gemm_cpu_fn)(int M, int N, int K, const float *a, const float *b, double *hi, double *lo);

/* The hook op_gemm.c calls for its exact sums S (hi + lo) and A (ahi +
 * alo) of a and b. With no provider set: cpu on a, b and on their |x|
 * copies. With one: the provider for all elements, then a sample
 * cross-checked against cpu on those elements (the four corners and
 * TP_GEMM_CROSS_CHECK_MIN distinct others, or every element when there
 * are at most that many; seed tp_gemm_cross_check_seed()), logged as two
 * entries (oracles/common/tp_exact_log.h): the output named for S and
 * OUTPUT.abs_sum for A, the one call's time in both. Either way the pairs
 * end normalized (tp_gemm_exact_normalize). 0, or -1 with err set when the
 * provider fails or any sampled element differs in either pair (err names
 * the first in sample order: output[i, j] or output.abs_sum[i, j], both
 * values). */
int tp_gemm_exact_sums(const char *output, int M, int N, int K, const float *a, const float *b, double *hi,
                       double *lo, double *ahi, double *alo, tp_gemm_cpu_fn cpu, char *err, size_t errlen);

/* tp_gemm_exact_sums with the sums kept by the provider
 * (provider->sums_kept, on the binary16 operands: nothing widened here),
 * only the sample's copied back for the cross-check: the same checks and
 * log entries; the CPU's side of the cross-check runs while the provider
 * computes. The sample itself (its
 * element indices) is left in *sample, *nsample (malloc'd; the caller
 * frees it), with the sample's cross-checked sums (normalized) in
 * *shi .. *salo (one malloc'd block at *shi, which the caller frees), for
 * the caller's own cross-check of what it computes from them. 0, or -1
 * with err set. */
int tp_gemm_exact_sums_kept(const char *output, int M, int N, int K, const tp_gemm_f16_operand *a,
                            const tp_gemm_f16_operand *b, tp_gemm_cpu_fn cpu, size_t **sample, size_t *nsample, double **shi, double **slo,
                            double **sahi, double **salo, char *err, size_t errlen);

/* A malloc'd copy of x with every element |x| (in parallel), or NULL: the
 * sum of |products| sum_k |a_k||b_k| is then an exact GEMM of its own. */
float *tp_gemm_abs_copy(const float *x, size_t n);

/* hi[i], lo[i] <- the normalized double-double of hi[i] + lo[i] (TwoSum:
 * exact, hi = RN(hi + lo)). Applied to the CPU path's split-double pairs,
 * so that the bound code sees the same two doubles whichever way S was
 * computed (a run's results do not depend on it). */
void tp_gemm_exact_normalize(size_t n, double *hi, double *lo);

#ifdef __cplusplus
}
#endif
#endif
