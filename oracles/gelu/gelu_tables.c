#include "oracles/gelu/gelu_tables.h"
#include "oracles/gelu/gelu_fwd_tables.h" /* tp_gelu_tanhf_abs_set */

#include "core/tp_format.h"
#include "oracles/common/vendor_ulp.h"
#include "oracles/common/ival_guard.h"
#include "oracles/common/proven/tp_ival_mul.h"

#include <math.h>
#include <mpfi.h>
#include <stdint.h>

tp_gelu_model tp_gelu_model_pilot(int tanh_ulp, int fma_any)
{
    tp_gelu_model m = {0.7978845608f, 0.044715f, 0.134145f, tanh_ulp, fma_any, 0};
    return m;
}

/* ---------------------------------------------------------------------
 * Exact factor.
 *
 * With y = |x|, Z = c (y + a y^3) >= 0, u = e^{-2Z}, w = 1/(1+u), and
 * d = c (1 + 3a y^2):  tanh Z = (1-u) w,  1 - tanh^2 Z = 4 u w^2, so
 *   x >= 0:  f = w + 2 y u w^2 d
 *   x <  0:  f = u w (1 - 2 y w d)          (1 + t = 1 - tanh Z = 2 u w)
 * Nothing cancels except the genuine zero of f for x < 0, where a retry
 * at higher precision restores the relative width. u underflows for
 * |x| beyond ~10 unless the exponent range is widened, which the callers
 * do: then f keeps its sign and relative accuracy all the way to 65504.
 * ------------------------------------------------------------------- */

#define EXACT_PREC0 64
#define EXACT_PREC_MAX 4096
#define EXACT_BITS 42
/* Accept an enclosure once it is this narrow before the outward rounding
 * to EXACT_BITS, which then dominates the final width (~2^-41 per end). */
#define EXACT_REL_WIDTH 0x1p-56

typedef struct {
    mpfi_t y, s, z, u, w, d, r;
    mpfr_t diam;
} exact_ws;

/* This MPFI has no mpfi_inits2/mpfi_clears: walk the fields instead. */
#define EXACT_WS_FIELDS(ws) {ws->y, ws->s, ws->z, ws->u, ws->w, ws->d, ws->r}
#define EXACT_WS_NFIELDS 7

static void exact_ws_init(exact_ws *ws, mpfr_prec_t prec)
{
    mpfi_ptr f[EXACT_WS_NFIELDS] = EXACT_WS_FIELDS(ws);
    for (int i = 0; i < EXACT_WS_NFIELDS; i++)
        mpfi_init2(f[i], prec);
    mpfr_init2(ws->diam, 32);
}

static void exact_ws_set_prec(exact_ws *ws, mpfr_prec_t prec)
{
    mpfi_ptr f[EXACT_WS_NFIELDS] = EXACT_WS_FIELDS(ws);
    for (int i = 0; i < EXACT_WS_NFIELDS; i++)
        mpfi_set_prec(f[i], prec);
}

static void exact_ws_clear(exact_ws *ws)
{
    mpfi_ptr f[EXACT_WS_NFIELDS] = EXACT_WS_FIELDS(ws);
    for (int i = 0; i < EXACT_WS_NFIELDS; i++)
        mpfi_clear(f[i]);
    mpfr_clear(ws->diam);
}

/* Enclosure of f(x) into ws->r at the workspace's precision. */
static void exact_eval(exact_ws *ws, float x, float c, float a)
{
    mpfi_set_d(ws->y, fabs((double)x)); /* exact: prec >= 24 */
    mpfi_sqr(ws->s, ws->y);
    mpfi_mul(ws->z, ws->s, ws->y);
    mpfi_mul_d(ws->z, ws->z, a);
    mpfi_add(ws->z, ws->z, ws->y);
    mpfi_mul_d(ws->z, ws->z, c);

    mpfi_mul_si(ws->u, ws->z, -2);
    mpfi_exp(ws->u, ws->u);
    mpfi_add_ui(ws->w, ws->u, 1);
    mpfi_ui_div(ws->w, 1, ws->w);

    mpfi_mul_d(ws->d, ws->s, a);
    mpfi_mul_ui(ws->d, ws->d, 3);
    mpfi_add_ui(ws->d, ws->d, 1);
    mpfi_mul_d(ws->d, ws->d, c);

    /* r = 2 y w d, common to both signs */
    mpfi_mul(ws->r, ws->d, ws->y);
    mpfi_mul(ws->r, ws->r, ws->w);
    mpfi_mul_2ui(ws->r, ws->r, 1);
    if (signbit(x)) {
        mpfi_ui_sub(ws->r, 1, ws->r);
        mpfi_mul(ws->r, ws->r, ws->u);
        mpfi_mul(ws->r, ws->r, ws->w);
    } else {
        mpfi_mul(ws->r, ws->r, ws->u);
        mpfi_mul(ws->r, ws->r, ws->w);
        mpfi_add(ws->r, ws->r, ws->w);
    }
}

static int exact_narrow_enough(exact_ws *ws)
{
    if (mpfi_is_zero(ws->r)) /* [0, 0] is exact; diam_rel would divide by 0 */
        return 1;
    mpfi_diam_rel(ws->diam, ws->r);
    return mpfr_cmp_d(ws->diam, EXACT_REL_WIDTH) <= 0;
}

/* Outward rounding to `bits` significant bits, then to double (exact for
 * bits <= 53 unless the value lies below the normal double range, where
 * the second rounding is outward too). */
static tp_interval exact_round_out(mpfi_srcptr v, mpfr_prec_t bits)
{
    mpfr_t e;
    tp_interval r;
    mpfr_init2(e, bits);
    mpfi_get_left(e, v);
    r.lo = mpfr_get_d(e, MPFR_RNDD);
    mpfi_get_right(e, v);
    r.hi = mpfr_get_d(e, MPFR_RNDU);
    mpfr_clear(e);
    return r;
}

tp_mpfr_exp_range tp_mpfr_exp_range_widen(void)
{
    tp_mpfr_exp_range old = {mpfr_get_emin(), mpfr_get_emax()};
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    return old;
}

void tp_mpfr_exp_range_restore(tp_mpfr_exp_range old)
{
    mpfr_set_emin(old.emin);
    mpfr_set_emax(old.emax);
}

static const tp_interval NAN_INTERVAL = {NAN, NAN};

/* One table entry: retries at doubled precision until narrow enough. */
static tp_interval exact_entry(exact_ws *ws, float x, const tp_gelu_model *m)
{
    mpfr_prec_t prec = EXACT_PREC0;
    for (;;) {
        exact_eval(ws, x, m->c, m->a);
        if (exact_narrow_enough(ws) || prec >= EXACT_PREC_MAX)
            break;
        prec *= 2;
        exact_ws_set_prec(ws, prec);
    }
    tp_interval r = exact_round_out(ws->r, EXACT_BITS);
    if (prec != EXACT_PREC0)
        exact_ws_set_prec(ws, EXACT_PREC0);
    return r;
}

int tp_gelu_factor_mpfr(float x, const tp_gelu_model *m, mpfr_prec_t prec,
                        tp_interval *out)
{
    if (!m || !out || prec < MPFR_PREC_MIN || prec > MPFR_PREC_MAX)
        return -1;
    if (!isfinite(x)) {
        *out = NAN_INTERVAL;
        return 0;
    }
    tp_mpfr_exp_range old = tp_mpfr_exp_range_widen();
    exact_ws ws;
    exact_ws_init(&ws, prec);
    exact_eval(&ws, x, m->c, m->a);
    *out = exact_round_out(ws.r, 53);
    exact_ws_clear(&ws);
    tp_mpfr_exp_range_restore(old);
    return 0;
}

/* ---------------------------------------------------------------------
 * fp32 model.
 *
 * A set of fp32 values is held as an interval [lo, hi] of floats. RN32 is
 * monotone, so an operation over operand intervals yields
 * [RN32(min), RN32(max)] with min/max the exact extremes over the corners.
 * Products of two fp32 values are exact in double (48 bits, exponents far
 * inside double's range), so product corners are compared in double;
 * sums are formed in MPFR with directed rounding at SUM_PREC bits (exact
 * for exponent spans below ~80 bits, a sound one-sided bound otherwise)
 * and rounded to fp32 by mpfr_get_flt, never by the host's float mode.
 * ------------------------------------------------------------------- */

#define SUM_PREC 128
#define TANH_PREC 64

typedef struct { float lo, hi; } fset;

typedef struct {
    mpfr_t lo, hi, t;    /* SUM_PREC bits */
    mpfr_t tlo, thi;     /* TANH_PREC bits */
    int nan; /* set once any operation admits a NaN */
} f32_ws;

static fset fset_point(float v)
{
    fset s = {v, v};
    return s;
}

static fset fset_hull(fset a, fset b)
{
    fset s = {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    return s;
}

static float rn32_d(f32_ws *ws, double v)
{
    mpfr_set_d(ws->t, v, MPFR_RNDN); /* exact */
    return mpfr_get_flt(ws->t, MPFR_RNDN);
}

/* Exact extremes of p*q over the corners. */
static void prod_range(f32_ws *ws, fset p, fset q, double *mn, double *mx)
{
    double c[4] = {(double)p.lo * q.lo, (double)p.lo * q.hi,
                   (double)p.hi * q.lo, (double)p.hi * q.hi};
    *mn = *mx = c[0];
    for (int i = 0; i < 4; i++) {
        if (isnan(c[i]))
            ws->nan = 1;
        if (c[i] < *mn)
            *mn = c[i];
        if (c[i] > *mx)
            *mx = c[i];
    }
}

/* The proven interval primitives (oracles/common/proven/tp_ival_mul.c,
 * tp_ival_fma.c, T3) where oracles/common/ival_guard.h finds their
 * requires hold (finite ends, products and sums within range,
 * round-to-nearest); the MPFR evaluation below elsewhere. */
static fset rn_mul(f32_ws *ws, fset p, fset q)
{
    const tp_ival32 a = {p.lo, p.hi}, b = {q.lo, q.hi};
    if (tp_ival32_mul_ok(a, b)) {
        const tp_ival32 v = tp_ival32_mul(a, b);
        const fset s = {v.lo, v.hi};
        return s;
    }
    double mn, mx;
    prod_range(ws, p, q, &mn, &mx);
    fset s = {rn32_d(ws, mn), rn32_d(ws, mx)};
    return s;
}

/* RN32 of the exact r + sign*p*q over the box: the fused form, and also
 * (with p*q a point already rounded) the plain sum. */
static fset rn_fma(f32_ws *ws, fset p, fset q, fset r, int sign)
{
    /* sign*p as an interval: negation is exact */
    const tp_ival32 a = {sign < 0 ? -p.hi : p.lo, sign < 0 ? -p.lo : p.hi}, b = {q.lo, q.hi}, c = {r.lo, r.hi};
    if (tp_ival32_fma_ok(a, b, c)) {
        const tp_ival32 v = tp_ival32_fma(a, b, c);
        const fset s = {v.lo, v.hi};
        return s;
    }
    double mn, mx;
    prod_range(ws, p, q, &mn, &mx);
    if (sign < 0) {
        double t = -mx;
        mx = -mn;
        mn = t;
    }
    mpfr_set_d(ws->lo, mn, MPFR_RNDN);
    mpfr_set_d(ws->hi, mx, MPFR_RNDN);
    mpfr_set_flt(ws->t, r.lo, MPFR_RNDN);
    mpfr_add(ws->lo, ws->lo, ws->t, MPFR_RNDD);
    mpfr_set_flt(ws->t, r.hi, MPFR_RNDN);
    mpfr_add(ws->hi, ws->hi, ws->t, MPFR_RNDU);
    if (mpfr_nan_p(ws->lo) || mpfr_nan_p(ws->hi))
        ws->nan = 1;
    fset s = {mpfr_get_flt(ws->lo, MPFR_RNDN), mpfr_get_flt(ws->hi, MPFR_RNDN)};
    return s;
}

static fset rn_add(f32_ws *ws, fset a, fset b)
{
    return rn_fma(ws, fset_point(1.0f), b, a, 1);
}

/* r + sign*p*q as the kernel may evaluate it: the product rounded first,
 * or (when the compiler may contract) fused into one rounding. */
static fset muladd(f32_ws *ws, fset p, fset q, fset r, int sign, int fma_any)
{
    fset pq = rn_mul(ws, p, q);
    fset split = rn_fma(ws, fset_point(1.0f), pq, r, sign);
    return fma_any ? fset_hull(split, rn_fma(ws, p, q, r, sign)) : split;
}

/* Bracket of RN32(tanh(z)): a TANH_PREC-bit evaluation brackets tanh(z)
 * within one of its ulps; RN32 of each bracket end bounds RN32(tanh z)
 * (they agree except in vanishingly rare near-ties). */
static void rn32_tanh_bracket(f32_ws *ws, float z, float *lo, float *hi)
{
    mpfr_set_flt(ws->t, z, MPFR_RNDN);
    int inex = mpfr_tanh(ws->tlo, ws->t, MPFR_RNDN);
    mpfr_set(ws->thi, ws->tlo, MPFR_RNDN);
    if (inex) {
        mpfr_nextbelow(ws->tlo);
        mpfr_nextabove(ws->thi);
    }
    *lo = mpfr_get_flt(ws->tlo, MPFR_RNDN);
    *hi = mpfr_get_flt(ws->thi, MPFR_RNDN);
}

/* tanh is increasing: the extremes come from the ends of z. */
static fset model_tanhf(f32_ws *ws, fset z, int ulp, double abs)
{
    float lo, hi, unused;
    if (abs > 0) { /* a HIP figure: every binary32 within abs of tanh */
        tp_gelu_tanhf_abs_set(z.lo, abs, &lo, &unused);
        tp_gelu_tanhf_abs_set(z.hi, abs, &unused, &hi);
        fset s = {lo, hi};
        return s;
    }
    rn32_tanh_bracket(ws, z.lo, &lo, &hi);
    if (z.hi != z.lo)
        rn32_tanh_bracket(ws, z.hi, &unused, &hi);
    fset s = {tp_vendor_lower(lo, hi, ulp), tp_vendor_upper(lo, hi, ulp)}; /* oracles/common/vendor_ulp.h */
    return s;
}

/* The kernel's f for one x, statement by statement. */
static tp_interval model_entry(f32_ws *ws, float xf, const tp_gelu_model *m)
{
    const int fa = m->fma_any;
    const fset x = fset_point(xf), one = fset_point(1.0f), half = fset_point(0.5f);
    ws->nan = 0;

    fset x2 = rn_mul(ws, x, x);
    fset x3 = rn_mul(ws, x2, x);
    fset inner = rn_mul(ws, fset_point(m->c),
                        muladd(ws, fset_point(m->a), x3, x, 1, fa));
    fset t = model_tanhf(ws, inner, m->tanh_ulp, m->tanh_abs);
    fset dinner = rn_mul(ws, fset_point(m->c),
                         muladd(ws, fset_point(m->k3a), x2, one, 1, fa));
    fset one_minus_t2 = muladd(ws, t, t, one, -1, fa);
    fset one_plus_t = rn_add(ws, one, t);
    fset left = rn_mul(ws, half, one_plus_t);
    fset right = rn_mul(ws, rn_mul(ws, half, x), one_minus_t2);

    /* left + right*dinner: unfused, right*dinner fused, or 0.5*(1+t) fused */
    fset f = muladd(ws, right, dinner, left, 1, fa);
    if (fa)
        f = fset_hull(f, rn_fma(ws, half, one_plus_t, rn_mul(ws, right, dinner), 1));

    if (ws->nan || isnan(f.lo) || isnan(f.hi))
        return NAN_INTERVAL;
    tp_interval r = {f.lo, f.hi};
    return r;
}

/* ------------------------------------------------------------------- */

static int model_valid(const tp_gelu_model *m)
{
    return m && m->tanh_ulp >= 0 && m->tanh_abs >= 0 && m->tanh_abs < 1 && isfinite(m->c) && isfinite(m->a) &&
           isfinite(m->k3a);
}

int tp_gelu_tables_build(const tp_gelu_model *m, tp_interval *exact_f,
                         tp_interval *model_f)
{
    if (!model_valid(m))
        return -1;
    tp_mpfr_exp_range old = tp_mpfr_exp_range_widen();
    exact_ws ew;
    f32_ws fw;
    exact_ws_init(&ew, EXACT_PREC0);
    mpfr_inits2(SUM_PREC, fw.lo, fw.hi, fw.t, (mpfr_ptr)0);
    mpfr_inits2(TANH_PREC, fw.tlo, fw.thi, (mpfr_ptr)0);

    for (uint32_t h = 0; h < TP_GELU_TABLE_SIZE; h++) {
        double xd = tp_binary16.decode(h); /* the tables are indexed by binary16 input patterns */
        int finite = isfinite(xd);
        float x = (float)xd; /* exact: binary16 is a subset of binary32 */
        if (exact_f)
            exact_f[h] = finite ? exact_entry(&ew, x, m) : NAN_INTERVAL;
        if (model_f)
            model_f[h] = finite ? model_entry(&fw, x, m) : NAN_INTERVAL;
    }

    mpfr_clears(fw.lo, fw.hi, fw.t, fw.tlo, fw.thi, (mpfr_ptr)0);
    exact_ws_clear(&ew);
    tp_mpfr_exp_range_restore(old);
    return 0;
}
