/* Exact GEMM reference for fp16 inputs: C = A (MxK) * B (KxN), row-major. */
#ifndef TP_GEMM_H
#define TP_GEMM_H

#include "gemm.acsl"

#define TP_GEMM_K_MAX_EXACT 8192

/* The split scale: adding and subtracting 1.5*2^44 rounds a product to a
 * multiple of 2^-8 (the ulp of doubles in [2^44, 2^45)). */
#define TP_SPLIT 0x1.8p44

/* The GEMM accumulation bound the checker uses, in ONE place:
 * |fp32 dot of n fp16 products - exact| <= n*C(n)*sum|a_k b_k| + n*TP_DOT_ETA,
 * where the step from k to k+1 terms needs u*(1 + C*k) <= C, u = 2^-24, for
 * every k < n, i.e. C >= u/(1 - (n-1)u):
 *   n <= TP_DOT_N_MAX (65536):       C = TP_DOT_C = 2^-24*(1+2^-7)
 *                                    (>= u/(1-65536u) = 2^-24*1.0039...);
 *   n <= TP_DOT_N_MAX_LONG (262144): C = TP_DOT_C_LONG = 2^-24*(1+2^-6+2^-11)
 *                                    (>= u/(1-262144u) = 2^-24*1.015873...).
 * Rows up to 65536 keep TP_DOT_C (their recorded bounds do not move); TP_DOT_C_OF
 * picks the constant by length. oracles/common/proven/dot.acsl states the
 * same constants (dot_c, dot_c_long, dot_cn, dot_eta), and
 * oracles/common/proven/dot_fp32.c proves the bound with them (T3). */
#define TP_DOT_C 0x1.02p-24
#define TP_DOT_C_LONG 0x1.042p-24
#define TP_DOT_ETA 0x1p-149
#define TP_DOT_N_MAX 65536
#define TP_DOT_N_MAX_LONG 262144

/* The constant C(n) above, for 0 <= n <= TP_DOT_N_MAX_LONG (a macro: gemm.c,
 * which WP proves, includes this header and needs no new function). */
#define TP_DOT_C_OF(n) ((n) <= TP_DOT_N_MAX ? TP_DOT_C : TP_DOT_C_LONG)

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
