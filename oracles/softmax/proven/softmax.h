/* Proven row reductions of the softmax references (op_softmax_fwd.c,
 * op_softmax_xent_bwd.c): the exact maximum of a row and the sum of
 * |products| of two rows. The exact dot product is tp_ln_row_dot of
 * oracles/layernorm/proven/layernorm.h. */
#ifndef TP_SOFTMAX_H
#define TP_SOFTMAX_H

#include "softmax.acsl"

/* max_{k < n} x[k]: every comparison of two floats is exact, so the value
 * returned is the maximum itself (for finite or infinite x; NaN-free rows
 * only, which the callers check). */
/*@ requires size: 1 <= n;
  @ requires valid_x: \valid_read(x + (0 .. n - 1));
  @ assigns \nothing;
  @ ensures result: \result == row_max(x, n);
  @*/
float tp_row_max(int n, const float *x);

/* sum_{k < n} |a[k]*b[k]| in plain double (only the real-model sum is
 * proven; the caller inflates it by n*2^-52 relative to an upper bound). */
/*@ requires size: 0 <= n;
  @ requires valid_a: \valid_read(a + (0 .. n - 1));
  @ requires valid_b: \valid_read(b + (0 .. n - 1));
  @ assigns \nothing;
  @ ensures result: \result == row_abs_dot(a, b, n);
  @*/
double tp_row_abs_dot(int n, const float *a, const float *b);

#endif
