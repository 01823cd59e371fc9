/* Checks the GELU forward reference for every binary16 x:
 *  - exact_y against an independent 256-bit MPFR evaluation (the naive
 *    form 0.5 x (1 + tanh z) where it does not cancel badly, x >= -8;
 *    x e^{2z} / (1 + e^{2z}) below), and that it is tight;
 *  - model_y against a brute-force emulation of the kernel in C float
 *    arithmetic: both fused/unfused choices times every tanhf result the
 *    ulp bound admits never leave it, and its ends are attained;
 *  - kernels with a wrong constant, or rounding 1 + t to binary16, are
 *    caught by the admitted interval;
 *  - the proven lookup driver and the op through the tp_op interface.
 * Build with -ffp-contract=off: the emulation must round where C says. */
#include "oracles/gelu/proven/gelu_fwd.h"
#include "oracles/gelu/gelu_fwd_tables.h"
#include "tests/model_json.h"
#include "tests/tap.h"
#include "tests/vendor_ulp_ref.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NALL TP_GELU_FWD_TABLE_SIZE
#define MAX_REPORTED 5 /* first faults shown, then counted */

static int is_finite_f16(uint32_t h) { return (h & 0x7c00) != 0x7c00; }
static float f16_float(uint32_t h) { return (float)tp_f16_to_double((uint16_t)h); }
static double rn16(float v) { return tp_f16_to_double(tp_f16_from_float(v)); }

/* ---------------------------------------------------------------- */
/* Exact y at 256 bits, plain MPFR, round to nearest at every step.
 * Relative error below 2^-180 in both branches (for x >= -8, z >= -24.6
 * and 1 + tanh z loses at most 72 bits to cancellation). */
static void independent_y(float xf, const tp_gelu_fwd_model *m, mpfr_t y)
{
    mpfr_t x, z, t;
    mpfr_inits2(256, x, z, t, (mpfr_ptr)0);
    mpfr_set_flt(x, xf, MPFR_RNDN);
    mpfr_pow_ui(z, x, 3, MPFR_RNDN);
    mpfr_mul_d(z, z, (double)m->a, MPFR_RNDN);
    mpfr_add(z, z, x, MPFR_RNDN);
    mpfr_mul_d(z, z, (double)m->c, MPFR_RNDN);
    if (xf >= -8.0f) {
        mpfr_tanh(t, z, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_mul(t, t, x, MPFR_RNDN);
        mpfr_div_2ui(y, t, 1, MPFR_RNDN);
    } else {
        mpfr_mul_2ui(z, z, 1, MPFR_RNDN);
        mpfr_exp(t, z, MPFR_RNDN); /* e^{2z}, tiny */
        mpfr_mul(y, x, t, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_div(y, y, t, MPFR_RNDN);
    }
    mpfr_clears(x, z, t, (mpfr_ptr)0);
}

/* Faults of exact_y: not enclosing the 256-bit value (within its own
 * error), or wider than 2^-50 relative where y is a normal double. */
static int check_exact(const tp_gelu_fwd_model *m, const tp_interval *ex, int *loose)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_t y, lo, hi;
    mpfr_inits2(256, y, lo, hi, (mpfr_ptr)0);
    int bad = 0;
    *loose = 0;
    for (uint32_t h = 0; h < NALL; h++) {
        if (!is_finite_f16(h)) {
            if (!isnan(ex[h].lo) || !isnan(ex[h].hi))
                bad++;
            continue;
        }
        float x = f16_float(h);
        independent_y(x, m, y);
        /* the 256-bit value widened by its error bound must meet the table */
        mpfr_mul_d(lo, y, mpfr_sgn(y) > 0 ? 1.0 - 0x1p-170 : 1.0 + 0x1p-170, MPFR_RNDD);
        mpfr_mul_d(hi, y, mpfr_sgn(y) > 0 ? 1.0 + 0x1p-170 : 1.0 - 0x1p-170, MPFR_RNDU);
        int ok = mpfr_cmp_d(hi, ex[h].lo) >= 0 && mpfr_cmp_d(lo, ex[h].hi) <= 0 && ex[h].lo <= ex[h].hi;
        if (!ok && ++bad <= MAX_REPORTED)
            tap_diag("x = %a: table [%a, %a], 256-bit %a", x, ex[h].lo, ex[h].hi, mpfr_get_d(y, MPFR_RNDN));
        double yd = mpfr_get_d(y, MPFR_RNDN);
        if (fabs(yd) >= 0x1p-1000 && ex[h].hi - ex[h].lo > 0x1p-50 * fabs(yd) && ++*loose <= MAX_REPORTED)
            tap_diag("x = %a: table [%a, %a] wider than 2^-50 relative", x, ex[h].lo, ex[h].hi);
    }
    mpfr_clears(y, lo, hi, (mpfr_ptr)0);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return bad;
}

/* ---------------------------------------------------------------- */
/* The kernel in C float arithmetic. RN32(tanh z) comes from a 256-bit
 * tanh rounded once to binary32 (independent of the table builder's
 * 24-bit evaluation). */
typedef struct {
    float c, a;
    int round_opt_f16; /* planted error: 1 + t rounded to binary16 */
} kernel;

static float rn32_tanh_256(float z)
{
    mpfr_t t;
    mpfr_init2(t, 256);
    mpfr_set_flt(t, z, MPFR_RNDN);
    mpfr_tanh(t, t, MPFR_RNDN);
    float v = mpfr_get_flt(t, MPFR_RNDN);
    mpfr_clear(t);
    return v;
}

/* All outputs (before RN16) for x: fused in {0,1}, tanhf any binary32
 * within k ulps of RN32 in either reading (tests/vendor_ulp_ref.h);
 * returns how many were written to out[]. */
static int kernel_all(float xf, const kernel *k, int ulp, float *out)
{
    float x2 = xf * xf;
    float x3 = x2 * xf;
    int n = 0;
    for (int fused = 0; fused < 2; fused++) {
        float s = fused ? fmaf(k->a, x3, xf) : xf + k->a * x3;
        float inner = k->c * s;
        float t0 = rn32_tanh_256(inner);
        float t = t0;
        for (int i = 0; i < 2 * ulp + 1; i++) /* k ulps of t0 are at most 2k steps away */
            t = nextafterf(t, -INFINITY);
        for (int d = -2 * ulp - 1; d <= 2 * ulp + 1; d++, t = nextafterf(t, INFINITY)) {
            if (!ref_within_ulps(t, t0, ulp))
                continue;
            float opt = 1.0f + t;
            if (k->round_opt_f16)
                opt = (float)rn16(opt);
            out[n++] = 0.5f * xf * opt;
        }
    }
    return n;
}

/* Emulated outputs outside model_y / outside the admitted binary16
 * interval; with attained, also count x whose model_y ends are not both
 * produced by some emulated choice (the hull would be loose). */
static void check_model(const tp_interval *mo, const kernel *k, int ulp, int *outside32, int *outside16,
                        int *unattained)
{
    float v[64];
    *outside32 = *outside16 = 0;
    if (unattained)
        *unattained = 0;
    for (uint32_t h = 0; h < NALL; h++) {
        if (!is_finite_f16(h))
            continue;
        float x = f16_float(h);
        int n = kernel_all(x, k, ulp, v);
        double alo = rn16((float)mo[h].lo), ahi = rn16((float)mo[h].hi);
        int got_lo = 0, got_hi = 0;
        for (int i = 0; i < n; i++) {
            if (!(v[i] >= mo[h].lo && v[i] <= mo[h].hi))
                ++*outside32;
            double o = rn16(v[i]);
            if (!(o >= alo && o <= ahi) && ++*outside16 <= MAX_REPORTED && unattained)
                tap_diag("x = %a: kernel gives %a, admitted [%a, %a]", x, o, alo, ahi);
            got_lo |= v[i] == (float)mo[h].lo;
            got_hi |= v[i] == (float)mo[h].hi;
        }
        if (unattained && !(got_lo && got_hi) && ++*unattained <= MAX_REPORTED)
            tap_diag("x = %a: model [%a, %a] not attained", x, mo[h].lo, mo[h].hi);
    }
}

/* ---------------------------------------------------------------- */

static int run_op(const char *backend, const tp_value *model, const uint16_t *x, int n, tp_ref *ref, char *err,
                  size_t errlen)
{
    const tp_op *op = tp_op_find("gelu_fwd");
    if (!op)
        return snprintf(err, errlen, "op gelu_fwd not registered"), -1;
    uint16_t *y = calloc((size_t)n, sizeof *y);
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = "test";
    c.ndims = 1;
    c.dim_names[0] = "n";
    c.dims[0] = n;
    c.ntensors = 2;
    c.tensors[0] = (tp_tensor){"x", TP_F16, 1, {n}, n, (void *)x, NULL};
    c.tensors[1] = (tp_tensor){"y", TP_F16, 1, {n}, n, y, y};
    c.backend = backend;
    int rc = op->check_model(model, err, errlen) || op->reference(model, &c, "y", ref, err, errlen);
    free(y);
    return rc;
}

int main(void)
{
    tap_plan(16);
    fesetround(FE_TONEAREST);
    tp_gelu_fwd_model m = tp_gelu_fwd_model_pilot(2, 1);
    tp_interval *ex = malloc(NALL * sizeof *ex), *mo = malloc(NALL * sizeof *mo), *mo0 = malloc(NALL * sizeof *mo0);
    if (!ex || !mo || !mo0)
        return 1;
    int rc = tp_gelu_fwd_tables_build(&m, ex, mo);
    tap_ok(rc == 0, "tables build for the pilot model (tanhf 2 ulp, fma any)");

    int loose, bad = check_exact(&m, ex, &loose);
    tap_ok(bad == 0, "exact_y encloses the 256-bit MPFR y for every binary16 x (%d faults)", bad);
    tap_ok(loose == 0, "exact_y is within 2^-50 relative wherever y is a normal double (%d wider)", loose);

    /* the check can fail: a table for c one ulp too large */
    tp_gelu_fwd_model m_up = m;
    m_up.c = nextafterf(m.c, 1.0f);
    int bad_up = tp_gelu_fwd_tables_build(&m_up, mo0, NULL) != 0 ? -1 : check_exact(&m, mo0, &loose);
    tap_ok(bad_up > 0, "an exact table built with c one fp32 ulp too large fails that check (%d faults)", bad_up);

    /* known values: y(0) = 0 exactly; y(x) = x to double precision for x >= 16 */
    tap_ok(ex[0].lo == 0 && ex[0].hi == 0 && ex[0x3c00].lo < 0.8413 && ex[0x3c00].hi > 0.8411 &&
               ex[0x4c00].hi == 16.0 && ex[0x4c00].lo == nextafter(16.0, 0.0) && ex[0xfc00 - 1].hi <= 0 &&
               ex[0xfc00 - 1].hi > -0x1p-1000,
           "exact_y at 0, 1, 16 and -65504 (%a, %a; %a, %a; %a, %a)", ex[0x3c00].lo, ex[0x3c00].hi, ex[0x4c00].lo,
           ex[0x4c00].hi, ex[0xfbff].lo, ex[0xfbff].hi);

    kernel pilot = {m.c, m.a, 0};
    int out32, out16, unatt;
    check_model(mo, &pilot, 2, &out32, &out16, &unatt);
    tap_ok(out32 == 0, "brute-force kernel (fused or not, tanhf within 2 ulps of RN32) never leaves model_y (%d outside)",
           out32);
    tap_ok(out16 == 0, "... nor, after __float2half, the admitted binary16 interval (%d outside)", out16);
    tap_ok(unatt == 0, "every model_y end is produced by some admitted evaluation: the hull is exact (%d not)", unatt);

    /* tanhf 3 ulps away lies outside the 2-ulp model for some x */
    check_model(mo, &pilot, 3, &out32, &out16, NULL);
    tap_ok(out32 > 0, "a tanhf 3 ulps from RN32 is outside model_y for some x (%d outputs)", out32);

    kernel wrong_c = {0.7978f, m.a, 0}, wrong_a = {m.c, 0.0447f, 0}, opt16 = {m.c, m.a, 1};
    check_model(mo, &wrong_c, 0, &out32, &out16, NULL);
    tap_ok(out16 > 0, "a kernel with c = 0.7978 is caught by the admitted interval (%d outputs)", out16);
    check_model(mo, &wrong_a, 0, &out32, &out16, NULL);
    tap_ok(out16 > 0, "a kernel with a = 0.0447 is caught (%d outputs)", out16);
    check_model(mo, &opt16, 0, &out32, &out16, NULL);
    tap_ok(out16 > 0, "a kernel rounding 1 + t to binary16 is caught (%d outputs)", out16);

    /* a narrower model is contained in the wider one */
    tp_gelu_fwd_model m0 = tp_gelu_fwd_model_pilot(0, 0);
    int notsub = tp_gelu_fwd_tables_build(&m0, NULL, mo0) != 0;
    for (uint32_t h = 0; h < NALL; h++)
        if (is_finite_f16(h) && !(mo[h].lo <= mo0[h].lo && mo0[h].hi <= mo[h].hi))
            notsub++;
    tap_ok(notsub == 0, "the model with tanhf 0 ulp and no fma lies inside the pilot model (%d not)", notsub);

    /* the proven driver and the op, on every binary16 pattern */
    uint16_t *x = malloc(NALL * sizeof *x);
    tp_interval *e2 = malloc(NALL * sizeof *e2), *m2 = malloc(NALL * sizeof *m2);
    tp_ref *ref = malloc(NALL * sizeof *ref);
    for (uint32_t i = 0; i < NALL; i++)
        x[i] = (uint16_t)(i * 40503u); /* a permutation of 0..65535 */
    tp_gelu_fwd_ref(NALL, x, ex, mo, e2, m2);
    int wrong = 0;
    for (uint32_t i = 0; i < NALL; i++)
        wrong += memcmp(&e2[i], &ex[x[i]], sizeof *e2) != 0 || memcmp(&m2[i], &mo[x[i]], sizeof *m2) != 0;
    tap_ok(wrong == 0, "tp_gelu_fwd_ref gives every element its pattern's entries (%d wrong)", wrong);

    json_error_t je;
    tp_value *model = model_of(json_loads("{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", "
                               "\"constants\": {\"c\": \"0.7978845608f\", \"a\": \"0.044715f\"}, "
                               "\"tanhf_ulp\": {\"cuda\": 2, \"source\": \"test\"}}",
                               0, &je));
    char err[300] = "";
    int n = 0, bad_op = 0;
    for (uint32_t h = 0; h < NALL; h++)
        if (is_finite_f16(h))
            x[n++] = (uint16_t)h;
    rc = run_op("cuda", model, x, n, ref, err, sizeof err);
    for (int i = 0; rc == 0 && i < n; i++) {
        double lo = rn16((float)mo[x[i]].lo), hi = rn16((float)mo[x[i]].hi);
        bad_op += !(ref[i].allow_lo == lo && ref[i].allow_hi == hi && ref[i].exact_lo == ex[x[i]].lo &&
                    ref[i].exact_hi == ex[x[i]].hi && ref[i].exact_lo <= ref[i].exact && ref[i].exact <= ref[i].exact_hi);
    }
    tap_ok(rc == 0 && bad_op == 0, "op gelu_fwd: allow = RN16 of model_y ends, exact from exact_y (%s; %d wrong)", err,
           bad_op);
    rc = run_op("hip", model, x, n, ref, err, sizeof err);
    tap_ok(rc != 0 && strstr(err, "hip"), "op gelu_fwd refuses a backend with no documented tanhf bound (%s)", err);

    tp_value_free(model);
    free(ex), free(mo), free(mo0), free(x), free(e2), free(m2), free(ref);
    return tap_exit();
}
