/* The proven row maximum of the softmax references (op_softmax_fwd.c).
 * The exact dot product and sum of |products| of two rows
 * (op_softmax_xent_bwd.c) are tp_ln_row_dot of
 * oracles/layernorm/proven/layernorm.h and tp_row_abs_dot of
 * softmax_abs.h. */
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

#endif
