/* The exact sum of |products| of two binary16 rows, for the error bound of
 * softmax + cross-entropy backward's fp32 row dot product
 * (op_softmax_xent_bwd.c: the bound is n C sum|g s| + n eta). Returned as
 * an unevaluated pair hi + lo of doubles, by the split-double accumulation
 * of oracles/common/proven/exact_sum.h, proven exact in WP's IEEE float
 * model (softmax_abs.c) for binary16 inputs and n <= TP_LN_N_MAX. It
 * replaces a plain double sum whose `ensures` (the exact sum) held only in
 * the real model. */
#ifndef TP_SOFTMAX_ABS_H
#define TP_SOFTMAX_ABS_H

#include "softmax.acsl"
#include "../../common/proven/exact_sum.h"
#include "../../layernorm/proven/layernorm_cols.h"

/* hi + lo = sum_{j < n} |a[j] * b[j]|, a[j] and b[j] binary16 values. */
/*@ requires size: 0 <= n <= TP_LN_N_MAX;
  @ requires valid_a: \valid_read(a + (0 .. n - 1));
  @ requires valid_b: \valid_read(b + (0 .. n - 1));
  @ requires binary16: \forall integer j; 0 <= j < n ==> f16_float(a[j]) && f16_float(b[j]);
  @ requires valid_out: \valid(hi) && \valid(lo) && \separated(hi, lo);
  @ requires separated: \separated(hi, a + (0 .. n - 1)) && \separated(lo, a + (0 .. n - 1)) &&
  @   \separated(hi, b + (0 .. n - 1)) && \separated(lo, b + (0 .. n - 1));
  @ assigns *hi, *lo;
  @ ensures result: *hi + *lo == row_abs_dot(a, b, n);
  @*/
void tp_row_abs_dot(int n, const float *a, const float *b, double *hi, double *lo);

#endif
