/* wp: model=typed tiers=T1 */
/* The node loop of the elementwise evaluator (contract in ew_eval.h), moved
 * here unchanged from oracles/generic/ew_admit.c except for one check
 * before each primitive's call that the operand intervals are ordered
 * (lo <= hi), which every producer of an interval already guarantees:
 * the primitives `require` it. The range checks are the loop's own, in
 * double: each sum, difference and product check is shown to imply the
 * primitive's `in_range` from Why3's ieee_float lemmas (a finite double
 * result is one rounding, within the standard model) and the real facts
 * of ew_eval.acsl; the quotient check is ew_quot_fits, a contract WP
 * takes as given (ew_eval.h says why). */
#include "ew_eval.h"

#include <float.h>
#include <math.h>

#ifdef __FRAMAC__
/* fminf and fmaxf (C11 7.12.12): pure functions of their operands.
 * Frama-C 25's libc declares them without a contract. */
/*@ assigns \result \from x, y; */
float fminf(float x, float y);
/*@ assigns \result \from x, y; */
float fmaxf(float x, float y);
#endif

/* The primitives' `in_range` requires, checked in double with a margin: a
 * double within 0x1.fffffcp127 (FLT_MAX less half its ulp) is the rounding
 * of a real below FLT_MAX even after one double rounding (relative error
 * 2^-53), and corner products and sums of binary32 values are that. */
/*@ assigns \nothing;
  @ ensures \result != 0 ==> \is_finite(d) && rabs(d) <= 0x1.fffffcp127;
  @*/
static int fits(double d)
{
    return fabs(d) <= 0x1.fffffcp127;
}

/* A binary32 value as a double: exact (Why3's
 * FloatConverter.to_float64_exact, through WP's Cfloat). */
/*@ requires \is_finite(x);
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures exact: (real)\result == (real)x;
  @ ensures range: rabs(\result) <= flt_max;
  @*/
static double widen(float x)
{
    return x;
}

/* One double operation whose result is finite is one rounding of the
 * exact result, without overflow (Why3's ieee_float lemmas
 * add_finite_rev_n, ..., div_finite_rev_n, and round_bound_ne for
 * Float64): a non-finite result is left to fits(), which refuses it. */
/*@ assigns \nothing;
  @ ensures \is_finite(\result) ==> \is_finite(x) && \is_finite(y) &&
  @   rabs(\result - (x + y)) <= 0x1p-53 * rabs(x + y) + 0x1p-1074 / 2;
  @*/
static double add64(double x, double y)
{
    return x + y;
}

/*@ assigns \nothing;
  @ ensures \is_finite(\result) ==> \is_finite(x) && \is_finite(y) &&
  @   rabs(\result - (x - y)) <= 0x1p-53 * rabs(x - y) + 0x1p-1074 / 2;
  @*/
static double sub64(double x, double y)
{
    return x - y;
}

/*@ assigns \nothing;
  @ ensures \is_finite(\result) ==> \is_finite(x) && \is_finite(y) &&
  @   rabs(\result - ew_mul(x, y)) <= 0x1p-53 * rabs(ew_mul(x, y)) + 0x1p-1074 / 2;
  @*/
static double mul64(double x, double y)
{
    /*@ assert atom: ew_mul(x, y) == x * y; */
    return x * y;
}

/*@ requires \is_finite(x) && \is_finite(y);
  @ assigns \nothing;
  @ ensures \result != 0 ==> rabs(x + y) <= flt_max;
  @*/
static int sum_fits(float x, float y)
{
    const double dx = widen(x), dy = widen(y);
    const double s = add64(dx, dy);
    const int r = fits(s);
    /*@ assert sum: r != 0 ==> rabs(dx + dy) <= flt_max; */
    return r;
}

/*@ requires \is_finite(x) && \is_finite(y);
  @ assigns \nothing;
  @ ensures \result != 0 ==> rabs(x - y) <= flt_max;
  @*/
static int diff_fits(float x, float y)
{
    const double dx = widen(x), dy = widen(y);
    const double s = sub64(dx, dy);
    const int r = fits(s);
    /*@ assert diff: r != 0 ==> rabs(dx - dy) <= flt_max; */
    return r;
}

/*@ requires \is_finite(x) && \is_finite(y);
  @ assigns \nothing;
  @ ensures \result != 0 ==> -flt_max <= x * y <= flt_max;
  @*/
static int prod_fits(float x, float y)
{
    const double dx = widen(x), dy = widen(y);
    const double s = mul64(dx, dy);
    const int r = fits(s);
    /*@ assert prod: r != 0 ==> rabs(ew_mul(dx, dy)) <= flt_max; */
    /*@ assert same: ew_mul(dx, dy) == ew_mul(x, y); */
    /*@ assert def: ew_mul(x, y) == x * y; */
    return r;
}

/* RN64(RN64(x y) + c) within the margin: x y + c within the range. */
/*@ requires \is_finite(x) && \is_finite(y) && \is_finite(c);
  @ assigns \nothing;
  @ ensures \result != 0 ==> -flt_max <= x * y + c <= flt_max;
  @*/
static int fused_fits(float x, float y, float c)
{
    const double dx = widen(x), dy = widen(y), dc = widen(c);
    const double p = mul64(dx, dy);
    const double s = add64(p, dc);
    const int r = fits(s);
    /*@ assert p_finite: r != 0 ==> \is_finite(p); */
    /*@ assert near: r != 0 ==> rabs(p + dc) <= 0x1.fffffcp127 + 0x1p76; */
    /*@ assert p_130: r != 0 ==> rabs(p) <= 0x1p130; */
    /*@ assert p_err: r != 0 ==> rabs(p - ew_mul(dx, dy)) <= 0x1p78; */
    /*@ assert tri: rabs(ew_mul(dx, dy) + dc) <= rabs(p + dc) + rabs(p - ew_mul(dx, dy)); */
    /*@ assert step: r != 0 ==> rabs(ew_mul(dx, dy) + dc) <= flt_max; */
    /*@ assert same: ew_mul(dx, dy) == ew_mul(x, y); */
    /*@ assert def: ew_mul(x, y) == x * y; */
    return r;
}

/*@ predicate finite32(tp_ival32 a) = \is_finite(a.lo) && \is_finite(a.hi); */

/*@ assigns \nothing;
  @ ensures \result != 0 <==> finite32(a);
  @*/
static int finite(tp_ival32 a)
{
    return isfinite(a.lo) && isfinite(a.hi);
}

/* The primitives' `ok`: finite and ordered. */
/*@ assigns \nothing;
  @ ensures \result != 0 ==> ival32_ok(a);
  @*/
static int ordered(tp_ival32 a)
{
    return isfinite(a.lo) && isfinite(a.hi) && a.lo <= a.hi;
}

/*@ assigns \nothing;
  @ ensures neg_lo: \is_finite(a.hi) ==> \is_finite(\result.lo) && \result.lo == -a.hi;
  @ ensures neg_hi: \is_finite(a.lo) ==> \is_finite(\result.hi) && \result.hi == -a.lo;
  @*/
static tp_ival32 neg(tp_ival32 a)
{
    const tp_ival32 r = {-a.hi, -a.lo};
    return r;
}

/*@ assigns \nothing; */
static tp_ival32 hull(tp_ival32 a, tp_ival32 b)
{
    const tp_ival32 r = {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    return r;
}

/* The eight corner results of x*y + z within the range (fma_in_range). */
/*@ requires finite32(a) && finite32(b) && finite32(c);
  @ assigns \nothing;
  @ ensures \result != 0 ==> fma_in_range(a.lo, a.hi, b.lo, b.hi, c.lo, c.hi);
  @*/
static int fma_fits(tp_ival32 a, tp_ival32 b, tp_ival32 c)
{
    return fused_fits(a.lo, b.lo, c.lo) && fused_fits(a.lo, b.lo, c.hi) && fused_fits(a.lo, b.hi, c.lo) &&
           fused_fits(a.lo, b.hi, c.hi) && fused_fits(a.hi, b.lo, c.lo) && fused_fits(a.hi, b.lo, c.hi) &&
           fused_fits(a.hi, b.hi, c.lo) && fused_fits(a.hi, b.hi, c.hi);
}

/* The four corner products within the range. */
/*@ requires finite32(a) && finite32(b);
  @ assigns \nothing;
  @ ensures \result != 0 ==> -flt_max <= a.lo * b.lo <= flt_max && -flt_max <= a.lo * b.hi <= flt_max &&
  @                          -flt_max <= a.hi * b.lo <= flt_max && -flt_max <= a.hi * b.hi <= flt_max;
  @*/
static int mul_fits(tp_ival32 a, tp_ival32 b)
{
    return prod_fits(a.lo, b.lo) && prod_fits(a.lo, b.hi) && prod_fits(a.hi, b.lo) && prod_fits(a.hi, b.hi);
}

/* An operand interval out of order: no producer makes one (each primitive
 * ensures lo <= hi, and the rest keep the order of their operands'). */
static const char *const unordered = "an operand interval with its ends out of order";

/* One side of the fused alternatives (ew_admit.h): node mi a product x*y
 * whose user adds (sub: subtracts) node oi; side 0: x*y + z (x*y - z),
 * side 1: z + x*y (z - x*y = fmaf(-x, y, z)). */
/*@ requires wf: \valid_read(p) && ew_prog_wf(p);
  @ requires ops: 0 <= mi < lim <= p->n && 0 <= oi < lim;
  @ requires v: \valid_read(v + (0 .. lim - 1));
  @ requires out: \valid(acc) && \valid(why);
  @ assigns *acc, *why;
  @ ensures \result == 0 || \result == -1;
  @*/
static int fuse_side(const ew_prog *p, const tp_ival32 *v, int lim, int sub, int side, int mi, int oi,
                     tp_ival32 *acc, const char **why)
{
    (void)lim; /* the contract's bound on mi and oi */
    if (p->node[mi].kind != EW_MUL)
        return 0;
    /*@ assert node: ew_node_ok(p, mi); */
    const int ia = p->node[mi].a, ib = p->node[mi].b;
    /*@ assert ops: 0 <= ia < mi && 0 <= ib < mi; */
    /*@ assert in_v: 0 <= ia < lim && 0 <= ib < lim && 0 <= oi < lim; */
    tp_ival32 x = v[ia], y = v[ib], z = v[oi];
    if (sub && side == 0)
        z = neg(z); /* x*y - z */
    if (sub && side == 1)
        x = neg(x); /* z - x*y = fmaf(-x, y, z) */
    /* (a non-finite end fails fma_fits too, with the same reason) */
    if (!(finite(x) && finite(y) && finite(z)) || !fma_fits(x, y, z)) {
        *why = "a fused x*y + z may overflow binary32";
        return -1;
    }
    if (!(ordered(x) && ordered(y) && ordered(z))) {
        *why = unordered;
        return -1;
    }
    *acc = hull(*acc, tp_ival32_fma(x, y, z));
    return 0;
}

/* With fma = "any", the fused alternatives of the sum or difference of
 * nodes a and b (sub: a - b): a product operand x*y fuses with the other
 * operand into fmaf(x, y, other) or fmaf(-x, y, other). */
/*@ requires wf: \valid_read(p) && ew_prog_wf(p);
  @ requires ops: 0 <= a < lim <= p->n && 0 <= b < lim;
  @ requires v: \valid_read(v + (0 .. lim - 1));
  @ requires out: \valid(acc) && \valid(why);
  @ assigns *acc, *why;
  @ ensures \result == 0 || \result == -1;
  @*/
static int fused(const ew_prog *p, const tp_ival32 *v, int lim, int sub, int a, int b, tp_ival32 *acc,
                 const char **why)
{
    if (fuse_side(p, v, lim, sub, 0, a, b, acc, why) != 0)
        return -1;
    return fuse_side(p, v, lim, sub, 1, b, a, acc, why);
}

/* Three-valued comparison on intervals: 1 holds for every pair, 0 for none,
 * 2 undecided. */
/*@ assigns \nothing;
  @ ensures 0 <= \result <= 2;
  @*/
static int compare(ew_kind k, tp_ival32 a, tp_ival32 b)
{
    switch (k) {
    case EW_LT: return a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : 2;
    case EW_LE: return a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : 2;
    case EW_GT: return a.lo > b.hi ? 1 : a.hi <= b.lo ? 0 : 2;
    case EW_GE: return a.lo >= b.hi ? 1 : a.hi < b.lo ? 0 : 2;
    default: { /* EW_EQ, EW_NE: equal only where both are the same point (-0 == +0, as in C) */
        const int eq = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo ? 1 : a.hi < b.lo || a.lo > b.hi ? 0 : 2;
        return k == EW_NE && eq != 2 ? !eq : eq;
    }
    }
}

/* The one place an operand may be unbounded above ([lo, +inf], from an
 * overflowing expf): a sum or difference with a finite operand, or a
 * divisor. RN is monotone and x + inf = inf, x / inf = +-0, so
 *   [l, +inf] + b = [RN(l + b.lo), +inf],   a - [l, +inf] = [-inf, ...]
 *   (not bounded), a / [l, +inf] (l > 0) = hull(a / [l, FLT_MAX], 0).
 * Returns 1 when it handled node kind k, 0 when the operands are finite,
 * -1 when they are not and nothing here bounds the result. */
/*@ requires out: \valid(r) && \valid(why);
  @ assigns *r, *why;
  @ ensures -1 <= \result <= 1;
  @ ensures finite: \result == 0 ==> finite32(a) && finite32(b);
  @*/
static int unbounded(ew_kind k, tp_ival32 a, tp_ival32 b, tp_ival32 *r, const char **why)
{
    if (finite(a) && finite(b))
        return 0;
    *why = "an intermediate may overflow binary32";
    if (k == EW_ADD && isfinite(a.lo) && isfinite(b.lo) && (finite(a) || finite(b))) {
        const tp_ival32 x = {a.lo, a.lo}, y = {b.lo, b.lo};
        if (!sum_fits(a.lo, b.lo))
            return -1;
        r->lo = tp_ival32_add(x, y).lo;
        r->hi = INFINITY;
        return 1;
    }
    if (k == EW_DIV && finite(a) && b.lo > 0.0f && isfinite(b.lo)) {
        const tp_ival32 y = {b.lo, FLT_MAX};
        const tp_ival32 x = a;
        if (!(ew_quot_fits(x.lo, y.lo) && ew_quot_fits(x.hi, y.lo)))
            return -1;
        if (!ordered(x)) {
            *why = unordered;
            return -1;
        }
        *r = hull(tp_ival32_div(x, y), (tp_ival32){0.0f, 0.0f});
        return 1;
    }
    return -1;
}

/* Node i, a sum or a difference. */
/*@ requires wf: \valid_read(p) && ew_prog_wf(p) && \valid_read(m);
  @ requires i: 0 <= i < p->n && (p->node[i].kind == EW_ADD || p->node[i].kind == EW_SUB);
  @ requires v: \valid(v + (0 .. i)) && \valid(why);
  @ assigns v[i], *why;
  @ ensures \result == 0 || \result == -1;
  @*/
static int eval_addsub(const ew_prog *p, const ew_model *m, tp_ival32 *v, int i, const char **why)
{
    const ew_node *nd = &p->node[i];
    /*@ assert node: ew_node_ok(p, i); */
    const int ia = nd->a, ib = nd->b;
    /*@ assert ops: 0 <= ia < i && 0 <= ib < i; */
    const tp_ival32 a = v[ia], b = v[ib];
    const int u = unbounded(nd->kind, a, b, &v[i], why);
    if (u < 0)
        return -1;
    if (u > 0)
        return 0;
    const int sub = nd->kind == EW_SUB;
    if (sub ? !(diff_fits(a.lo, b.hi) && diff_fits(a.hi, b.lo)) : !(sum_fits(a.lo, b.lo) && sum_fits(a.hi, b.hi))) {
        *why = "a sum may overflow binary32";
        return -1;
    }
    if (!(ordered(a) && ordered(b))) {
        *why = unordered;
        return -1;
    }
    v[i] = sub ? tp_ival32_sub(a, b) : tp_ival32_add(a, b);
    if (m->fma_any && fused(p, v, i, sub, ia, ib, &v[i], why) != 0)
        return -1;
    return 0;
}

/* Node i, a product. */
/*@ requires wf: \valid_read(p) && ew_prog_wf(p);
  @ requires i: 0 <= i < p->n && p->node[i].kind == EW_MUL;
  @ requires v: \valid(v + (0 .. i)) && \valid(why);
  @ assigns v[i], *why;
  @ ensures \result == 0 || \result == -1;
  @*/
static int eval_mul(const ew_prog *p, tp_ival32 *v, int i, const char **why)
{
    const ew_node *nd = &p->node[i];
    /*@ assert node: ew_node_ok(p, i); */
    const int ia = nd->a, ib = nd->b;
    /*@ assert ops: 0 <= ia < i && 0 <= ib < i; */
    const tp_ival32 a = v[ia], b = v[ib];
    if (unbounded(nd->kind, a, b, &v[i], why) != 0)
        return -1;
    if (!mul_fits(a, b)) {
        *why = "a product may overflow binary32";
        return -1;
    }
    if (!(ordered(a) && ordered(b))) {
        *why = unordered;
        return -1;
    }
    v[i] = tp_ival32_mul(a, b);
    return 0;
}

/* Node i, a quotient. */
/*@ requires wf: \valid_read(p) && ew_prog_wf(p);
  @ requires i: 0 <= i < p->n && p->node[i].kind == EW_DIV;
  @ requires v: \valid(v + (0 .. i)) && \valid(why);
  @ assigns v[i], *why;
  @ ensures \result == 0 || \result == -1;
  @*/
static int eval_div(const ew_prog *p, tp_ival32 *v, int i, const char **why)
{
    const ew_node *nd = &p->node[i];
    /*@ assert node: ew_node_ok(p, i); */
    const int ia = nd->a, ib = nd->b;
    /*@ assert ops: 0 <= ia < i && 0 <= ib < i; */
    const tp_ival32 a = v[ia], b = v[ib];
    const int u = unbounded(nd->kind, a, b, &v[i], why);
    if (u < 0)
        return -1;
    if (u > 0)
        return 0;
    if (!(b.lo > 0.0f || b.hi < 0.0f)) {
        *why = "a divisor interval holds 0";
        return -1;
    }
    /* x / y = (-x) / (-y) exactly: a negative divisor becomes positive */
    const tp_ival32 x = b.lo > 0.0f ? a : neg(a), y = b.lo > 0.0f ? b : neg(b);
    if (!(ordered(x) && ordered(y))) { /* (here: the quotients below need y > 0) */
        *why = unordered;
        return -1;
    }
    if (!(ew_quot_fits(x.lo, y.lo) && ew_quot_fits(x.lo, y.hi) && ew_quot_fits(x.hi, y.lo) && ew_quot_fits(x.hi, y.hi))) {
        *why = "a quotient may overflow binary32";
        return -1;
    }
    v[i] = tp_ival32_div(x, y);
    return 0;
}

/* Node i, fmaf. */
/*@ requires wf: \valid_read(p) && ew_prog_wf(p);
  @ requires i: 0 <= i < p->n && p->node[i].kind == EW_FMA;
  @ requires v: \valid(v + (0 .. i)) && \valid(why);
  @ assigns v[i], *why;
  @ ensures \result == 0 || \result == -1;
  @*/
static int eval_fma(const ew_prog *p, tp_ival32 *v, int i, const char **why)
{
    const ew_node *nd = &p->node[i];
    /*@ assert node: ew_node_ok(p, i); */
    const int ia = nd->a, ib = nd->b, ic = nd->c;
    /*@ assert ops: 0 <= ia < i && 0 <= ib < i && 0 <= ic < i; */
    const tp_ival32 a = v[ia], b = v[ib], c = v[ic];
    if (unbounded(nd->kind, a, b, &v[i], why) != 0 || unbounded(nd->kind, c, c, &v[i], why) != 0)
        return -1;
    if (!fma_fits(a, b, c)) {
        *why = "fmaf may overflow binary32";
        return -1;
    }
    if (!(ordered(a) && ordered(b) && ordered(c))) {
        *why = unordered;
        return -1;
    }
    v[i] = tp_ival32_fma(a, b, c);
    return 0;
}

/* Node i, a device function: sqrtf correctly rounded (ulp 0) by the proven
 * primitive, the others through ew_device_ends. */
/*@ requires wf: \valid_read(p) && ew_prog_wf(p) && \valid_read(m);
  @ requires i: 0 <= i < p->n && EW_FIRST_FN <= p->node[i].kind < EW_NKINDS;
  @ requires v: \valid(v + (0 .. i)) && \valid(why);
  @ assigns v[i], *why, ew_ext_state;
  @ ensures \result == 0 || \result == -1;
  @*/
static int eval_fn(const ew_prog *p, const ew_model *m, tp_ival32 *v, int i, const char **why)
{
    const ew_node *nd = &p->node[i];
    /*@ assert node: ew_node_ok(p, i); */
    const int ia = nd->a;
    /*@ assert ops: 0 <= ia < i; */
    const tp_ival32 a = v[ia];
    const int k = (int)nd->kind - EW_FIRST_FN;
    if (k < 0 || k >= EW_NFNS || m->ulp[k] < 0) {
        *why = "a device function without a declared ulp bound";
        return -1;
    }
    if (nd->kind == EW_SQRT && m->ulp[k] == 0) { /* ew_device_ends's checks, in its order */
        if (!isfinite(a.lo) || !isfinite(a.hi)) {
            *why = "a device function of a value that may overflow binary32";
            return -1;
        }
        if (a.lo < 0.0f) {
            *why = "sqrtf of an interval reaching below 0";
            return -1;
        }
        if (!ordered(a)) {
            *why = unordered;
            return -1;
        }
        v[i] = tp_ival32_sqrt(a);
        return 0;
    }
    return ew_device_ends(k, m->ulp[k], a, &v[i], why) != 0 ? -1 : 0;
}

/* Node i's kind, operands and input index (ew_node_ok). */
/*@ requires \valid_read(p) && 0 <= i < EW_MAX_NODES;
  @ assigns \nothing;
  @ ensures \result != 0 ==> ew_node_ok(p, i);
  @*/
static int node_ok(const ew_prog *p, int i)
{
    const ew_node *nd = &p->node[i];
    const unsigned k = nd->kind;
    if (k >= EW_NKINDS)
        return 0;
    if (nd->a < -1 || nd->a >= i || nd->b < -1 || nd->b >= i || nd->c < -1 || nd->c >= i)
        return 0;
    if (k != EW_INPUT && k != EW_CONST && nd->a < 0)
        return 0;
    if (k >= EW_ADD && k <= EW_NE && nd->b < 0)
        return 0;
    if ((k == EW_FMA || k == EW_SELECT) && nd->c < 0)
        return 0;
    if (k == EW_INPUT && (nd->input < 0 || nd->input >= EW_MAX_INPUTS))
        return 0;
    return 1;
}

int ew_prog_ok(const ew_prog *p)
{
    if (p->n < 1 || p->n > EW_MAX_NODES)
        return 0;
    /*@ loop invariant 0 <= i <= p->n;
      @ loop invariant \forall integer j; 0 <= j < i ==> ew_node_ok(p, j);
      @ loop assigns i;
      @ loop variant p->n - i;
      @*/
    for (int i = 0; i < p->n; i++)
        if (!node_ok(p, i))
            return 0;
    return 1;
}

/* Node i, not tabulated: its hull into v[i] (a comparison's truth into
 * truth[i]). */
/*@ requires wf: \valid_read(p) && ew_prog_wf(p) && \valid_read(m);
  @ requires i: 0 <= i < p->n;
  @ requires in: \valid_read(in + (0 .. EW_MAX_INPUTS - 1));
  @ requires v: \valid(v + (0 .. i)) && \valid(truth + (0 .. i)) && \valid(why);
  @ assigns v[i], truth[i], *why, ew_ext_state;
  @ ensures \result == 0 || \result == -1;
  @*/
static int eval_node(const ew_prog *p, const ew_model *m, const tp_ival32 *in, tp_ival32 *v, int *truth, int i,
                     const char **why)
{
    const ew_node *nd = &p->node[i];
    /*@ assert node: ew_node_ok(p, i); */
    static const tp_ival32 none = {0.0f, 0.0f};
    const ew_kind kind = nd->kind;
    const int ia = nd->a, ib = nd->b, ic = nd->c;
    /*@ assert ops: -1 <= ia < i && -1 <= ib < i && -1 <= ic < i; */
    const tp_ival32 a = ia >= 0 ? v[ia] : none, b = ib >= 0 ? v[ib] : none;
    switch (kind) {
    case EW_INPUT: {
        const int k = nd->input;
        /*@ assert input: 0 <= k < EW_MAX_INPUTS; */
        v[i] = in[k];
        return 0;
    }
    case EW_CONST: v[i].lo = v[i].hi = nd->value; return 0;
    case EW_NEG: v[i] = neg(a); return 0;
    case EW_ADD:
    case EW_SUB: return eval_addsub(p, m, v, i, why);
    case EW_MUL: return eval_mul(p, v, i, why);
    case EW_DIV: return eval_div(p, v, i, why);
    case EW_FMA: return eval_fma(p, v, i, why);
    case EW_MIN: v[i].lo = fminf(a.lo, b.lo), v[i].hi = fminf(a.hi, b.hi); return 0;
    case EW_MAX: v[i].lo = fmaxf(a.lo, b.lo), v[i].hi = fmaxf(a.hi, b.hi); return 0;
    case EW_LT:
    case EW_LE:
    case EW_GT:
    case EW_GE:
    case EW_EQ:
    case EW_NE:
        truth[i] = compare(kind, a, b);
        v[i] = a; /* unused */
        return 0;
    case EW_SELECT: {
        /*@ assert select: 0 <= ia < i && 0 <= ib < i && 0 <= ic < i; */
        const int c = truth[ia];
        v[i] = c == 1 ? v[ib] : c == 0 ? v[ic] : hull(v[ib], v[ic]);
        return 0;
    }
    case EW_RN16: /* the proven binary16 ends (oracles/common/round_ends.h) */
        if (!finite(a)) {
            *why = "a binary16 rounding of a value that may overflow binary32";
            return -1;
        }
        return ew_rn16_ends(a, &v[i], why) != 0 ? -1 : 0;
    default: break; /* a device function: below, outside the switch, where WP
                     * frames the call's result (inside, one `assigns` goal
                     * on it did not prove) */
    }
    return eval_fn(p, m, v, i, why);
}

int ew_eval_values(const ew_prog *p, const ew_model *m, const tp_ival32 *in, int upto, const unsigned char *only,
                   const unsigned char *skip, const signed char *tab_of, const struct ew_tabs *t, const uint16_t *bits,
                   tp_ival32 *v, int *node, const char **why)
{
    /* *node and *why are written once, on the way out, as the loop would
     * have left them (the last node evaluated, its reason): locals in the
     * loop keep WP's frame of p simple. */
    int truth[EW_MAX_NODES];
    int last = -1, tnode = -1;
    const char *w = "";
    /*@ loop invariant 0 <= i <= upto + 1;
      @ loop invariant -1 <= last < i;
      @ loop assigns i, last, tnode, w, v[0 .. upto], truth[0 .. upto], ew_ext_state;
      @ loop variant upto - i;
      @*/
    for (int i = 0; i <= upto; i++) {
        if ((only && !only[i]) || (skip && skip[i]))
            continue;
        if (tab_of && tab_of[i] >= 0) { /* a tabulated subtree: its value at this input's pattern */
            if (ew_tab_value(t, tab_of[i], bits, &v[i], &tnode, &w) != 0) {
                *node = tnode;
                *why = w;
                return -1;
            }
            continue;
        }
        last = i;
        w = "";
        if (eval_node(p, m, in, v, truth, i, &w) != 0) {
            *node = i;
            *why = w;
            return -1;
        }
    }
    if (last >= 0) {
        *node = last;
        *why = w;
    }
    if (!finite(v[upto]) && upto == p->n - 1) {
        *node = p->n - 1;
        *why = "the result may overflow binary32";
        return -1;
    }
    return 0;
}
