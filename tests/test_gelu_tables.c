/* Checks oracles/gelu/gelu_tables.c for every binary16 x:
 *  - exact_f against an independent MPFI evaluation of the naive form
 *    (tanh itself, 1 - t^2 and 1 + t as written) at 256 bits;
 *  - model_f against a brute-force emulation of the kernel in C float
 *    arithmetic: every fused/unfused choice times every tanhf result the
 *    ulp bound admits;
 *  - wrong models (c off by one ulp, a = 0.0447) that the emulation must
 *    expose, so the containment checks can fail.
 * Build with -ffp-contract=off: the emulation must round where C says. */
#include "oracles/gelu/gelu_tables.h"
#include "tests/tap.h"
#include "core/tp_fp16.h"

#include <math.h>
#include <mpfi.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTESTS 11
#define NALL TP_GELU_TABLE_SIZE
#define MAX_REPORTED 5 /* first faults shown, then counted */

static int is_finite_f16(uint32_t h) { return (h & 0x7c00) != 0x7c00; }
static float f16_float(uint32_t h) { return (float)tp_f16_to_double((uint16_t)h); }

/* ---------------------------------------------------------------- */
/* Exact factor, naive form, MPFI at 256 bits, default exponent range
 * (so it shares neither formula nor set-up with the table builder). */

static void naive_factor(float xf, const tp_gelu_model *m, mpfi_ptr f)
{
    mpfi_t x, t, q, d;
    mpfi_init2(x, 256);
    mpfi_init2(t, 256);
    mpfi_init2(q, 256);
    mpfi_init2(d, 256);
    mpfi_set_d(x, xf);
    mpfi_sqr(d, x);                     /* x^2 */
    mpfi_mul(t, d, x);                  /* x^3 */
    mpfi_mul_d(t, t, m->a);
    mpfi_add(t, t, x);
    mpfi_mul_d(t, t, m->c);
    mpfi_tanh(t, t);                    /* t */
    mpfi_mul_d(d, d, 3.0 * (double)m->a); /* 3a exact in double */
    mpfi_add_ui(d, d, 1);
    mpfi_mul_d(d, d, m->c);             /* dinner, exact real */
    mpfi_sqr(q, t);
    mpfi_ui_sub(q, 1, q);               /* 1 - t^2 */
    mpfi_mul(q, q, x);
    mpfi_mul_d(q, q, 0.5);
    mpfi_mul(q, q, d);
    mpfi_add_ui(f, t, 1);
    mpfi_mul_d(f, f, 0.5);
    mpfi_add(f, f, q);
    mpfi_clear(x);
    mpfi_clear(t);
    mpfi_clear(q);
    mpfi_clear(d);
}

#define NAIVE_SHARP_FROM (-11.0)

static int width_tiny(tp_interval e)
{
    double w = e.hi - e.lo, mag = fmax(fabs(e.lo), fabs(e.hi));
    return w >= 0 && (w <= 0x1p-38 * mag || w <= 0x1p-1060);
}

static void test_exact(const tp_gelu_model *m, const tp_interval *ef)
{
    long bad_meet = 0, bad_in = 0, bad_width = 0, informative = 0, blunt = 0;
    mpfi_t f;
    mpfr_t lo, hi, rel;
    mpfi_init2(f, 256);
    mpfr_inits2(256, lo, hi, rel, (mpfr_ptr)0);
    for (uint32_t h = 0; h < NALL; h++) {
        if (!is_finite_f16(h))
            continue;
        float x = f16_float(h);
        tp_interval e = ef[h];
        naive_factor(x, m, f);
        mpfi_get_left(lo, f);
        mpfi_get_right(hi, f);
        /* Both enclose the same real: they must meet. */
        int meet = mpfr_cmp_d(hi, e.lo) >= 0 && mpfr_cmp_d(lo, e.hi) <= 0;
        if (!meet && bad_meet++ < MAX_REPORTED)
            tap_diag("x=%a: exact [%a, %a] misses naive [%a, %a]", x, e.lo,
                     e.hi, mpfr_get_d(lo, MPFR_RNDD), mpfr_get_d(hi, MPFR_RNDU));
        /* Where the naive form is sharp, it must lie inside. It is sharp
         * for every x >= NAIVE_SHARP_FROM; below, 1 + t cancels to nothing
         * at 256 bits and only the meeting above is a check. */
        mpfi_diam_rel(rel, f);
        int sharp = !mpfi_has_zero(f) && mpfr_cmp_d(rel, 0x1p-60) <= 0;
        blunt += !sharp && x >= NAIVE_SHARP_FROM;
        if (sharp) {
            informative++;
            int in = mpfr_cmp_d(lo, e.lo) >= 0 && mpfr_cmp_d(hi, e.hi) <= 0;
            if (!in && bad_in++ < MAX_REPORTED)
                tap_diag("x=%a: naive [%a, %a] not inside [%a, %a]", x,
                         mpfr_get_d(lo, MPFR_RNDD), mpfr_get_d(hi, MPFR_RNDU),
                         e.lo, e.hi);
        }
        if (!width_tiny(e) && bad_width++ < MAX_REPORTED)
            tap_diag("x=%a: exact [%a, %a] too wide", x, e.lo, e.hi);
    }
    mpfi_clear(f);
    mpfr_clears(lo, hi, rel, (mpfr_ptr)0);
    tap_ok(bad_meet == 0, "exact_f meets the naive 256-bit MPFI enclosure for all 63488 finite x (%ld misses)", bad_meet);
    tap_ok(bad_in == 0 && blunt == 0,
           "exact_f contains the naive enclosure wherever it is sharp (%ld x, all x >= %g among them: %ld not; %ld outside)",
           informative, NAIVE_SHARP_FROM, blunt, bad_in);
    tap_ok(bad_width == 0, "exact_f width <= 2^-38 relative or 2^-1060 absolute (%ld too wide)", bad_width);
}

static void test_slow_path(const tp_gelu_model *m, const tp_interval *ef)
{
    long bad = 0;
    for (uint32_t h = 0; h < NALL; h++) {
        if (!is_finite_f16(h))
            continue;
        tp_interval s;
        if (tp_gelu_factor_mpfr(f16_float(h), m, 200, &s) != 0 ||
            !(s.lo >= ef[h].lo && s.hi <= ef[h].hi)) {
            if (bad++ < MAX_REPORTED)
                tap_diag("x=%a: slow [%a, %a] table [%a, %a]", f16_float(h),
                         s.lo, s.hi, ef[h].lo, ef[h].hi);
        }
    }
    tap_ok(bad == 0, "tp_gelu_factor_mpfr at 200 bits lies inside exact_f for every finite x (%ld not)", bad);
}

/* ---------------------------------------------------------------- */
/* The kernel, emulated in fp32 with each fusable pattern selectable. */

enum { FUSE_INNER = 1, FUSE_DINNER = 2, FUSE_OMT = 4 };
enum { FINAL_SPLIT, FINAL_FUSE_RIGHT, FINAL_FUSE_LEFT, FINAL_MODES };

static float kernel_inner(float xf, const tp_gelu_model *m, int fuse)
{
    float x2 = xf * xf;
    float x3 = x2 * xf;
    float s = (fuse & FUSE_INNER) ? fmaf(m->a, x3, xf) : xf + m->a * x3;
    return m->c * s;
}

static float kernel_rest(float xf, float t, const tp_gelu_model *m, int fuse, int final)
{
    float x2 = xf * xf;
    float dinner = m->c * ((fuse & FUSE_DINNER) ? fmaf(m->k3a, x2, 1.0f)
                                                : 1.0f + m->k3a * x2);
    float omt = (fuse & FUSE_OMT) ? fmaf(-t, t, 1.0f) : 1.0f - t * t;
    float right = 0.5f * xf * omt;
    switch (final) {
    case FINAL_FUSE_RIGHT:
        return fmaf(right, dinner, 0.5f * (1.0f + t));
    case FINAL_FUSE_LEFT:
        return fmaf(0.5f, 1.0f + t, right * dinner);
    default:
        return 0.5f * (1.0f + t) + right * dinner;
    }
}

/* Correctly rounded tanh to fp32 (subnormals included): MPFR's idiom of a
 * 24-bit target inside fp32's exponent range, then subnormalize. The
 * caller sets that range (fp32_range_enter). */
static float tanh_rn32(float z)
{
    mpfr_t v, r;
    mpfr_init2(v, 24);
    mpfr_init2(r, 24);
    mpfr_set_flt(v, z, MPFR_RNDN);
    int inex = mpfr_tanh(r, v, MPFR_RNDN);
    inex = mpfr_subnormalize(r, inex, MPFR_RNDN);
    float out = mpfr_get_flt(r, MPFR_RNDN);
    mpfr_clear(v);
    mpfr_clear(r);
    return out;
}

typedef struct { mpfr_exp_t emin, emax; } exp_range;

static exp_range fp32_range_enter(void)
{
    exp_range old = {mpfr_get_emin(), mpfr_get_emax()};
    mpfr_set_emin(-148); /* 2^-149 = 0.5 * 2^-148 in MPFR's convention */
    mpfr_set_emax(128);
    return old;
}

static void range_leave(exp_range old)
{
    mpfr_set_emin(old.emin);
    mpfr_set_emax(old.emax);
}

static float textbook(float xf, const tp_gelu_model *m)
{
    return kernel_rest(xf, tanh_rn32(kernel_inner(xf, m, 0)), m, 0, FINAL_SPLIT);
}

static int inside(float v, tp_interval iv) { return v >= iv.lo && v <= iv.hi; }

static float step(float v, int k)
{
    for (; k > 0; k--)
        v = nextafterf(v, INFINITY);
    for (; k < 0; k++)
        v = nextafterf(v, -INFINITY);
    return v;
}

typedef struct { long evals, outside, x_outside; } brute_result;

/* Every output the kernel `km` can give, checked against the table `mf`. */
static brute_result brute_force(const tp_gelu_model *km, const tp_interval *mf,
                                int report)
{
    brute_result r = {0, 0, 0};
    int ulp = km->tanh_ulp;
    exp_range old = fp32_range_enter();
    for (uint32_t h = 0; h < NALL; h++) {
        if (!is_finite_f16(h))
            continue;
        float x = f16_float(h);
        long before = r.outside;
        for (int fi = 0; fi < 2; fi++) {
            float t0 = tanh_rn32(kernel_inner(x, km, fi ? FUSE_INNER : 0));
            for (int k = -ulp; k <= ulp; k++) {
                float t = step(t0, k);
                for (int fuse = 0; fuse < 8; fuse += 2)
                    for (int fin = 0; fin < FINAL_MODES; fin++) {
                        float f = kernel_rest(x, t, km, fuse, fin);
                        r.evals++;
                        if (inside(f, mf[h]))
                            continue;
                        if (report && r.outside < MAX_REPORTED)
                            tap_diag("x=%a fuse=%d/%d final=%d t=%a: f=%a outside [%a, %a]",
                                     x, fi, fuse, fin, t, f, mf[h].lo, mf[h].hi);
                        r.outside++;
                    }
            }
        }
        r.x_outside += r.outside > before;
    }
    range_leave(old);
    return r;
}

static void test_model_brute(const tp_gelu_model *m, const tp_interval *mf)
{
    brute_result r = brute_force(m, mf, 1);
    tap_ok(r.outside == 0 && r.evals == 63488L * 2 * (2 * m->tanh_ulp + 1) * 4 * FINAL_MODES,
           "every emulated kernel output (%ld: all finite x, fused/unfused x4 patterns, tanhf +-%d steps) lies in model_f (%ld outside)",
           r.evals, m->tanh_ulp, r.outside);
}

static void test_textbook(const tp_gelu_model *m, const tp_interval *mf,
                          const tp_interval *mf_strict)
{
    long bad = 0, not_point = 0;
    exp_range old = fp32_range_enter();
    for (uint32_t h = 0; h < NALL; h++) {
        if (!is_finite_f16(h))
            continue;
        float x = f16_float(h), f = textbook(x, m);
        if (!inside(f, mf[h]) && bad++ < MAX_REPORTED)
            tap_diag("x=%a: textbook f=%a outside [%a, %a]", x, f, mf[h].lo, mf[h].hi);
        if (!(mf_strict[h].lo == f && mf_strict[h].hi == f) && not_point++ < MAX_REPORTED)
            tap_diag("x=%a: textbook f=%a, strict model [%a, %a]", x, f,
                     mf_strict[h].lo, mf_strict[h].hi);
    }
    range_leave(old);
    tap_ok(bad == 0, "the textbook evaluation (unfused, tanhf correctly rounded) lies in model_f for every finite x (%ld outside)", bad);
    tap_ok(not_point == 0,
           "with tanh_ulp = 0 and no fusion, model_f is exactly the textbook value for every finite x (%ld differ)",
           not_point);
}

static void test_nonfinite(const tp_interval *ef, const tp_interval *mf)
{
    long bad = 0;
    for (uint32_t h = 0; h < NALL; h++)
        if (!is_finite_f16(h))
            bad += !(isnan(ef[h].lo) && isnan(ef[h].hi) && isnan(mf[h].lo) && isnan(mf[h].hi));
        else
            bad += isnan(ef[h].lo) || isnan(ef[h].hi) || isnan(mf[h].lo) || isnan(mf[h].hi);
    tap_ok(bad == 0, "NaN ends exactly for the 2048 non-finite x (%ld wrong)", bad);
}

/* A model that differs from the kernel must be caught by the same check. */
static void test_wrong_model(const tp_gelu_model *kernel, tp_gelu_model wrong,
                             const char *what, tp_interval *scratch)
{
    if (tp_gelu_tables_build(&wrong, NULL, scratch) != 0) {
        tap_ok(0, "wrong model (%s) builds", what);
        return;
    }
    brute_result r = brute_force(kernel, scratch, 0);
    tap_ok(r.outside > 0, "wrong model (%s): %ld of %ld emulated outputs, at %ld x, fall outside",
           what, r.outside, r.evals, r.x_outside);
}

int main(void)
{
    tp_gelu_model m = tp_gelu_model_pilot(2, 1);
    tp_gelu_model strict = tp_gelu_model_pilot(0, 0);
    tp_interval *ef = malloc(NALL * sizeof *ef), *mf = malloc(NALL * sizeof *mf),
                *ms = malloc(NALL * sizeof *ms);
    if (!ef || !mf || !ms) {
        printf("1..0 # SKIP out of memory\n");
        return 1;
    }
    tap_plan(NTESTS);
    tap_ok(tp_gelu_tables_build(&m, ef, mf) == 0 &&
               tp_gelu_tables_build(&strict, NULL, ms) == 0,
           "tables build (tanh_ulp 2 with fusion; tanh_ulp 0 without)");
    test_nonfinite(ef, mf);
    test_exact(&m, ef);
    test_slow_path(&m, ef);
    test_model_brute(&m, mf);
    test_textbook(&m, mf, ms);

    tp_gelu_model wrong_c = m, wrong_a = m;
    wrong_c.c = nextafterf(m.c, 1.0f);
    wrong_a.a = 0.0447f;
    test_wrong_model(&m, wrong_c, "c one ulp up", ms);
    test_wrong_model(&m, wrong_a, "a = 0.0447", ms);
    free(ef);
    free(mf);
    free(ms);
    return tap_exit();
}
