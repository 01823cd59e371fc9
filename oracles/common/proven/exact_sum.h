/* The double operations of tolproof's exact (split-double) sums, each with
 * a contract proved in WP's IEEE float model (by Gappa, through
 * proofs/why3/gappa_tp.drv): every one of them is exact on the inputs its
 * contract admits. The oracles (gemm, softmax, layernorm, embedding) chain
 * them in their loops; the loop proofs then need only linear arithmetic.
 *
 * The argument, per operation (binary16 inputs, at most 2^13 terms):
 *  - widening a binary16 value to double is exact; it is a multiple of
 *    2^-24 with |x| <= 65504;
 *  - a product of two binary16 values has at most 22 significant bits: exact
 *    in double, a multiple of 2^-48 with |p| <= 65504^2 < 2^32;
 *  - for |p| <= 2^32, s = p + TP_EXACT_SPLIT lies in [2^44, 2^45), where the
 *    double ulp is 2^-8, so |(p + TP_EXACT_SPLIT) - s| <= 2^-9 (the proof
 *    uses the standard model's weaker TP_EXACT_REST) and
 *    t = s - TP_EXACT_SPLIT is exact (Sterbenz): t is a multiple of 2^-8,
 *    |t| <= 2^32, and p - t, a multiple of 2^-48 with |p - t| <=
 *    TP_EXACT_REST, is exact too;
 *  - a sum of multiples of 2^-8 below 2^45 in magnitude (2^53 units) is exact,
 *    so is a sum of multiples of 2^-48 below 2^5 (2^53 units).
 * Each exactness is proved the same way: Gappa shows that the rounding
 * error r - x lies on the grid (a multiple of 2^-N), the standard model
 * (Why3's proved lemma round_bound_ne) that |r - x| < 2^-N, so r - x = 0
 * (lemma Grid*_Tiny of grid.acsl); or Gappa proves r = x directly.
 * These are small static functions so that each proof context holds one
 * operation; gcc inlines them (the compiled code is the same two roundings
 * per split as the expression (p + S) - S). gcc must neither contract
 * (-ffp-contract=off) nor reassociate (no -ffast-math) them. */
#ifndef TP_EXACT_SUM_H
#define TP_EXACT_SUM_H

#include "grid.acsl"
#include "exact_sum_consts.h"

/* A binary16 value (held in a float) widened to double. */
/*@ requires f16: f16_float(x);
  @ assigns \nothing;
  @ ensures exact: \result == x;
  @ ensures fmt: \is_finite(\result) && f16_fmt(\result) && on_grid_48(\result);
  @ ensures range: -0x1p32 <= \result <= 0x1p32;
  @*/
static inline double tp_exact_widen(float x)
{
    const double r = x;
    /*@ assert widened: r == x; */
    /*@ assert x_fmt: f16_fmt(x); */
    return r;
}

/* The product of two binary16 values (held in doubles). */
/*@ requires fmt: \is_finite(a) && f16_fmt(a) && \is_finite(b) && f16_fmt(b);
  @ assigns \nothing;
  @ ensures lower: \result >= a * b;
  @ ensures upper: \result <= a * b;
  @ ensures fmt: \is_finite(\result) && on_grid_48(\result);
  @ ensures range: -0x1p32 <= \result <= 0x1p32;
  @*/
static inline double tp_exact_mul(double a, double b)
{
    return a * b;
}

/* The product of two binary16 values held in floats, in double: exact.
 * Through mul_real (exact_sum_consts.h): the step from the widened copies
 * a == x, b == y to x * y is then congruence, which the provers do at
 * once, not nonlinear arithmetic (where they time out in the IEEE model's
 * context). */
/*@ requires f16: f16_float(x) && f16_float(y);
  @ assigns \nothing;
  @ ensures exact: \result == x * y;
  @ ensures fmt: \is_finite(\result) && on_grid_48(\result);
  @ ensures range: -0x1p32 <= \result <= 0x1p32;
  @*/
static inline double tp_exact_mul16(float x, float y)
{
    const double a = tp_exact_widen(x);
    const double b = tp_exact_widen(y);
    const double p = tp_exact_mul(a, b);
    /*@ assert same: mul_real(a, b) == mul_real(x, y); */
    /*@ assert exact: p == mul_real(a, b); */
    return p;
}

/* t = p rounded to a multiple of 2^-8 (the high part of p). */
/*@ requires fmt: \is_finite(p) && on_grid_48(p);
  @ requires range: -0x1p32 <= p <= 0x1p32;
  @ assigns \nothing;
  @ ensures fmt: \is_finite(\result) && on_grid_8(\result);
  @ ensures range: -0x1p32 <= \result <= 0x1p32;
  @ ensures rest: -TP_EXACT_REST <= p - \result <= TP_EXACT_REST;
  @*/
static inline double tp_exact_split(double p)
{
    const double s = p + TP_EXACT_SPLIT;
    /*@ assert s_err: -TP_EXACT_REST <= s - (p + TP_EXACT_SPLIT) <= TP_EXACT_REST; */
    const double t = s - TP_EXACT_SPLIT;
    /*@ assert t_grid: on_grid_8(t - (s - TP_EXACT_SPLIT)); */
    /*@ assert t_err: -0x1p-9 <= t - (s - TP_EXACT_SPLIT) <= 0x1p-9; */
    /*@ assert t_exact: t == s - TP_EXACT_SPLIT; */
    return t;
}

/* p - t for the high part t of p: exact. */
/*@ requires fmt: \is_finite(p) && on_grid_48(p) && \is_finite(t) && on_grid_8(t);
  @ requires rest: \abs(p - t) <= TP_EXACT_REST;
  @ assigns \nothing;
  @ ensures lower: \result >= p - t;
  @ ensures upper: \result <= p - t;
  @ ensures finite: \is_finite(\result);
  @ ensures fmt: on_grid_48(\result);
  @*/
static inline double tp_exact_rest(double p, double t)
{
    /*@ assert pt_on: on_grid_48(p - t); */
    const double d = p - t;
    /*@ assert d_finite: \is_finite(d); */
    /*@ assert d_grid: on_grid_48(d - (p - t)); */
    /*@ assert d_err: -0x1p-60 <= d - (p - t) <= 0x1p-60; */
    /*@ assert d_exact: d == p - t; */
    return d;
}

/* h + t for multiples of 2^-8 with |h + t| <= 2^45: exact. */
/*@ requires fmt: \is_finite(h) && on_grid_8(h) && \is_finite(t) && on_grid_8(t);
  @ requires range: -0x1p45 <= h + t <= 0x1p45;
  @ assigns \nothing;
  @ ensures lower: \result >= h + t;
  @ ensures upper: \result <= h + t;
  @ ensures fmt: \is_finite(\result) && on_grid_8(\result);
  @*/
static inline double tp_exact_add_hi(double h, double t)
{
    return h + t;
}

/* l + d for multiples of 2^-48 with |l + d| <= TP_EXACT_LO_MAX < 2^5: exact. */
/*@ requires fmt: \is_finite(l) && on_grid_48(l) && \is_finite(d) && on_grid_48(d);
  @ requires range: -TP_EXACT_LO_MAX <= l + d <= TP_EXACT_LO_MAX;
  @ assigns \nothing;
  @ ensures lower: \result >= l + d;
  @ ensures upper: \result <= l + d;
  @ ensures finite: \is_finite(\result);
  @ ensures fmt: on_grid_48(\result);
  @*/
static inline double tp_exact_add_lo(double l, double d)
{
    /*@ assert ld_on: on_grid_48(l + d); */
    const double r = l + d;
    /*@ assert r_finite: \is_finite(r); */
    /*@ assert r_grid: on_grid_48(r - (l + d)); */
    /*@ assert r_err: -0x1p-49 <= r - (l + d) <= 0x1p-49; */
    /*@ assert r_exact: r == l + d; */
    return r;
}

#endif
