/* Two row reductions of the softmax references: the exact maximum of a
 * row, and sum |a b| in plain double (the sum over reals only). The exact row dot
 * product softmax_xent_bwd needs is tp_ln_row_dot
 * (oracles/layernorm/proven/layernorm.c), proven exact in the IEEE float
 * model; this file is proven in the real model. */
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

double tp_row_abs_dot(int n, const float *a, const float *b)
{
    double s = 0.0;
    /*@ loop invariant range: 0 <= k <= n;
      @ loop invariant partial: s == row_abs_dot(a, b, k);
      @ loop assigns k, s;
      @ loop variant n - k;
      @*/
    for (int k = 0; k < n; k++) {
        /*@ assert next: row_abs_dot(a, b, k + 1) == row_abs_dot(a, b, k) + rabs((real)a[k] * (real)b[k]); */
        const double p = (double)a[k] * (double)b[k];
        s += p < 0.0 ? -p : p;
    }
    return s;
}
