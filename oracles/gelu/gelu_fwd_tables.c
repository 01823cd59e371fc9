#include "oracles/gelu/gelu_fwd_tables.h"
#include "oracles/gelu/gelu_tables.h"

#include "core/tp_format.h"
#include "oracles/common/vendor_ulp.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <mpfi.h>
#include <stdint.h>

/* The binary32 model below relies on the host's float operations and
 * glibc's fmaf being IEEE binary32 operations rounded to nearest even:
 * true on x86-64 (SSE, FLT_EVAL_METHOD 0, no flush to zero without
 * fast-math), checked here and in the round mode at run time. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "gelu_fwd_tables.c needs float arithmetic evaluated in binary32 (FLT_EVAL_METHOD 0)"
#endif

static const tp_interval NAN_INTERVAL = {NAN, NAN};

tp_gelu_fwd_model tp_gelu_fwd_model_pilot(int tanh_ulp, int fma_any)
{
    tp_gelu_fwd_model m = {0.7978845608f, 0.044715f, tanh_ulp, fma_any, 0};
    return m;
}


/* ---------------------------------------------------------------------
 * Exact value: y = x / (1 + e^{-2z}). For x >= 0, e^{-2z} <= 1; for x < 0
 * it is large and y tiny, but every operation is a product, quotient or a
 * sum of positive terms, so the relative width stays near 2^-78.
 * ------------------------------------------------------------------- */

#define EXACT_PREC 80

typedef struct { mpfi_t x, z, u; } exact_ws;

static void exact_entry(exact_ws *ws, float x, float c, float a, tp_interval *out)
{
    mpfi_set_d(ws->x, (double)x); /* exact */
    mpfi_sqr(ws->z, ws->x);
    mpfi_mul(ws->z, ws->z, ws->x);
    mpfi_mul_d(ws->z, ws->z, (double)a);
    mpfi_add(ws->z, ws->z, ws->x);
    mpfi_mul_d(ws->z, ws->z, (double)c);
    mpfi_mul_si(ws->u, ws->z, -2);
    mpfi_exp(ws->u, ws->u);
    mpfi_add_ui(ws->u, ws->u, 1);
    mpfi_div(ws->u, ws->x, ws->u);
    mpfr_t e;
    mpfr_init2(e, EXACT_PREC);
    mpfi_get_left(e, ws->u);
    out->lo = mpfr_get_d(e, MPFR_RNDD);
    mpfi_get_right(e, ws->u);
    out->hi = mpfr_get_d(e, MPFR_RNDU);
    mpfr_clear(e);
}

/* ---------------------------------------------------------------------
 * fp32 model, by enumeration.
 * ------------------------------------------------------------------- */

float tp_gelu_fwd_rn32_tanh(float z)
{
    /* 24-bit MPFR with binary32's exponent range and subnormals is
     * binary32: mpfr_tanh rounds correctly into it. */
    tp_mpfr_exp_range old = {mpfr_get_emin(), mpfr_get_emax()};
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    mpfr_t t, r;
    mpfr_init2(t, 24);
    mpfr_init2(r, 24);
    mpfr_set_flt(t, z, MPFR_RNDN); /* exact */
    int inex = mpfr_tanh(r, t, MPFR_RNDN);
    inex = mpfr_check_range(r, inex, MPFR_RNDN);
    mpfr_subnormalize(r, inex, MPFR_RNDN);
    float v = mpfr_get_flt(r, MPFR_RNDN); /* exact */
    mpfr_clear(t);
    mpfr_clear(r);
    tp_mpfr_exp_range_restore(old);
    return v;
}

void tp_gelu_tanh_args(float x, float c, float a, int fma_any, float *zlo, float *zhi)
{
    const float x2 = x * x, x3 = x2 * x;
    float z0 = c * (x + a * x3), z1 = c * fmaf(a, x3, x);
    if (!fma_any)
        z1 = z0;
    *zlo = z0 < z1 ? z0 : z1;
    *zhi = z0 < z1 ? z1 : z0;
}

void tp_gelu_tanhf_abs_set(float z, double abs, float *lo, float *hi)
{
    tp_mpfr_exp_range old = tp_mpfr_exp_range_widen();
    mpfr_t t, l, h;
    mpfr_inits2(80, t, l, h, (mpfr_ptr)0);
    mpfr_set_flt(t, z, MPFR_RNDN); /* exact */
    mpfr_tanh(l, t, MPFR_RNDD);
    mpfr_tanh(h, t, MPFR_RNDU);
    mpfr_sub_d(l, l, abs, MPFR_RNDD); /* l <= tanh(z) - abs */
    mpfr_add_d(h, h, abs, MPFR_RNDU); /* h >= tanh(z) + abs */
    /* the least binary32 >= l and the greatest <= h: every binary32 within
     * abs of tanh(z) lies between them */
    *lo = mpfr_get_flt(l, MPFR_RNDU);
    *hi = mpfr_get_flt(h, MPFR_RNDD);
    mpfr_clears(t, l, h, (mpfr_ptr)0);
    tp_mpfr_exp_range_restore(old);
}

/* The kernel's y for one x, every admitted evaluation. */
static tp_interval model_entry(float x, const tp_gelu_fwd_model *m)
{
    const float x2 = x * x, x3 = x2 * x, hx = 0.5f * x;
    const float ax3 = m->a * x3;
    float s[2] = {x + ax3, fmaf(m->a, x3, x)};
    int ns = m->fma_any ? 2 : 1;
    float lo = INFINITY, hi = -INFINITY;
    for (int f = 0; f < ns; f++) {
        float z = m->c * s[f];
        if (m->tanh_abs > 0) { /* y is monotone in t: the set's ends bound it */
            float tl, th;
            tp_gelu_tanhf_abs_set(z, m->tanh_abs, &tl, &th);
            float ya = hx * (1.0f + tl), yb = hx * (1.0f + th);
            if (isnan(ya) || isnan(yb))
                return NAN_INTERVAL;
            lo = fminf(lo, fminf(ya, yb));
            hi = fmaxf(hi, fmaxf(ya, yb));
            continue;
        }
        float t0 = tp_gelu_fwd_rn32_tanh(z);
        /* every tanhf within its ulps of t0 (oracles/common/vendor_ulp.h) */
        const float t_last = tp_vendor_upper(t0, t0, m->tanh_ulp);
        for (float t = tp_vendor_lower(t0, t0, m->tanh_ulp); t <= t_last; t = nextafterf(t, INFINITY)) {
            float y = hx * (1.0f + t);
            if (isnan(y))
                return NAN_INTERVAL;
            lo = y < lo ? y : lo;
            hi = y > hi ? y : hi;
        }
    }
    tp_interval r = {lo, hi};
    return r;
}

/* ------------------------------------------------------------------- */

int tp_gelu_fwd_tables_build(const tp_gelu_fwd_model *m, tp_interval *exact_y, tp_interval *model_y)
{
    if (!m || m->tanh_ulp < 0 || m->tanh_ulp > 1000 || !isfinite(m->c) || !isfinite(m->a) ||
        !(m->tanh_abs >= 0 && m->tanh_abs < 1))
        return -1;
    int saved = fegetround();
    fesetround(FE_TONEAREST);
    tp_mpfr_exp_range old = tp_mpfr_exp_range_widen();
    exact_ws ws;
    mpfi_init2(ws.x, EXACT_PREC);
    mpfi_init2(ws.z, EXACT_PREC);
    mpfi_init2(ws.u, EXACT_PREC);
    for (uint32_t h = 0; h < TP_GELU_FWD_TABLE_SIZE; h++) {
        double xd = tp_binary16.decode(h); /* the tables are indexed by binary16 input patterns */
        int finite = isfinite(xd);
        float x = (float)xd; /* exact: binary16 is a subset of binary32 */
        if (exact_y) {
            if (finite)
                exact_entry(&ws, x, m->c, m->a, &exact_y[h]);
            else
                exact_y[h] = NAN_INTERVAL;
        }
        if (model_y)
            model_y[h] = finite ? model_entry(x, m) : NAN_INTERVAL;
    }
    mpfi_clear(ws.x);
    mpfi_clear(ws.z);
    mpfi_clear(ws.u);
    tp_mpfr_exp_range_restore(old);
    fesetround(saved);
    return 0;
}
