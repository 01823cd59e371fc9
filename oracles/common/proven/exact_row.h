/* One step of the split-double exact sums over many columns at once: every
 * column's accumulator pair gains the exact product x * y[j]. GEMM runs it
 * once per term of its dot products (x = A[i][k], y = row k of B), the
 * LayerNorm column sums once per row (x = 1). Proven in WP's IEEE float
 * model in exact_row.c from the exact operations of exact_sum.h. */
#ifndef TP_EXACT_ROW_H
#define TP_EXACT_ROW_H

#include "grid.acsl"
#include "exact_sum_consts.h"
#include "f16_one.acsl"

/* The longest sum (terms) that exact_acc_ok keeps exact. */
#define TP_EXACT_N_MAX 8192

/* An accumulator pair after k terms: hi a multiple of 2^-8 and lo of 2^-48,
 * each within k times the largest term part (the requires of exact_sum.h's
 * additions while k < TP_EXACT_N_MAX). */
/*@ predicate exact_acc_ok(double h, double l, integer k) =
  @   \is_finite(h) && on_grid_8(h) && -k * 0x1p32 <= h <= k * 0x1p32 &&
  @   \is_finite(l) && on_grid_48(l) && -k * TP_EXACT_REST <= l <= k * TP_EXACT_REST;
  @*/

/* h + l = h0 + l0 + x y, as one atom: facts about many columns then match
 * by congruence. Stated as an equation, the loop invariant `done` of
 * exact_row.c did not prove (CVC4 timed out at 120 s: the product inside
 * the quantified facts). */
/*@ predicate madd_exact(real h, real l, real h0, real l0, real x, real y) = h + l == h0 + l0 + x * y; */

/* hi[j] + lo[j] gains x * y[j] exactly for every j < n, after k terms. */
/*@ requires sizes: 0 <= n && 0 <= k < TP_EXACT_N_MAX;
  @ requires x_f16: f16_float(x);
  @ requires valid_y: \valid_read(y + (0 .. n - 1));
  @ requires y_f16: \forall integer j; 0 <= j < n ==> f16_float(y[j]);
  @ requires valid_hi: \valid(hi + (0 .. n - 1));
  @ requires valid_lo: \valid(lo + (0 .. n - 1));
  @ requires separated: \separated(hi + (0 .. n - 1), lo + (0 .. n - 1));
  @ requires acc: \forall integer j; 0 <= j < n ==> exact_acc_ok(hi[j], lo[j], k);
  @ assigns hi[0 .. n - 1], lo[0 .. n - 1];
  @ ensures acc: \forall integer j; 0 <= j < n ==> exact_acc_ok(hi[j], lo[j], k + 1);
  @ ensures added: \forall integer j; 0 <= j < n ==>
  @   madd_exact(hi[j], lo[j], \old(hi[j]), \old(lo[j]), x, y[j]);
  @*/
void tp_exact_row_madd(int n, int k, float x, const float *y, double *hi, double *lo);

#endif
