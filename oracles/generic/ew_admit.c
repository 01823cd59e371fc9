#include "oracles/generic/ew_admit.h"

#include "oracles/common/proven/tp_ival_div.h"
#include "oracles/common/proven/tp_ival_fma.h"
#include "oracles/common/proven/tp_ival_mul.h"
#include "oracles/common/proven/tp_ival_sqrt.h"
#include "oracles/common/round_ends.h"
#include "oracles/common/vendor_ulp.h"

#include <float.h>
#include <math.h>
#include <mpfi.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>

/* The primitives' `in_range` requires, checked in double with a margin: a
 * double within 0x1.fffffcp127 (FLT_MAX less half its ulp) is the rounding
 * of a real below FLT_MAX even after one double rounding (relative error
 * 2^-53), and corner products and sums of binary32 values are that. */
static int fits(double d) { return fabs(d) <= 0x1.fffffcp127; }

static tp_ival32 neg(tp_ival32 a)
{
    const tp_ival32 r = {-a.hi, -a.lo};
    return r;
}

static tp_ival32 hull(tp_ival32 a, tp_ival32 b)
{
    const tp_ival32 r = {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    return r;
}

static int fma_fits(tp_ival32 a, tp_ival32 b, tp_ival32 c)
{
    const double p[4] = {(double)a.lo * b.lo, (double)a.lo * b.hi, (double)a.hi * b.lo, (double)a.hi * b.hi};
    for (int k = 0; k < 4; k++)
        if (!fits(p[k] + c.lo) || !fits(p[k] + c.hi))
            return 0;
    return 1;
}

static int mul_fits(tp_ival32 a, tp_ival32 b)
{
    return fits((double)a.lo * b.lo) && fits((double)a.lo * b.hi) && fits((double)a.hi * b.lo) &&
           fits((double)a.hi * b.hi);
}

/* RN32 of device function k at x, remembered per thread: a rotary
 * embedding meets each angle once per head and element of its pair. A
 * pure function of (k, x), so a remembered value is the value computed
 * again. */
enum { RN32_MEMO_BITS = 12 };
static _Thread_local struct {
    uint32_t x;
    int k; /* k + 1: 0 marks an empty slot */
    float v;
} rn32_memo[1 << RN32_MEMO_BITS];

static float fn_rn32(int k, float x);

float ew_fn_rn32(int k, float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t h = ((bits ^ (uint32_t)k * 0x85ebca6bu) * 0x9e3779b1u) >> (32 - RN32_MEMO_BITS);
    if (rn32_memo[h].k == k + 1 && rn32_memo[h].x == bits)
        return rn32_memo[h].v;
    const float v = fn_rn32(k, x);
    rn32_memo[h].x = bits, rn32_memo[h].k = k + 1, rn32_memo[h].v = v;
    return v;
}

static float fn_rn32(int k, float x)
{
    const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    mpfr_t t, r;
    mpfr_init2(t, 24);
    mpfr_init2(r, 24);
    mpfr_set_flt(t, x, MPFR_RNDN); /* exact */
    int inex = 0;
    switch (EW_FIRST_FN + k) {
    case EW_SQRT: inex = mpfr_sqrt(r, t, MPFR_RNDN); break;
    case EW_RSQRT: inex = mpfr_rec_sqrt(r, t, MPFR_RNDN); break;
    case EW_EXP: inex = mpfr_exp(r, t, MPFR_RNDN); break;
    case EW_LOG: inex = mpfr_log(r, t, MPFR_RNDN); break;
    case EW_TANH: inex = mpfr_tanh(r, t, MPFR_RNDN); break;
    case EW_ERF: inex = mpfr_erf(r, t, MPFR_RNDN); break;
    case EW_SIN: inex = mpfr_sin(r, t, MPFR_RNDN); break;
    case EW_COS: inex = mpfr_cos(r, t, MPFR_RNDN); break;
    default: mpfr_set_nan(r); break;
    }
    inex = mpfr_check_range(r, inex, MPFR_RNDN);
    mpfr_subnormalize(r, inex, MPFR_RNDN);
    const float v = mpfr_get_flt(r, MPFR_RNDN); /* exact: r is a binary32 value */
    mpfr_clear(t);
    mpfr_clear(r);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return v;
}

/* sinf and cosf are not monotone: over an interval of arguments, the
 * ends of an MPFI enclosure of the function's range, rounded outward to
 * binary32, hold every RN32 of a value in it (RN32 is monotone). */
static void trig_range(ew_kind kind, tp_ival32 a, float *lo, float *hi)
{
    mpfi_t t;
    mpfi_init2(t, 64);
    mpfi_interv_d(t, a.lo, a.hi); /* exact: binary32 ends */
    if (kind == EW_SIN)
        mpfi_sin(t, t);
    else
        mpfi_cos(t, t);
    *lo = mpfr_get_flt(&t->left, MPFR_RNDD);
    *hi = mpfr_get_flt(&t->right, MPFR_RNDU);
    mpfi_clear(t);
}

/* A device function on an interval: the correctly rounded ends (the
 * functions other than sinf and cosf are monotone on their domains:
 * rsqrtf decreasing, the others increasing), widened by k vendor ulps, or
 * exactly those ends (k = 0). */
static int device_fn(int k, int ulp, tp_ival32 a, tp_ival32 *r, const char **why)
{
    const ew_kind kind = (ew_kind)(EW_FIRST_FN + k);
    if (!isfinite(a.lo) || !isfinite(a.hi)) {
        *why = "a device function of a value that may overflow binary32";
        return -1;
    }
    if ((kind == EW_SQRT && a.lo < 0.0f) || ((kind == EW_LOG || kind == EW_RSQRT) && !(a.lo > 0.0f))) {
        *why = kind == EW_SQRT ? "sqrtf of an interval reaching below 0" : "the argument interval reaches 0 or below";
        return -1;
    }
    if (kind == EW_SQRT && ulp == 0) {
        *r = tp_ival32_sqrt(a);
        return 0;
    }
    float lo, hi;
    if ((kind == EW_SIN || kind == EW_COS) && a.lo != a.hi)
        trig_range(kind, a, &lo, &hi);
    else
        lo = ew_fn_rn32(k, a.lo), hi = a.hi == a.lo ? lo : ew_fn_rn32(k, a.hi);
    if (kind == EW_RSQRT) {
        const float t = lo;
        lo = hi, hi = t;
    }
    /* An end that rounds to +inf (expf overflowing): the device may return
     * inf or a value within its ulps below the largest finite one, so the
     * lower end widens from FLT_MAX and the upper end stays +inf (sums and
     * divisors below handle it); any other non-finite end is not bounded. */
    const float clo = lo == INFINITY ? FLT_MAX : lo, chi = hi == INFINITY ? FLT_MAX : hi;
    const float wlo = tp_vendor_lower(clo, chi, ulp), whi = hi == INFINITY ? hi : tp_vendor_upper(clo, chi, ulp);
    if (!isfinite(wlo) || isnan(whi) || whi == -INFINITY) {
        *why = "the device function's result may overflow binary32";
        return -1;
    }
    r->lo = wlo, r->hi = whi;
    return 0;
}

/* With fma = "any", the fused alternatives of the sum or difference of
 * nodes a and b (sub: a - b): a product operand x*y fuses with the other
 * operand into fmaf(x, y, other) or fmaf(-x, y, other). */
static int fused(const ew_prog *p, const tp_ival32 *v, int sub, int a, int b, tp_ival32 *acc, const char **why)
{
    for (int side = 0; side < 2; side++) {
        const int m = side ? b : a, o = side ? a : b;
        if (p->node[m].kind != EW_MUL)
            continue;
        tp_ival32 x = v[p->node[m].a], y = v[p->node[m].b], z = v[o];
        if (sub && side == 0)
            z = neg(z); /* x*y - z */
        if (sub && side == 1)
            x = neg(x); /* z - x*y = fmaf(-x, y, z) */
        if (!fma_fits(x, y, z)) {
            *why = "a fused x*y + z may overflow binary32";
            return -1;
        }
        *acc = hull(*acc, tp_ival32_fma(x, y, z));
    }
    return 0;
}

/* Three-valued comparison on intervals: 1 holds for every pair, 0 for none,
 * 2 undecided. */
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

static int finite(tp_ival32 a) { return isfinite(a.lo) && isfinite(a.hi); }

/* The one place an operand may be unbounded above ([lo, +inf], from an
 * overflowing expf): a sum or difference with a finite operand, or a
 * divisor. RN is monotone and x + inf = inf, x / inf = +-0, so
 *   [l, +inf] + b = [RN(l + b.lo), +inf],   a - [l, +inf] = [-inf, ...]
 *   (not bounded), a / [l, +inf] (l > 0) = hull(a / [l, FLT_MAX], 0).
 * Returns 1 when it handled node kind k, 0 when the operands are finite,
 * -1 when they are not and nothing here bounds the result. */
static int unbounded(ew_kind k, tp_ival32 a, tp_ival32 b, tp_ival32 *r, const char **why)
{
    if (finite(a) && finite(b))
        return 0;
    *why = "an intermediate may overflow binary32";
    if (k == EW_ADD && isfinite(a.lo) && isfinite(b.lo) && (finite(a) || finite(b))) {
        const tp_ival32 x = {a.lo, a.lo}, y = {b.lo, b.lo};
        if (!fits((double)a.lo + b.lo))
            return -1;
        r->lo = tp_ival32_add(x, y).lo;
        r->hi = INFINITY;
        return 1;
    }
    if (k == EW_DIV && finite(a) && b.lo > 0.0f && isfinite(b.lo)) {
        const tp_ival32 y = {b.lo, FLT_MAX};
        const tp_ival32 x = a;
        if (!(fits((double)x.lo / y.lo) && fits((double)x.hi / y.lo)))
            return -1;
        *r = hull(tp_ival32_div(x, y), (tp_ival32){0.0f, 0.0f});
        return 1;
    }
    return -1;
}

int ew_admit_values(const ew_prog *p, const ew_model *m, const tp_ival32 *in, int upto, const unsigned char *only,
                    const ew_tabs *t, const uint16_t *bits, tp_ival32 *v, int *node, const char **why)
{
    int truth[EW_MAX_NODES];
    for (int i = 0; i <= upto; i++) {
        const ew_node *nd = &p->node[i];
        if ((only && !only[i]) || (t && t->skip[i]))
            continue;
        if (t && t->tab_of[i] >= 0) { /* a tabulated subtree: its value at this input's pattern */
            const int k = t->tab_of[i];
            const uint16_t h = bits[t->input[k]];
            if (t->fnode[k][h] >= 0) {
                *node = t->fnode[k][h];
                *why = t->fwhy[k][h];
                return -1;
            }
            v[i] = t->ival[k][h];
            continue;
        }
        static const tp_ival32 none = {0.0f, 0.0f};
        const tp_ival32 a = nd->a >= 0 ? v[nd->a] : none, b = nd->b >= 0 ? v[nd->b] : none;
        *node = i;
        *why = "";
        switch (nd->kind) {
        case EW_INPUT: v[i] = in[nd->input]; break;
        case EW_CONST: v[i].lo = v[i].hi = nd->value; break;
        case EW_NEG: v[i] = neg(a); break;
        case EW_ADD:
        case EW_SUB: {
            const int u = unbounded(nd->kind, a, b, &v[i], why);
            if (u < 0)
                return -1;
            if (u > 0)
                break;
            const int sub = nd->kind == EW_SUB;
            if (sub ? !(fits((double)a.lo - b.hi) && fits((double)a.hi - b.lo))
                    : !(fits((double)a.lo + b.lo) && fits((double)a.hi + b.hi))) {
                *why = "a sum may overflow binary32";
                return -1;
            }
            v[i] = sub ? tp_ival32_sub(a, b) : tp_ival32_add(a, b);
            if (m->fma_any && fused(p, v, sub, nd->a, nd->b, &v[i], why) != 0)
                return -1;
            break;
        }
        case EW_MUL:
            if (unbounded(nd->kind, a, b, &v[i], why) != 0)
                return -1;
            if (!mul_fits(a, b)) {
                *why = "a product may overflow binary32";
                return -1;
            }
            v[i] = tp_ival32_mul(a, b);
            break;
        case EW_DIV: {
            const int u = unbounded(nd->kind, a, b, &v[i], why);
            if (u < 0)
                return -1;
            if (u > 0)
                break;
            if (!(b.lo > 0.0f || b.hi < 0.0f)) {
                *why = "a divisor interval holds 0";
                return -1;
            }
            /* x / y = (-x) / (-y) exactly: a negative divisor becomes positive */
            const tp_ival32 x = b.lo > 0.0f ? a : neg(a), y = b.lo > 0.0f ? b : neg(b);
            if (!(fits((double)x.lo / y.lo) && fits((double)x.lo / y.hi) && fits((double)x.hi / y.lo) &&
                  fits((double)x.hi / y.hi))) {
                *why = "a quotient may overflow binary32";
                return -1;
            }
            v[i] = tp_ival32_div(x, y);
            break;
        }
        case EW_FMA: {
            const tp_ival32 c = v[nd->c];
            if (unbounded(nd->kind, a, b, &v[i], why) != 0 || unbounded(nd->kind, c, c, &v[i], why) != 0)
                return -1;
            if (!fma_fits(a, b, c)) {
                *why = "fmaf may overflow binary32";
                return -1;
            }
            v[i] = tp_ival32_fma(a, b, c);
            break;
        }
        case EW_MIN: v[i].lo = fminf(a.lo, b.lo), v[i].hi = fminf(a.hi, b.hi); break;
        case EW_MAX: v[i].lo = fmaxf(a.lo, b.lo), v[i].hi = fmaxf(a.hi, b.hi); break;
        case EW_LT:
        case EW_LE:
        case EW_GT:
        case EW_GE:
        case EW_EQ:
        case EW_NE:
            truth[i] = compare(nd->kind, a, b);
            v[i] = a; /* unused */
            break;
        case EW_SELECT: {
            const int t = truth[nd->a];
            v[i] = t == 1 ? v[nd->b] : t == 0 ? v[nd->c] : hull(v[nd->b], v[nd->c]);
            break;
        }
        case EW_RN16: { /* the proven binary16 ends (oracles/common/round_ends.h) */
            if (!finite(a)) {
                *why = "a binary16 rounding of a value that may overflow binary32";
                return -1;
            }
            const double lo = tp_round_lower(&tp_binary16, a.lo), hi = tp_round_upper(&tp_binary16, a.hi);
            if (!isfinite(lo) || !isfinite(hi)) {
                *why = "a binary16 rounding that may overflow to infinity";
                return -1;
            }
            v[i].lo = (float)lo, v[i].hi = (float)hi; /* binary16 values: exact */
            break;
        }
        default: {
            const int k = (int)nd->kind - EW_FIRST_FN;
            if (k < 0 || k >= EW_NFNS || m->ulp[k] < 0) {
                *why = "a device function without a declared ulp bound";
                return -1;
            }
            if (device_fn(k, m->ulp[k], a, &v[i], why) != 0)
                return -1;
        }
        }
    }
    if (!finite(v[upto]) && upto == p->n - 1) {
        *node = p->n - 1;
        *why = "the result may overflow binary32";
        return -1;
    }
    return 0;
}

int ew_admit_box(const ew_prog *p, const ew_model *m, const tp_ival32 *in, int upto, const unsigned char *only,
                 const ew_tabs *t, const uint16_t *bits, tp_ival32 *out, int *node, const char **why)
{
    tp_ival32 v[EW_MAX_NODES];
    if (ew_admit_values(p, m, in, upto, only, t, bits, v, node, why) != 0)
        return -1;
    *out = v[upto];
    return 0;
}

int ew_admit_nodes(const ew_prog *p, const ew_model *m, const float *in, int upto, const unsigned char *only,
                   const ew_tabs *t, const uint16_t *bits, tp_ival32 *out, int *node, const char **why)
{
    tp_ival32 box[EW_MAX_INPUTS];
    for (int i = 0; i <= upto; i++)
        if (p->node[i].kind == EW_INPUT)
            box[p->node[i].input].lo = box[p->node[i].input].hi = in[p->node[i].input];
    return ew_admit_box(p, m, box, upto, only, t, bits, out, node, why);
}

int ew_admit(const ew_prog *p, const ew_model *m, const float *in, tp_ival32 *out, int *node, const char **why)
{
    return ew_admit_nodes(p, m, in, p->n - 1, NULL, NULL, NULL, out, node, why);
}
