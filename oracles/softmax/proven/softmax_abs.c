/* The exact sum of |a[j] b[j]| (softmax_abs.h): each product of two
 * binary16 values is exact in double (tp_exact_mul16), so is its absolute
 * value (a negation), and the split-double accumulation adds the terms
 * exactly while hi and lo stay within the bounds the helpers of
 * oracles/common/proven/exact_sum.h admit (at most TP_LN_N_MAX terms,
 * each at most 2^32: |hi| <= 2^45, |lo| <= TP_EXACT_LO_MAX), as for
 * tp_ln_row_dot (oracles/layernorm/proven/layernorm.c). */
/* wp: model=typed tiers=T1,T2 alone=cvc4nofp:tp_row_abs_dot */
#include "softmax_abs.h"

/* The invariant of the accumulator pair after k terms. */
/*@ predicate abs_acc_ok(double h, double l, integer k) =
  @   \is_finite(h) && on_grid_8(h) && -k * 0x1p32 <= h <= k * 0x1p32 &&
  @   \is_finite(l) && on_grid_48(l) && -k * TP_EXACT_REST <= l <= k * TP_EXACT_REST;
  @*/

/* |p| for a product p of two binary16 values: the negation is exact, and
 * -p = 0 - p stays on p's grid. */
/*@ requires fmt: \is_finite(p) && on_grid_48(p);
  @ requires range: -0x1p32 <= p <= 0x1p32;
  @ assigns \nothing;
  @ ensures exact: \result == rabs(p);
  @ ensures fmt: \is_finite(\result) && on_grid_48(\result);
  @ ensures range: -0x1p32 <= \result <= 0x1p32;
  @*/
static double abs_exact(double p)
{
    if (p < 0.0) {
        /*@ assert grid: on_grid_48(0.0 - p); */
        return -p;
    }
    return p;
}

void tp_row_abs_dot(int n, const float *a, const float *b, double *hi, double *lo)
{
    double h = 0.0, l = 0.0;
    /*@ assert zero: abs_acc_ok(h, l, 0); */
    /*@ loop invariant range: 0 <= j <= n;
      @ loop invariant partial: h + l == row_abs_dot(a, b, j);
      @ loop invariant fmt: abs_acc_ok(h, l, j);
      @ loop assigns j, h, l;
      @ loop variant n - j;
      @*/
    for (int j = 0; j < n; j++) {
        /*@ assert next: row_abs_dot(a, b, j + 1) == row_abs_dot(a, b, j) + rabs((real)a[j] * (real)b[j]); */
        const double p = tp_exact_mul16(a[j], b[j]);
        const double q = abs_exact(p);
        /*@ assert term: q == rabs((real)a[j] * (real)b[j]); */
        const double t = tp_exact_split(q);
        const double d = tp_exact_rest(q, t);
        h = tp_exact_add_hi(h, t);
        l = tp_exact_add_lo(l, d);
    }
    *hi = h;
    *lo = l;
}
