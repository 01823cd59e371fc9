/* Exact GEMM reference for fp16 inputs: C = A (MxK) * B (KxN), row-major. */
#ifndef TP_GEMM_H
#define TP_GEMM_H

#include "gemm.acsl"

#define TP_GEMM_K_MAX_EXACT 8192

/* The split scale: adding and subtracting 1.5*2^44 rounds a product to a
 * multiple of 2^-8 (the ulp of doubles in [2^44, 2^45)). */
#define TP_SPLIT 0x1.8p44

/* The GEMM accumulation bound the checker uses, in ONE place:
 * |fp32 dot of n fp16 products - exact| <= n*TP_DOT_C*sum|a_k b_k| + n*TP_DOT_ETA,
 * TP_DOT_C = 2^-24*(1+2^-7) >= u/(1-65536u), valid for n <= 65536.
 * oracles/common/proven/dot.acsl states the same constants (dot_c, dot_eta). */
#define TP_DOT_C 0x1.02p-24
#define TP_DOT_ETA 0x1p-149

/* Exact C = A * B; A and B hold binary16 values widened to float (exact).
 * Each C[i][j] = sum_k A[i*K+k]*B[k*N+j] is returned as the unevaluated
 * pair hi[i*N+j] + lo[i*N+j]. Every product p (a multiple of 2^-48,
 * |p| < 2^32) is split at the fixed scale TP_SPLIT: t = (p + TP_SPLIT) -
 * TP_SPLIT, then hi += t, lo += p - t; gemm.c argues that every one of those
 * double operations is exact for K <= TP_GEMM_K_MAX_EXACT. The proof (typed
 * model, floats as reals) shows the algorithm computes the exact sum for
 * every entry; the exactness of the double operations is the argument in
 * gemm.c, not part of the WP proof. */
/*@ requires sizes: 0 <= M && 0 <= N && 0 <= K;
  @ requires exact_range: K <= TP_GEMM_K_MAX_EXACT;
  @ requires valid_A: \valid_read(A + (0 .. M*K - 1));
  @ requires valid_B: \valid_read(B + (0 .. K*N - 1));
  @ requires valid_hi: \valid(hi + (0 .. M*N - 1));
  @ requires valid_lo: \valid(lo + (0 .. M*N - 1));
  @ requires separated: \separated(hi + (0 .. M*N - 1), lo + (0 .. M*N - 1));
  @ assigns hi[0 .. M*N - 1], lo[0 .. M*N - 1];
  @ ensures result: \forall integer i, j; 0 <= i < M && 0 <= j < N ==>
  @   hi[i*N + j] + lo[i*N + j] == gemm_entry(A, B, N, K, i, j);
  @*/
void tp_gemm_exact(int M, int N, int K, const float *A, const float *B, double *hi, double *lo);

/* absum[i*N+j] = sum_k |A[i*K+k]*B[k*N+j]| in plain double (the caller
 * inflates it to an upper bound: only the real-model sum is proven). */
/*@ requires sizes: 0 <= M && 0 <= N && 0 <= K;
  @ requires valid_A: \valid_read(A + (0 .. M*K - 1));
  @ requires valid_B: \valid_read(B + (0 .. K*N - 1));
  @ requires valid_absum: \valid(absum + (0 .. M*N - 1));
  @ assigns absum[0 .. M*N - 1];
  @ ensures result: \forall integer i, j; 0 <= i < M && 0 <= j < N ==>
  @   absum[i*N + j] == gemm_abs_entry(A, B, N, K, i, j);
  @*/
void tp_gemm_abs(int M, int N, int K, const float *A, const float *B, double *absum);

#endif
