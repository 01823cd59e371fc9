/* GELU-backward reference: one table look-up and two exact products per end.
 * Two passes, one per output array, so that each loop writes one array. */
/* wp: model=typed+real tiers=T1,T2 */
#include "gelu_bwd.h"

void tp_gelu_bwd_ref(int n, const uint16_t *x, const float *g, const tp_interval *exact_f,
                     const tp_interval *model_f, tp_interval *exact_out, tp_interval *model_out)
{
    /*@ loop invariant range: 0 <= i <= n;
      @ loop invariant exact: \forall integer j; 0 <= j < i ==>
      @   exact_out[j].lo == \at(rmin(g[j] * exact_f[x[j]].lo, g[j] * exact_f[x[j]].hi), Pre) &&
      @   exact_out[j].hi == \at(rmax(g[j] * exact_f[x[j]].lo, g[j] * exact_f[x[j]].hi), Pre);
      @ loop assigns i, exact_out[0 .. n - 1];
      @ loop variant n - i;
      @*/
    for (int i = 0; i < n; i++) {
        const double gi = g[i];
        const tp_interval ef = exact_f[x[i]];
        const double e0 = gi * ef.lo, e1 = gi * ef.hi;
        exact_out[i].lo = e0 < e1 ? e0 : e1;
        exact_out[i].hi = e0 < e1 ? e1 : e0;
    }
    /*@ loop invariant range: 0 <= i <= n;
      @ loop invariant model: \forall integer j; 0 <= j < i ==>
      @   model_out[j].lo == \at(rmin(g[j] * model_f[x[j]].lo, g[j] * model_f[x[j]].hi), Pre) &&
      @   model_out[j].hi == \at(rmax(g[j] * model_f[x[j]].lo, g[j] * model_f[x[j]].hi), Pre);
      @ loop assigns i, model_out[0 .. n - 1];
      @ loop variant n - i;
      @*/
    for (int i = 0; i < n; i++) {
        const double gi = g[i];
        const tp_interval mf = model_f[x[i]];
        const double m0 = gi * mf.lo, m1 = gi * mf.hi;
        model_out[i].lo = m0 < m1 ? m0 : m1;
        model_out[i].hi = m0 < m1 ? m1 : m0;
    }
}
