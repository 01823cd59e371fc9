/* The HIP tanhf figure for the GELU ops (oracles/gelu/gelu_hip.c):
 *  - s(M) and the absolute bound (figure + host_ulp) s(M);
 *  - soundness against MPFR: a host emulation of a HIP tanhf that is off
 *    by the documented amount (every binary32 at the ends of the allowed
 *    set |t - tanh z| <= E, found independently at 256 bits, and glibc's
 *    tanhf stepped figure patterns either way), run through the kernels'
 *    fp32 expressions (fused and unfused), lands inside the interval the
 *    op admits on backend "hip", for every binary16 x whose tanhf
 *    arguments lie in the documented range;
 *  - a case with an argument outside the range is refused (check_case,
 *    and the reference), naming the range and the argument's enclosure;
 *  - malformed hip entries are errors that say what was expected;
 *  - on backend "cuda" a hip entry changes nothing.
 * Build with -ffp-contract=off: the emulation must round where C says. */
#include "oracles/common/hip_math_figure.h"
#include "oracles/gelu/gelu_fwd_tables.h"
#include "tests/model_json.h"
#include "tests/tap.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NALL 65536
#define FIGURE 2
#define HOST 2
static const float C = 0.7978845608f, A = 0.044715f, K3A = 0.134145f;

static int is_finite_f16(uint32_t h) { return (h & 0x7c00) != 0x7c00; }
static float f16_float(uint32_t h) { return (float)tp_f16_to_double((uint16_t)h); }
static double rn16(float v) { return tp_f16_to_double(tp_f16_from_float(v)); }

static const char *MODEL_FMT =
    "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", "
    "\"constants\": {\"c\": \"0.7978845608f\", \"a\": \"0.044715f\"%s}, "
    "\"tanhf_ulp\": {\"cuda\": 2, \"source\": \"test\"%s}}";
static const char *HIP_ENTRY =
    ", \"hip\": {\"figure\": 2, \"metric\": \"ulp_difference_of_max_absolute_error\", \"range\": [-5, 5], "
    "\"source\": \"test\", \"host_ulp\": 2, \"host_source\": \"test\"}";

static tp_value *model(int bwd, const char *hip)
{
    char buf[1200];
    snprintf(buf, sizeof buf, MODEL_FMT, bwd ? ", \"k3a\": \"0.134145f\"" : "", hip);
    json_error_t je;
    json_t *j = json_loads(buf, 0, &je);
    if (!j)
        printf("# bad JSON: %s\n", je.text);
    return model_of(j);
}

/* Runs op on x (and g = gval for gelu_bwd): check_model, check_case, then
 * the reference. 0, or -1 with err; *refused says check_case refused. */
static int run_op(const char *opname, const char *backend, const tp_value *m, const uint16_t *x, const uint16_t *g,
                  int n, tp_ref *ref, int *refused, char *err, size_t errlen)
{
    const tp_op *op = tp_op_find(opname);
    int bwd = g != NULL;
    uint16_t *out = calloc((size_t)n, sizeof *out);
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = "test";
    c.ndims = 1;
    c.dim_names[0] = "n";
    c.dims[0] = n;
    c.ntensors = bwd ? 3 : 2;
    c.tensors[0] = (tp_tensor){"x", TP_F16, 1, {n}, n, (void *)x, NULL};
    if (bwd) {
        c.tensors[1] = (tp_tensor){"g", TP_F16, 1, {n}, n, (void *)g, NULL};
        c.tensors[2] = (tp_tensor){"gi", TP_F16, 1, {n}, n, out, out};
    } else
        c.tensors[1] = (tp_tensor){"y", TP_F16, 1, {n}, n, out, out};
    c.backend = backend;
    *refused = 0;
    int rc = op->check_model(m, err, errlen);
    if (!rc && op->check_case && op->check_case(m, &c, err, errlen) != 0)
        rc = *refused = -1;
    if (!rc)
        rc = op->reference(m, &c, bwd ? "gi" : "y", ref, err, errlen);
    free(out);
    return rc;
}

/* The ends of { binary32 t : |t - tanh z| <= E }, independently: 256-bit
 * MPFR, the candidate ends checked and their outer neighbours excluded. */
static int allowed_ends(float z, double E, float *lo, float *hi)
{
    mpfr_t t, d, v;
    mpfr_inits2(256, t, d, v, (mpfr_ptr)0);
    mpfr_set_flt(t, z, MPFR_RNDN);
    mpfr_tanh(t, t, MPFR_RNDN);
    mpfr_sub_d(d, t, E, MPFR_RNDN);
    *lo = mpfr_get_flt(d, MPFR_RNDU);
    mpfr_add_d(d, t, E, MPFR_RNDN);
    *hi = mpfr_get_flt(d, MPFR_RNDD);
    int bad = 0;
    float probe[4] = {*lo, *hi, nextafterf(*lo, -INFINITY), nextafterf(*hi, INFINITY)};
    for (int i = 0; i < 4; i++) {
        mpfr_set_flt(v, probe[i], MPFR_RNDN);
        mpfr_sub(v, v, t, MPFR_RNDN);
        mpfr_abs(v, v, MPFR_RNDN);
        int inside = mpfr_cmp_d(v, E) <= 0;
        bad += i < 2 ? !inside : inside;
    }
    mpfr_clears(t, d, v, (mpfr_ptr)0);
    return bad;
}

static float kernel_y(float x, float t) { return (0.5f * x) * (1.0f + t); }

/* gelu_bwd's f, all unfused (fused = 0) or every mul-add fused (1) */
static float kernel_f(float x, float t, int fused)
{
    float x2 = x * x;
    float dinner = C * (fused ? fmaf(K3A, x2, 1.0f) : 1.0f + K3A * x2);
    float omt2 = fused ? fmaf(-t, t, 1.0f) : 1.0f - t * t;
    float left = 0.5f * (1.0f + t), right = (0.5f * x) * omt2;
    return fused ? fmaf(right, dinner, left) : left + right * dinner;
}

int main(void)
{
    tap_plan(16);
    fesetround(FE_TONEAREST);
    char err[600] = "";

    /* the bound */
    tap_ok(tp_binary32_spacing_above(0.99990920) == 0x1p-24 && tp_binary32_spacing_above(1.0) == 0x1p-23 &&
               tp_binary32_spacing_above(1e-40) == 0x1p-149 && tp_binary32_spacing_above(100.0) == 0x1p-17,
           "s(M): the binary32 spacing above M (2^-24 below 1, 2^-23 at 1, 2^-149 subnormal, 2^-17 at 100)");
    tp_hip_figure fig = {FIGURE, -5, 5, HOST};
    double E = tp_hip_figure_abs(&fig, tanh(5.0));
    tap_ok(E == (FIGURE + HOST) * 0x1p-24, "tanhf on [-5, 5], figure 2 + host 2: E = 4 x 2^-24 (%a)", E);

    /* every binary16 x, both ops, on backend hip */
    uint16_t *x = malloc(NALL * sizeof *x), *g = malloc(NALL * sizeof *g);
    tp_ref *ref = malloc(NALL * sizeof *ref), *ref2 = malloc(NALL * sizeof *ref2);
    int n = 0;
    for (uint32_t h = 0; h < NALL; h++) {
        if (!is_finite_f16(h))
            continue;
        float zl, zh;
        tp_gelu_tanh_args(f16_float(h), C, A, 1, &zl, &zh);
        if (zl >= -5 && zh <= 5)
            x[n++] = (uint16_t)h;
    }
    tap_ok(n > 0 && n < 63488, "%d of the 63488 finite binary16 x have every tanhf argument in [-5, 5]", n);
    tp_value *mf = model(0, HIP_ENTRY), *mb = model(1, HIP_ENTRY);
    int refused;
    int rc = run_op("gelu_fwd", "hip", mf, x, NULL, n, ref, &refused, err, sizeof err);
    tap_ok(rc == 0, "gelu_fwd on hip accepts them (%s)", rc ? err : "ok");

    int bad_ends = 0, out_y = 0, out_glibc = 0, inexact_in = 0;
    double widest = 0, widest_cuda = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        float xv = f16_float(x[i]), zs[2];
        tp_gelu_tanh_args(xv, C, A, 1, &zs[0], &zs[1]);
        for (int k = 0; k < 2; k++) {
            float lo, hi;
            bad_ends += allowed_ends(zs[k], E, &lo, &hi);
            float tg = tanhf(zs[k]), tgl = tg, tgh = tg;
            for (int s = 0; s < FIGURE; s++)
                tgl = nextafterf(tgl, -INFINITY), tgh = nextafterf(tgh, INFINITY);
            float ts[3] = {lo, hi, 0.5f * lo + 0.5f * hi};
            for (int j = 0; j < 3; j++) {
                double y = rn16(kernel_y(xv, ts[j]));
                out_y += !(ref[i].allow_lo <= y && y <= ref[i].allow_hi);
            }
            float tgs[2] = {tgl, tgh};
            for (int j = 0; j < 2; j++) {
                double y = rn16(kernel_y(xv, tgs[j]));
                out_glibc += !(ref[i].allow_lo <= y && y <= ref[i].allow_hi);
            }
        }
        widest = fmax(widest, ref[i].allow_hi - ref[i].allow_lo);
    }
    tap_ok(bad_ends == 0, "the allowed tanhf set's ends are within E of tanh, their neighbours beyond (%d wrong)",
           bad_ends);
    tap_ok(out_y == 0, "gelu_fwd: a HIP tanhf at either end of the allowed set (or between) is admitted (%d outside)",
           out_y);
    tap_ok(out_glibc == 0, "gelu_fwd: glibc tanhf stepped 2 patterns either way is admitted (%d outside)", out_glibc);
    tp_value *mf_cuda = model(0, "");
    int rc2 = run_op("gelu_fwd", "cuda", mf_cuda, x, NULL, n, ref2, &refused, err, sizeof err);
    int wider = 0;
    for (int i = 0; rc2 == 0 && i < n; i++) {
        widest_cuda = fmax(widest_cuda, ref2[i].allow_hi - ref2[i].allow_lo);
        inexact_in += !(ref[i].allow_lo <= ref2[i].allow_lo && ref2[i].allow_hi <= ref[i].allow_hi);
        wider += ref[i].allow_lo < ref2[i].allow_lo || ref2[i].allow_hi < ref[i].allow_hi;
    }
    tap_ok(rc2 == 0 && inexact_in == 0,
           "gelu_fwd: the hip interval (E = 4 x 2^-24 absolute) contains cuda's (2 ulp) for every x (%d do not; "
           "%d strictly wider)", inexact_in, wider);
    printf("# gelu_fwd admitted width (binary16) on the covered x: widest hip %g, cuda %g\n", widest, widest_cuda);
    int rc3 = run_op("gelu_fwd", "cuda", mf, x, NULL, n, ref, &refused, err, sizeof err);
    tap_ok(rc2 == 0 && rc3 == 0 && memcmp(ref, ref2, (size_t)n * sizeof *ref) == 0,
           "gelu_fwd on cuda: a hip entry in the model changes no reference bit");

    /* gelu_bwd, g = 1 and g = -0.75 */
    int out_f = 0;
    for (int gi = 0; gi < 2; gi++) {
        uint16_t gv = gi ? 0xba00 /* -0.75 */ : 0x3c00 /* 1 */;
        for (int i = 0; i < n; i++)
            g[i] = gv;
        rc = run_op("gelu_bwd", "hip", mb, x, g, n, ref, &refused, err, sizeof err);
        if (rc) {
            out_f = -1;
            break;
        }
        float gf = gi ? -0.75f : 1.0f;
        for (int i = 0; i < n; i++) {
            float xv = f16_float(x[i]), zs[2];
            tp_gelu_tanh_args(xv, C, A, 1, &zs[0], &zs[1]);
            for (int k = 0; k < 2; k++) {
                float lo, hi;
                allowed_ends(zs[k], E, &lo, &hi);
                float ts[2] = {lo, hi};
                for (int j = 0; j < 2; j++)
                    for (int fu = 0; fu < 2; fu++) {
                        double v = rn16(gf * kernel_f(xv, ts[j], fu));
                        out_f += !(ref[i].allow_lo <= v && v <= ref[i].allow_hi);
                    }
            }
        }
    }
    tap_ok(out_f == 0, "gelu_bwd: HIP tanhf at either end of the allowed set, fused or not, g = 1 and -0.75, is "
                       "admitted (%d outside; %s)", out_f, out_f < 0 ? err : "ok");

    /* out of range: x = 4 gives z = 5.47 */
    uint16_t xo[3] = {0x3c00 /* 1 */, 0x4400 /* 4 */, 0x0000};
    uint16_t go[3] = {0x3c00, 0x3c00, 0x3c00};
    rc = run_op("gelu_fwd", "hip", mf, xo, NULL, 3, ref, &refused, err, sizeof err);
    tap_ok(rc != 0 && refused && strstr(err, "x[1] = 4 gives the tanhf argument z in [5.4") &&
               strstr(err, "outside the test range [-5, 5]"),
           "gelu_fwd on hip refuses x = 4 before the launch, naming z and the range (%s)", err);
    rc = run_op("gelu_bwd", "hip", mb, xo, go, 3, ref, &refused, err, sizeof err);
    tap_ok(rc != 0 && refused && strstr(err, "gelu_bwd on HIP: x[1] = 4") && strstr(err, "[-5, 5]"),
           "gelu_bwd on hip refuses it too (%s)", err);
    const tp_op *op = tp_op_find("gelu_fwd");
    tp_case c;
    memset(&c, 0, sizeof c);
    uint16_t yo[3];
    c.name = "t", c.ndims = 1, c.dim_names[0] = "n", c.dims[0] = 3, c.ntensors = 2, c.backend = "hip";
    c.tensors[0] = (tp_tensor){"x", TP_F16, 1, {3}, 3, xo, NULL};
    c.tensors[1] = (tp_tensor){"y", TP_F16, 1, {3}, 3, yo, yo};
    rc = op->reference(mf, &c, "y", ref, err, sizeof err);
    tap_ok(rc != 0 && strstr(err, "outside the test range"), "the reference alone refuses it as well (%s)", err);

    /* malformed entries */
    static const struct { const char *entry, *want; } bad[] = {
        {", \"hip\": {\"figure\": \"2\", \"metric\": \"ulp_difference_of_max_absolute_error\", \"range\": [-5, 5], "
         "\"source\": \"s\", \"host_ulp\": 2, \"host_source\": \"h\"}",
         "model.tanhf_ulp.hip.figure is a string; expected an integer ulp count in 0 .. 64"},
        {", \"hip\": {\"figure\": 2, \"metric\": \"max_ulp\", \"range\": [-5, 5], \"source\": \"s\", \"host_ulp\": 2, "
         "\"host_source\": \"h\"}",
         "model.tanhf_ulp.hip.metric is max_ulp; expected \"ulp_difference_of_max_absolute_error\""},
        {", \"hip\": {\"figure\": 2, \"metric\": \"ulp_difference_of_max_absolute_error\", \"range\": [5, -5], "
         "\"source\": \"s\", \"host_ulp\": 2, \"host_source\": \"h\"}",
         "model.tanhf_ulp.hip.range is not a valid range; expected [lo, hi]"},
        {", \"hip\": {\"figure\": 2, \"metric\": \"ulp_difference_of_max_absolute_error\", \"range\": [-5, 5], "
         "\"source\": \"s\", \"host_ulp\": 2}",
         "model.tanhf_ulp.hip.host_source is missing; expected where the host library's error figure comes from"},
        {", \"hip\": 2", "model.tanhf_ulp.hip is an integer; expected a table {figure, metric, range, source"},
    };
    int wrong = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tp_value *mm = model(0, bad[i].entry);
        err[0] = 0;
        int r = tp_op_find("gelu_fwd")->check_model(mm, err, sizeof err);
        if (r == 0 || !strstr(err, bad[i].want)) {
            printf("# entry %zu: got \"%s\"\n", i, err);
            wrong++;
        }
        tp_value_free(mm);
    }
    tap_ok(wrong == 0, "malformed hip entries: one line naming the key and what was expected (%d wrong)", wrong);

    /* without a hip entry, hip stays refused as before */
    rc = run_op("gelu_fwd", "hip", mf_cuda, x, NULL, 1, ref, &refused, err, sizeof err);
    tap_ok(rc != 0 && strstr(err, "no documented bound for backend \"hip\""),
           "without a hip entry, hip is refused as before (%s)", err);
    tap_ok(widest > 0, "the admitted interval on hip is finite and nonempty (widest %g)", widest);

    tp_value_free(mf), tp_value_free(mb), tp_value_free(mf_cuda);
    free(x), free(g), free(ref), free(ref2);
    return tap_exit();
}
