/* Exact sums for the LayerNorm references (forward, grad_input,
 * grad_gamma/grad_beta): row sums and row dot products of binary16 values
 * and column sums of a binary16 matrix, each returned as an unevaluated
 * pair hi + lo of doubles.
 *
 * Method (the split-double accumulation of oracles/gemm/proven/gemm.c): every term p
 * (a binary16 value, or a product of two, widened to float/double exactly)
 * is split at the fixed scale TP_LN_SPLIT: t = (p + TP_LN_SPLIT) -
 * TP_LN_SPLIT, hi += t, lo += p - t. layernorm.c argues that every double
 * operation is exact for n <= TP_LN_N_MAX; the WP proof (typed+real model,
 * floats read as reals) shows the algorithm computes the exact sum. */
#ifndef TP_LAYERNORM_H
#define TP_LAYERNORM_H

#include "layernorm.acsl"

#define TP_LN_N_MAX 8192
#define TP_LN_SPLIT 0x1.8p44

/* hi + lo = sum_{j < n} a[j], a[j] binary16 values. */
/*@ requires size: 0 <= n <= TP_LN_N_MAX;
  @ requires valid_a: \valid_read(a + (0 .. n - 1));
  @ requires valid_out: \valid(hi) && \valid(lo) && \separated(hi, lo);
  @ requires separated: \separated(hi, a + (0 .. n - 1)) && \separated(lo, a + (0 .. n - 1));
  @ assigns *hi, *lo;
  @ ensures result: *hi + *lo == ln_row_sum(a, n);
  @*/
void tp_ln_row_sum(int n, const float *a, double *hi, double *lo);

/* hi + lo = sum_{j < n} a[j] * b[j], a[j] and b[j] binary16 values
 * (b == a gives the sum of squares). */
/*@ requires size: 0 <= n <= TP_LN_N_MAX;
  @ requires valid_a: \valid_read(a + (0 .. n - 1));
  @ requires valid_b: \valid_read(b + (0 .. n - 1));
  @ requires valid_out: \valid(hi) && \valid(lo) && \separated(hi, lo);
  @ requires separated: \separated(hi, a + (0 .. n - 1)) && \separated(lo, a + (0 .. n - 1)) &&
  @   \separated(hi, b + (0 .. n - 1)) && \separated(lo, b + (0 .. n - 1));
  @ assigns *hi, *lo;
  @ ensures result: *hi + *lo == ln_row_dot(a, b, n);
  @*/
void tp_ln_row_dot(int n, const float *a, const float *b, double *hi, double *lo);

/* hi[c] + lo[c] = sum_{r < R} a[r*C + c] for every column c < C; a holds
 * binary16 values, row-major R x C. */
/*@ requires sizes: 0 <= R <= TP_LN_N_MAX && 0 <= C;
  @ requires valid_a: \valid_read(a + (0 .. R*C - 1));
  @ requires valid_hi: \valid(hi + (0 .. C - 1));
  @ requires valid_lo: \valid(lo + (0 .. C - 1));
  @ requires separated: \separated(hi + (0 .. C - 1), lo + (0 .. C - 1));
  @ assigns hi[0 .. C - 1], lo[0 .. C - 1];
  @ ensures result: \forall integer c; 0 <= c < C ==> hi[c] + lo[c] == ln_col_sum(a, C, c, R);
  @*/
void tp_ln_col_sums(int R, int C, const float *a, double *hi, double *lo);

#endif
