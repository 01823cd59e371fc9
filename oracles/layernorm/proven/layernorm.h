/* Exact sums for the LayerNorm references (forward, grad_input,
 * grad_gamma/grad_beta): row sums and row dot products of binary16 values
 * and column sums of a binary16 matrix, each returned as an unevaluated
 * pair hi + lo of doubles.
 *
 * Method (the split-double accumulation of oracles/common/proven/exact_sum.h):
 * every term p (a binary16 value, or a product of two, widened to double
 * exactly) is split at the fixed scale TP_EXACT_SPLIT: t = (p +
 * TP_EXACT_SPLIT) - TP_EXACT_SPLIT, hi += t, lo += p - t. The WP proof, in
 * the IEEE float model, shows that every double operation is exact for
 * binary16 inputs (f16_float, decoded from the bit pattern in
 * oracles/common/proven/grid.acsl) and n <= TP_LN_N_MAX, and that hi + lo
 * is the exact sum. */
#ifndef TP_LAYERNORM_H
#define TP_LAYERNORM_H

#include "layernorm.acsl"
#include "../../common/proven/exact_sum.h"
#include "layernorm_cols.h"


/* hi + lo = sum_{j < n} a[j], a[j] binary16 values. */
/*@ requires size: 0 <= n <= TP_LN_N_MAX;
  @ requires valid_a: \valid_read(a + (0 .. n - 1));
  @ requires binary16: \forall integer j; 0 <= j < n ==> f16_float(a[j]);
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
  @ requires binary16: \forall integer j; 0 <= j < n ==> f16_float(a[j]) && f16_float(b[j]);
  @ requires valid_out: \valid(hi) && \valid(lo) && \separated(hi, lo);
  @ requires separated: \separated(hi, a + (0 .. n - 1)) && \separated(lo, a + (0 .. n - 1)) &&
  @   \separated(hi, b + (0 .. n - 1)) && \separated(lo, b + (0 .. n - 1));
  @ assigns *hi, *lo;
  @ ensures result: *hi + *lo == ln_row_dot(a, b, n);
  @*/
void tp_ln_row_dot(int n, const float *a, const float *b, double *hi, double *lo);


#endif
