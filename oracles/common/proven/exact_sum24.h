/* Exact double sums of binary16 values on the 2^-24 grid: the embedding
 * gradient's scatter sums (oracles/embedding/proven/embedding_scatter.c), proved in
 * WP's IEEE float model.
 *
 * A binary16 value is a multiple of 2^-24 with |x| <= 65504 < 2^16, so a
 * sum of at most 2^13 of them is a multiple of 2^-24 below 2^29 in
 * magnitude: at most 2^53 units of 2^-24, which a double holds exactly.
 * Each double addition of such partial sums is therefore exact, whatever
 * the order. Gappa proves the one-step facts below (its @FIX rules), the
 * loop proofs then need only linear arithmetic. gcc must not reassociate
 * (no -ffast-math). */
#ifndef TP_EXACT_SUM24_H
#define TP_EXACT_SUM24_H

#include "grid.acsl"

/*@ axiomatic Grid24_Facts {
  @   lemma Grid24_Zero: on_grid_24(0.0);
  @   // Proved by Gappa: f16_fmt includes @FIX(x,-24) and |x| <= 65504.
  @   lemma F16_Grid24: \forall real x; f16_fmt(x) ==> on_grid_24(x) && -65504.0 <= x <= 65504.0;
  @ }
  @*/

/*@ // s is a possible partial sum of m binary16 values: a finite multiple
  @ // of 2^-24 no larger in magnitude than m times binary16's largest.
  @ predicate sum24_ok(double s, integer m) =
  @   \is_finite(s) && on_grid_24(s) && -(m * 65504.0) <= s <= m * 65504.0;
  @ // No lemma sum24_ok(s, m) ==> sum24_ok(s, m + 1): its instances trigger
  @ // new ones without end (m + 1, m + 2, ...), and with it in context CVC4
  @ // and z3 timed out on plain instances of the loop invariants.
  @*/

/* A binary16 value (held in a float) widened to double: exact, on the
 * 2^-24 grid. */
/*@ requires f16: f16_float(x);
  @ assigns \nothing;
  @ ensures exact: \result == x;
  @ ensures fmt: \is_finite(\result) && on_grid_24(\result);
  @ ensures range: -65504.0 <= \result <= 65504.0;
  @*/
static inline double tp_exact_widen24(float x)
{
    const double r = x;
    /*@ assert widened: r == x; */
    /*@ assert x_fmt: f16_fmt(x); */
    return r;
}

/* s + x for multiples of 2^-24 with |s + x| <= 2^29: exact. */
/*@ requires fmt: \is_finite(s) && on_grid_24(s) && \is_finite(x) && on_grid_24(x);
  @ requires range: -0x1p29 <= s + x <= 0x1p29;
  @ assigns \nothing;
  @ ensures lower: \result >= s + x;
  @ ensures upper: \result <= s + x;
  @ ensures fmt: \is_finite(\result) && on_grid_24(\result);
  @*/
static inline double tp_exact_add24(double s, double x)
{
    return s + x;
}

#endif
