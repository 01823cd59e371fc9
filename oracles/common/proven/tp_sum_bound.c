/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp,gappatp */
/* The any-order binary32 sum bound (contract in tp_sum_bound.h).
 * Every double operation is one rounding to nearest, linked to
 * \round_double in a small helper whose context is free of the sum logic,
 * and bounded there by the standard model (std_model64.acsl):
 *     RN(z) in [z - 2^-53 |z| - 2^-1075, z + 2^-53 |z| + 2^-1075].
 * The half-width is E = RN(RN(q + w) + RN(RN(|s| 2^-50) + 2^-1000)) with
 * q = RN(n RN(a C1)), a = RN(ahi + alo), w = RN(n 2^-147), s = RN(hi + lo),
 * and the ends are RN(s - E), RN(s + E). Each rounding is outweighed by a
 * margin written into the constants: C1 = dot_c (1 + 2^-40) > dot_c,
 * 2^-147 = 4 dot_eta, |s| 2^-50 (8 ulps-worth of s, against the 2 roundings
 * of S and of the end), 2^-1000 (every 2^-1075 term). */
#include "tp_sum_bound.h"

/* dot_c (1 + 2^-40), exact in double: 2^-24 + 2^-31 + 2^-64 + 2^-71. */
#define TP_SUM_C1 0x1.020000000102p-24

/* RN(x + y) of nonnegative x + y, with the standard model's bounds. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires range: 0.0 <= x + y <= 0x1p100;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures nonneg: 0.0 <= \result;
  @ ensures lower: (x + y) - 0x1p-53 * (x + y) - 0x1p-1074 / 2 <= \result;
  @ ensures upper: \result <= (x + y) + 0x1p-53 * (x + y) + (0x1p-1074 / 2);
  @*/
static TP_HD double add_pos(double x, double y)
{
    const double r = x + y;
    /*@ assert rounded: r == \round_double(\NearestEven, x + y); */
    /*@ assert nonneg: 0.0 <= \round_double(\NearestEven, x + y); */
    return r;
}

/* RN(x * y) of nonnegative x, y, stated over the atom pmul(x, y)
 * (tp_sum_bound.acsl) so that the callers' uses stay linear. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires range: 0.0 <= pmul(x, y) <= 0x1p100;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures nonneg: 0.0 <= \result;
  @ ensures lower: pmul(x, y) - 0x1p-53 * pmul(x, y) - 0x1p-1074 / 2 <= \result;
  @ ensures upper: \result <= pmul(x, y) + 0x1p-53 * pmul(x, y) + (0x1p-1074 / 2);
  @*/
static TP_HD double mul_pos(double x, double y)
{
    /*@ assert atom: pmul(x, y) == x * y; */
    /*@ assert in_range: rabs(x * y) <= 0x1p100; */
    const double r = x * y;
    /*@ assert rounded: r == \round_double(\NearestEven, x * y); */
    /*@ assert model: rabs(r - x * y) <= 0x1p-53 * rabs(x * y) + (0x1p-1074 / 2); */
    /*@ assert nonneg: 0.0 <= \round_double(\NearestEven, x * y); */
    return r;
}

/* RN(x + y), any sign. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires range: rabs(x + y) <= 0x1p100;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures err: rabs(\result - (x + y)) <= 0x1p-53 * rabs(x + y) + (0x1p-1074 / 2);
  @*/
static TP_HD double add_any(double x, double y)
{
    const double r = x + y;
    /*@ assert rounded: r == \round_double(\NearestEven, x + y); */
    return r;
}

/* RN(x - y), any sign. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires range: rabs(x - y) <= 0x1p100;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures err: rabs(\result - (x - y)) <= 0x1p-53 * rabs(x - y) + (0x1p-1074 / 2);
  @*/
static TP_HD double sub_any(double x, double y)
{
    const double r = x - y;
    /*@ assert rounded: r == \round_double(\NearestEven, x - y); */
    return r;
}

/* The half-width E and the rounded sum s, with what the ends need:
 * E (1 - 2^-53) >= c n A + n eta + 2^-51 |s| + 2^-1070 and
 * |s - S| <= 2^-53 |S| + 2^-1075. */
/*@ requires inputs: sum_bound_inputs(hi, lo, ahi, alo, n);
  @ requires out: \valid(s) && \valid(e) && \separated(s, e);
  @ assigns *s, *e;
  @ ensures s_finite: \is_finite(*s) && \is_finite(*e);
  @ ensures s_err: rabs(*s - (hi + lo)) <= 0x1p-53 * rabs(hi + lo) + (0x1p-1074 / 2);
  @ ensures s_range: rabs(*s) <= 0x1p62;
  @ ensures e_range: 0.0 <= *e <= 0x1p62;
  @ ensures e_big: *e - 0x1p-53 * *e >= dot_c * rmul(n, ahi + alo) + n * dot_eta + 0x1p-51 * rabs(*s) + 0x1p-1070;
  @ ensures e_floor: *e >= 0x1p-51 * rabs(*s) + 0x1p-1002;
  @*/
static TP_HD void half_width(double hi, double lo, double ahi, double alo, double n, double *s, double *e)
{
    const double a = add_pos(ahi, alo);
    /*@ assert a_range: 0.0 <= a <= 0x1p62; */
    /*@ assert a_atom: pmul(a, TP_SUM_C1) == TP_SUM_C1 * a; */
    const double p = mul_pos(a, TP_SUM_C1);
    /*@ assert p_range: 0.0 <= p <= 0x1p40; */
    /* n p within 2^60: monotonicity between the atoms at 0, p and 2^40. */
    /*@ assert np_low: pmul(n, 0.0) <= pmul(n, p); */
    /*@ assert np_high: pmul(n, p) <= pmul(n, 0x1p40); */
    /*@ assert np_zero: pmul(n, 0.0) == 0.0; */
    /*@ assert np_top: pmul(n, 0x1p40) == n * 0x1p40; */
    /*@ assert np_range: 0.0 <= pmul(n, p) <= 0x1p60; */
    const double q = mul_pos(n, p);
    /* n a >= n RN-lower(A) and n p >= n RN-lower(C1 a): Pmul_Mono at the
     * rounding's lower end, then Pmul_Sum / Pmul_Prod expand that end. */
    /*@ assert na_mono: pmul(n, (ahi + alo) - 0x1p-53 * (ahi + alo) - 0x1p-1074 / 2) <= pmul(n, a); */
    /*@ assert na: pmul(n, a) >= pmul(n, ahi + alo) - 0x1p-53 * pmul(n, ahi + alo) - n * (0x1p-1074 / 2); */
    /*@ assert np_mono: pmul(n, TP_SUM_C1 * a - 0x1p-53 * (TP_SUM_C1 * a) - 0x1p-1074 / 2) <= pmul(n, p); */
    /*@ assert np: pmul(n, p) >= TP_SUM_C1 * pmul(n, a) - 0x1p-53 * TP_SUM_C1 * pmul(n, a) - n * (0x1p-1074 / 2); */
    /*@ assert na_atom: pmul(n, ahi + alo) == rmul(n, ahi + alo); */
    /*@ assert na_pos: pmul(n, 0.0) <= pmul(n, ahi + alo); */
    /*@ assert q_low: q >= dot_c * rmul(n, ahi + alo) + 0x1p-42 * dot_c * rmul(n, ahi + alo) - 0x1p-1050; */
    /*@ assert w_atom: pmul(n, 0x1p-147) == n * 0x1p-147; */
    const double w = mul_pos(n, 0x1p-147);
    const double r = add_pos(q, w);
    /*@ assert r_low: r >= dot_c * rmul(n, ahi + alo) + 2 * n * dot_eta - 0x1p-1049; */
    /*@ assert r_floor: r >= -0x1p-1070; */
    const double sum = add_any(hi, lo);
    const double as = sum < 0.0 ? -sum : sum;
    /*@ assert as_abs: as == rabs(sum); */
    /*@ assert g_atom: pmul(as, 0x1p-50) == 0x1p-50 * as; */
    const double g = mul_pos(as, 0x1p-50);
    const double g2 = add_pos(g, 0x1p-1000);
    /*@ assert g2_low: g2 >= 0x1p-50 * rabs(sum) - 0x1p-100 * rabs(sum) + 0x1p-1001; */
    *s = sum;
    *e = add_pos(r, g2);
}

TP_HD tp_ival64 tp_sum_bound_rn(double hi, double lo, double ahi, double alo, double n)
{
    double s, e;
    half_width(hi, lo, ahi, alo, n, &s, &e);
    tp_ival64 v;
    v.lo = sub_any(s, e);
    v.hi = add_any(s, e);
    /*@ assert lo_ok: v.lo <= (hi + lo) - dot_c * rmul(n, ahi + alo) - n * dot_eta; */
    /*@ assert hi_ok: (hi + lo) + dot_c * rmul(n, ahi + alo) + n * dot_eta <= v.hi; */
    return v;
}

TP_HD tp_ival64 tp_sum_bound_long_rn(double hi, double lo, double ahi, double alo, double n, double m)
{
    const tp_ival64 v = tp_sum_bound_rn(hi, lo, ahi, alo, m);
    /* n A >= 0 and m A = 0x1.024 n A, over the atom pmul(n, A) */
    /*@ assert a_atom: pmul(n, ahi + alo) == n * (ahi + alo); */
    /*@ assert zero: pmul(n, 0.0) == 0.0; */
    /*@ assert a_pos: pmul(n, 0.0) <= pmul(n, ahi + alo); */
    /*@ assert m_atom: rmul(m, ahi + alo) == 0x1.024p0 * pmul(n, ahi + alo); */
    /*@ assert lo_long: v.lo <= (hi + lo) - dot_c_long * pmul(n, ahi + alo) - n * dot_eta; */
    /*@ assert hi_long: (hi + lo) + dot_c_long * pmul(n, ahi + alo) + n * dot_eta <= v.hi; */
    /* for t <= A: pmul(n, t) <= pmul(n, A) (Pmul_Mono) */
    return v;
}
