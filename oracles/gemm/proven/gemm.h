/* Exact GEMM reference for fp16 inputs: C = A (MxK) * B (KxN), row-major. */
#ifndef TP_GEMM_H
#define TP_GEMM_H

#include "gemm.acsl"
#include "../../common/proven/exact_row.h"

#define TP_GEMM_K_MAX_EXACT TP_EXACT_N_MAX

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

/* One row of the exact C = A * B: hi[j] + lo[j] = sum_k a[k] * b[k*N + j]
 * for every j < N, where a is a row of A (K binary16 values widened to
 * float, exact) and b is B (K x N, row-major). Every product p (a multiple
 * of 2^-48, |p| < 2^32) is split at the fixed scale 1.5*2^44:
 * t = (p + 1.5*2^44) - 1.5*2^44, then hi += t, lo += p - t; in WP's IEEE
 * float model every one of those double operations is proven exact for
 * K <= TP_GEMM_K_MAX_EXACT, and hi + lo proven equal to the real sum
 * (gemm.c, exact_row.c). B's memory requires are stated row by row through
 * mat_row (mat_row.acsl): for N > 0, the same as over B[0 .. K*N - 1]. */
/*@ requires sizes: 0 <= N && 0 <= K <= TP_GEMM_K_MAX_EXACT;
  @ requires valid_a: \valid_read(a + (0 .. K - 1));
  @ requires a_f16: \forall integer k; 0 <= k < K ==> f16_float(a[k]);
  @ requires valid_b: \forall integer k; 0 <= k < K ==> \valid_read(mat_row(b, N, k) + (0 .. N - 1));
  @ requires b_f16: \forall integer k, j; 0 <= k < K && 0 <= j < N ==> f16_float(mat_row(b, N, k)[j]);
  @ requires valid_hi: \valid(hi + (0 .. N - 1));
  @ requires valid_lo: \valid(lo + (0 .. N - 1));
  @ requires separated: \separated(hi + (0 .. N - 1), lo + (0 .. N - 1));
  @ assigns hi[0 .. N - 1], lo[0 .. N - 1];
  @ ensures result: \forall integer j; 0 <= j < N ==> hi[j] + lo[j] == row_col_dot(a, b, N, j, K);
  @*/
void tp_gemm_exact_row(int N, int K, const float *a, const float *b, double *hi, double *lo);

/* Exact C = A * B (A is M x K, B is K x N, row-major): hi[i*N + j] +
 * lo[i*N + j] (entry j of row i, mat_row_d(hi, N, i)[j]) is C[i][j], by
 * tp_gemm_exact_row on each row i of A and of the outputs
 * (oracles/gemm/proven/gemm_rows.c, proven in WP's IEEE float model like
 * the row itself). */
/*@ requires sizes: 0 <= M && 0 <= N && 0 <= K <= TP_GEMM_K_MAX_EXACT;
  @ requires valid_A: \forall integer i; 0 <= i < M ==> \valid_read(mat_row(A, K, i) + (0 .. K - 1));
  @ requires A_f16: \forall integer i, k; 0 <= i < M && 0 <= k < K ==> f16_float(mat_row(A, K, i)[k]);
  @ requires valid_B: \forall integer k; 0 <= k < K ==> \valid_read(mat_row(B, N, k) + (0 .. N - 1));
  @ requires B_f16: \forall integer k, j; 0 <= k < K && 0 <= j < N ==> f16_float(mat_row(B, N, k)[j]);
  @ requires valid_hi: \valid(hi + (0 .. M*N - 1));
  @ requires valid_lo: \valid(lo + (0 .. M*N - 1));
  @ requires separated: \forall integer q, r; 0 <= q < M && 0 <= r < M ==>
  @   \separated(mat_row_d(hi, N, q) + (0 .. N - 1), mat_row_d(lo, N, r) + (0 .. N - 1));
  @ assigns hi[0 .. M*N - 1], lo[0 .. M*N - 1];
  @ ensures result: \forall integer i, j; 0 <= i < M && 0 <= j < N ==>
  @   mat_row_d(hi, N, i)[j] + mat_row_d(lo, N, i)[j] == row_col_dot(mat_row(A, K, i), B, N, j, K);
  @*/
void tp_gemm_exact(int M, int N, int K, const float *A, const float *B, double *hi, double *lo);

#endif
