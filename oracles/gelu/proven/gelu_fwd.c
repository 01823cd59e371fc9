/* Elementwise table lookup for GELU forward. The tables (and so all of the
 * arithmetic) come from gelu_fwd_tables.c; what is proven here is that
 * every element gets the entry of its own pattern. */
/* wp: model=typed+real tiers=T1,T2 */
#include "gelu_fwd.h"

void tp_gelu_fwd_ref(int n, const uint16_t *x, const tp_interval *exact_y, const tp_interval *model_y,
                     tp_interval *ex, tp_interval *mo)
{
    /*@ loop invariant range: 0 <= i <= n;
      @ loop invariant exact: \forall integer j; 0 <= j < i ==> looked_up(ex, exact_y, x, j);
      @ loop invariant model: \forall integer j; 0 <= j < i ==> looked_up(mo, model_y, x, j);
      @ loop assigns i, ex[0 .. n - 1], mo[0 .. n - 1];
      @ loop variant n - i;
      @*/
    for (int i = 0; i < n; i++) {
        const uint16_t h = x[i];
        ex[i].lo = exact_y[h].lo;
        ex[i].hi = exact_y[h].hi;
        mo[i].lo = model_y[h].lo;
        mo[i].hi = model_y[h].hi;
        /*@ assert fresh_exact: looked_up(ex, exact_y, x, i); */
        /*@ assert fresh_model: looked_up(mo, model_y, x, i); */
    }
}
