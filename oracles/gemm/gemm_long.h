/* Exact GEMM sums for K beyond the range of one split-double call
 * (oracles/gemm/proven/gemm.h: exact for K <= TP_GEMM_K_MAX_EXACT), up to
 * TP_GEMM_K_MAX: the proven tp_gemm_exact on K-chunks of at most
 * TP_GEMM_K_MAX_EXACT, combined exactly in integers (gemm_long.c argues it). */
#ifndef TP_GEMM_LONG_H
#define TP_GEMM_LONG_H
#include <stdint.h>

/* The longest K the GEMM reference accepts: the chunk combination is exact
 * far beyond it, but the fp32 accumulation bounds (TP_DOT_C, and the
 * fp32_faithful constant of op_gemm.c) are derived for K <= 65536. */
#define TP_GEMM_K_MAX 65536

/* Work space of tp_gemm_exact_long for rows of N entries. */
typedef struct {
    double *hc, *lc; /* one chunk's pair, N each */
    __int128 *S;     /* the sum of the chunks' parts times 2^48, N of them */
} tp_gemm_long_work;

int tp_gemm_long_work_alloc(tp_gemm_long_work *w, int N);
void tp_gemm_long_work_free(tp_gemm_long_work *w);

/* hi[i*N+j] + lo[i*N+j] == sum_k A[i*K+k] * B[k*N+j] exactly, for binary16
 * values widened to float, 0 <= K <= TP_GEMM_K_MAX. K <= TP_GEMM_K_MAX_EXACT
 * is one tp_gemm_exact call (the same pairs as calling it directly); above,
 * the pair is (S rounded toward -inf to 53 bits, the exact rest). 0, or -1
 * when a chunk's pair is off the grid of 2^-48 that the combination needs
 * (gemm_long.c: a changed split in gemm.c would be caught, not summed). */
int tp_gemm_exact_long(int M, int N, int K, const float *A, const float *B, double *hi, double *lo,
                        tp_gemm_long_work *w);

/* The combination's two steps, for the one-pass tiles too
 * (oracles/gemm/gemm_tiles.c): x 2^48 as an integer when x is a multiple of
 * 2^-48 below 2^75 in magnitude (0; exact), else -1; and an integer v as
 * the exact pair hi + lo == v 2^-48 (hi: v rounded toward -inf to 53 bits). */
int tp_gemm_grid48(double x, __int128 *out);
void tp_gemm_split_exact(__int128 v, double *hi, double *lo);

#endif
