/* Exact row and column sums of binary16 data by split-double accumulation.
 *
 * Every term p (a binary16 value, or a product of two) is split at the
 * fixed scale TP_EXACT_SPLIT into a high part t (a multiple of 2^-8) and a
 * low part p - t, accumulated into hi and lo. Each double operation is one
 * of oracles/common/proven/exact_sum.h, proved exact there (IEEE float
 * model) for inputs its contract admits; the loops here prove that those
 * contracts hold for n <= TP_LN_N_MAX = 2^13 terms (|hi| <= n 2^32 <= 2^45,
 * |lo| <= n TP_EXACT_REST < 2^5) and that hi + lo is the exact sum.
 * gcc must neither contract (-ffp-contract=off) nor reassociate these. */
/* wp: model=typed tiers=T1,T2 alone=cvc4nofp:tp_ln_row_dot,tp_ln_row_sum */
#include "layernorm.h"

/* The invariant of one split-double accumulator pair after k terms. */
/*@ predicate acc_ok(double h, double l, integer k) =
  @   \is_finite(h) && on_grid_8(h) && -k * 0x1p32 <= h <= k * 0x1p32 &&
  @   \is_finite(l) && on_grid_48(l) && -k * TP_EXACT_REST <= l <= k * TP_EXACT_REST;
  @*/

void tp_ln_row_sum(int n, const float *a, double *hi, double *lo)
{
    double h = 0.0, l = 0.0;
    /*@ assert zero: acc_ok(h, l, 0); */
    /*@ loop invariant range: 0 <= j <= n;
      @ loop invariant partial: h + l == ln_row_sum(a, j);
      @ loop invariant fmt: acc_ok(h, l, j);
      @ loop assigns j, h, l;
      @ loop variant n - j;
      @*/
    for (int j = 0; j < n; j++) {
        const double p = tp_exact_widen(a[j]);
        const double t = tp_exact_split(p);
        const double d = tp_exact_rest(p, t);
        h = tp_exact_add_hi(h, t);
        l = tp_exact_add_lo(l, d);
    }
    *hi = h;
    *lo = l;
}

void tp_ln_row_dot(int n, const float *a, const float *b, double *hi, double *lo)
{
    double h = 0.0, l = 0.0;
    /*@ assert zero: acc_ok(h, l, 0); */
    /*@ loop invariant range: 0 <= j <= n;
      @ loop invariant partial: h + l == ln_row_dot(a, b, j);
      @ loop invariant fmt: acc_ok(h, l, j);
      @ loop assigns j, h, l;
      @ loop variant n - j;
      @*/
    for (int j = 0; j < n; j++) {
        const double p = tp_exact_mul16(a[j], b[j]);
        const double t = tp_exact_split(p);
        const double d = tp_exact_rest(p, t);
        h = tp_exact_add_hi(h, t);
        l = tp_exact_add_lo(l, d);
    }
    *hi = h;
    *lo = l;
}
