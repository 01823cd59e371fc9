/* The exact maximum of a row, for the softmax references: every
 * comparison of two floats is exact, which the real model reads as it is.
 * The exact row dot product softmax_xent_bwd needs is tp_ln_row_dot
 * (oracles/layernorm/proven/layernorm.c) and its sum of |products|
 * tp_row_abs_dot (softmax_abs.c), both proven exact in the IEEE float
 * model. */
/* wp: model=typed+real tiers=T1,T2 */
#include "softmax.h"

float tp_row_max(int n, const float *x)
{
    float m = x[0];
    /*@ loop invariant range: 1 <= k <= n;
      @ loop invariant partial: m == row_max(x, k);
      @ loop assigns k, m;
      @ loop variant n - k;
      @*/
    for (int k = 1; k < n; k++) {
        /*@ assert next: row_max(x, k + 1) == rmax(row_max(x, k), (real)x[k]); */
        if (x[k] > m)
            m = x[k];
    }
    return m;
}
