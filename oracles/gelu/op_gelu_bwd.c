/* op "gelu_bwd": gi = g * f(x), f the derivative of the tanh-form GELU
 * with the kernel's fp32 constants c and a:
 *   f(x) = 0.5(1+t) + 0.5 x (1-t^2) c (1+3 a x^2),  t = tanh(c (x + a x^3)).
 *
 * Model (contract [model]): arithmetic = "fp32", fma = "any", the three
 * constants as the kernel spells them, and tanhf_ulp per backend. f
 * depends on x alone and x is binary16, so both the exact factor and the
 * set of fp32 factors the kernel can form are tabulated once per model
 * for all 65536 patterns (oracles/gelu_tables.c); per element only the
 * product with g remains (oracles/gelu_bwd.c). */
#include "oracles/gelu/proven/gelu_bwd.h"
#include "oracles/gelu/gelu_tables.h"
#include "oracles/gelu/gelu_hip.h"
#include "oracles/common/op_common.h"
#include "core/tp_format.h"
#include "oracles/common/round_ends.h"

#include <math.h>
#include <stdlib.h>

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_arith[] = {"fp32", NULL}, *const m_fma[] = {"any", NULL},
                         *const m_outr[] = {"nearest", NULL};

static const tp_model_key model_keys[] = {
    {"arithmetic", m_arith, NULL},
    {"fma", m_fma, NULL},
    {"constants", NULL, "a table of the fp32 literals c, a, k3a as the kernel spells them, e.g. \"0.044715f\""},
    {"tanhf_ulp", NULL, "a table of the device tanhf's documented bound per backend: cuda an ulp count, hip a "
                        "table {figure, metric, range, source, host_ulp, host_source} (README.md#hip-device-math)"},
    {"output_rounding", m_outr, NULL}, /* optional: the reference always rounds to nearest */
    {NULL, NULL, NULL}};

static int read_model(const tp_value *model, const char *backend, tp_gelu_model *m, char *err, size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "arithmetic", m_arith, &v, err, errlen) ||
        tp_model_choice(model, "fma", m_fma, &v, err, errlen) ||
        (tp_value_get(model, "output_rounding") && tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen)))
        return -1;
    const tp_value *k = tp_value_get(model, "constants");
    const char *names[] = {"c", "a", "k3a"};
    float *dst[] = {&m->c, &m->a, &m->k3a};
    for (int i = 0; i < 3; i++) {
        const char *s = tp_value_string(tp_value_get(k, names[i]));
        if (tp_parse_f32(s, dst[i]) != 0) {
            snprintf(err, errlen, "model.constants.%s must be an fp32 literal such as \"0.044715f\"", names[i]);
            return -1;
        }
    }
    m->fma_any = 1;
    m->tanh_ulp = 0;
    m->tanh_abs = 0;
    const tp_value *hip = tp_value_get(tp_value_get(model, "tanhf_ulp"), "hip");
    tp_hip_figure fig;
    if (hip && tp_gelu_hip_figure(model, &fig, &m->tanh_abs, err, errlen) != 0)
        return -1; /* a malformed hip entry is an error on any backend */
    if (backend && strcmp(backend, "hip") == 0 && hip)
        return 0; /* the figure, not an ulp count, bounds tanhf on HIP */
    m->tanh_abs = 0;
    const tp_value *ulp = tp_value_get(tp_value_get(model, "tanhf_ulp"), backend ? backend : "cuda");
    if (backend && !tp_value_is_integer(ulp)) {
        snprintf(err, errlen, "model.tanhf_ulp has no documented bound for backend \"%s\"", backend);
        return -1;
    }
    m->tanh_ulp = (int)tp_value_integer(ulp);
    return 0;
}

/* On HIP, every tanhf argument of the case must lie in the figure's
 * documented test range: refused before the launch otherwise. */
static int gelu_bwd_check_case(const tp_value *model, const tp_case *c, char *err, size_t errlen)
{
    tp_gelu_model m;
    memset(&m, 0, sizeof m);
    if (read_model(model, c->backend, &m, err, errlen) != 0 || m.tanh_abs == 0)
        return 0; /* not on a HIP figure; a bad model is the reference's to report */
    return tp_gelu_hip_check_case("gelu_bwd", model, c, m.c, m.a, m.fma_any, err, errlen);
}

static int gelu_check_model(const tp_value *model, char *err, size_t errlen)
{
    tp_gelu_model m;
    return read_model(model, NULL, &m, err, errlen);
}

/* One table pair per distinct model: a run checks many cases of one
 * contract, and the tables take a noticeable fraction of a second. */
static struct {
    int valid;
    tp_gelu_model m;
    tp_interval *exact_f, *model_f;
} cache;

static int tables_for(const tp_gelu_model *m, char *err, size_t errlen)
{
    if (cache.valid && memcmp(&cache.m, m, sizeof *m) == 0)
        return 0;
    if (!cache.exact_f) {
        cache.exact_f = malloc(65536 * sizeof *cache.exact_f);
        cache.model_f = malloc(65536 * sizeof *cache.model_f);
    }
    if (!cache.exact_f || !cache.model_f || tp_gelu_tables_build(m, cache.exact_f, cache.model_f) != 0) {
        snprintf(err, errlen, "gelu_bwd: cannot build the factor tables");
        cache.valid = 0;
        return -1;
    }
    cache.m = *m;
    cache.valid = 1;
    return 0;
}

static int gelu_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                          size_t errlen)
{
    tp_gelu_model m;
    memset(&m, 0, sizeof m);
    if (read_model(model, c->backend, &m, err, errlen) != 0)
        return -1;
    const tp_tensor *x = tp_need_f16(c, "gelu_bwd", "x", err, errlen), *g = x ? tp_need_f16(c, "gelu_bwd", "g", err, errlen) : NULL,
                    *gi = g ? tp_need_f16(c, "gelu_bwd", output, err, errlen) : NULL;
    if (!gi)
        return -1;
    if (x->numel != g->numel || x->numel != gi->numel) {
        snprintf(err, errlen, "gelu_bwd: x, g and %s must have the same number of elements", output);
        return -1;
    }
    if (m.tanh_abs > 0 && gelu_bwd_check_case(model, c, err, errlen) != 0)
        return -1; /* never admit an element the figure does not cover */
    if (tables_for(&m, err, errlen) != 0)
        return -1;
    int n = (int)x->numel;
    float *gf = malloc((size_t)n * sizeof *gf);
    tp_interval *ex = malloc((size_t)n * sizeof *ex), *mo = malloc((size_t)n * sizeof *mo);
    if (!gf || !ex || !mo) {
        free(gf), free(ex), free(mo);
        snprintf(err, errlen, "gelu_bwd: out of memory");
        return -1;
    }
    const uint16_t *g16 = g->data;
    const tp_format *fg = tp_format_of(g->dtype), *fo = tp_format_of(gi->dtype);
    for (int i = 0; i < n; i++)
        gf[i] = (float)fg->decode(g16[i]);
    tp_gelu_bwd_ref(n, x->data, gf, cache.exact_f, cache.model_f, ex, mo);
    for (int i = 0; i < n; i++) {
        /* g * ef is exact in double except where it underflows (f below
         * 2^-1000 for x < -10): step those ends outward. */
        ref[i].exact_lo = fabs(ex[i].lo) < 0x1p-960 ? nextafter(ex[i].lo, -INFINITY) : ex[i].lo;
        ref[i].exact_hi = fabs(ex[i].hi) < 0x1p-960 ? nextafter(ex[i].hi, INFINITY) : ex[i].hi;
        ref[i].exact = ex[i].lo + 0.5 * (ex[i].hi - ex[i].lo);
        /* g*F is exact in double; the kernel rounds it to fp32, then to
         * the output's format: both roundings are monotone. The test-only
         * shrink acts on g*F before them (a no-op at its default scale 1). */
        double lo = mo[i].lo, hi = mo[i].hi;
        tp_bound_shrink(ref[i].exact, &lo, &hi);
        ref[i].allow_lo = tp_round_lower(fo, tp_round_lower(&tp_binary32, lo));
        ref[i].allow_hi = tp_round_upper(fo, tp_round_upper(&tp_binary32, hi));
    }
    free(gf), free(ex), free(mo);
    return 0;
}

static const tp_statement gelu_bwd_exact = {
    "gelu_bwd.exact.mpfi_table", TP_EVIDENCE,
    "exact factor f(x) enclosed with MPFI in a cancellation-free form for every binary16 x "
    "(oracles/gelu/gelu_tables.c)"};
static const tp_statement gelu_bwd_bound = {
    "gelu_bwd.bound.fp32_expression", TP_EVIDENCE,
    "admitted interval: every fp32 value the kernel's expression can take with each operation rounded to nearest, "
    "each a*b+c fused or not, tanhf within the documented ulp of the correctly rounded tanh, then binary16"};
static const tp_statement gelu_bwd_vendor_tanhf = {
    "gelu_bwd.nonclaim.vendor_tanhf", TP_NON_CLAIM,
    "the vendor's tanhf ulp bound is stated as measured by extensive but not exhaustive tests, not guaranteed"};
static const tp_statement gelu_bwd_wide_large_x = {
    "gelu_bwd.nonclaim.wide_large_x", TP_NON_CLAIM,
    "near |x| >= 10 the documented 2-ulp tanhf allowance (which admits tanhf > 1) makes the admitted interval wide: "
    "errors there below that width are not detected"};
static const tp_statement *const gelu_bwd_statements[] = {&gelu_bwd_exact, &gelu_bwd_bound, &gelu_bwd_vendor_tanhf,
                                                          &gelu_bwd_wide_large_x, NULL};
static const tp_statement *const gelu_bwd_all_statements[] = {&gelu_bwd_exact, &gelu_bwd_bound, &gelu_bwd_vendor_tanhf,
                                                              &gelu_bwd_wide_large_x, &tp_gelu_bwd_hip[0],
                                                              &tp_gelu_bwd_hip[1], &tp_gelu_bwd_hip[2], NULL};

/* One table method and one bound (the model admits fma = "any" only). */
static void gelu_bwd_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    tp_gelu_model m;
    char err[200];
    memset(&m, 0, sizeof m);
    if (read_model(model, c->backend, &m, err, sizeof err) == 0 && m.tanh_abs > 0) { /* HIP, on the figure */
        tp_say(out, &gelu_bwd_exact);
        tp_gelu_hip_say(tp_gelu_bwd_hip, model, "each a*b+c fused or not", out);
        return;
    }
    tp_say_all(out, gelu_bwd_statements);
}

const tp_op tp_op_gelu_bwd = {"gelu_bwd", "gi = g * d/dx[0.5 x (1 + tanh(c (x + a x^3)))]", gelu_check_model,
                              gelu_reference, gelu_bwd_say, gelu_bwd_all_statements, TP_DTYPE_BIT(TP_F16), model_keys,
    TP_DTYPE_BIT(TP_F16), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, gelu_bwd_check_case,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
