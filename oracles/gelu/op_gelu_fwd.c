/* op "gelu_fwd": y = 0.5 x (1 + tanh(c (x + a x^3))), the tanh-form GELU
 * with the kernel's fp32 constants c and a.
 *
 * Model (contract [model]): arithmetic = "fp32", fma = "any" | "no",
 * output_rounding = "nearest", the two constants as the kernel spells
 * them, and tanhf_ulp per backend. y depends on x alone and x is
 * binary16, so the exact value and the set of fp32 values the kernel can
 * form are tabulated once per model for all 65536 patterns
 * (oracles/gelu_fwd_tables.c); per element only a lookup remains
 * (oracles/gelu_fwd.c, proven). The kernel's output is RN16 of a value in
 * the fp32 set; RN16 is monotone, so the admitted interval is
 * [RN16(lo), RN16(hi)]. */
#include "oracles/gelu/proven/gelu_fwd.h"
#include "oracles/gelu/gelu_fwd_tables.h"
#include "oracles/gelu/gelu_hip.h"
#include "oracles/common/op_common.h"
#include "core/tp_format.h"
#include "oracles/common/round_ends.h"

#include <math.h>
#include <stdlib.h>

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_arith[] = {"fp32", NULL}, *const m_fma[] = {"any", "no", NULL},
                         *const m_outr[] = {"nearest", NULL};

static const tp_model_key model_keys[] = {
    {"arithmetic", m_arith, NULL},
    {"fma", m_fma, NULL},
    {"output_rounding", m_outr, NULL},
    {"constants", NULL, "a table of the fp32 literals c, a as the kernel spells them, e.g. \"0.044715f\""},
    {"tanhf_ulp", NULL, "a table of the device tanhf's documented bound per backend: cuda an ulp count, hip a "
                        "table {figure, metric, range, source, host_ulp, host_source} (README.md#hip-device-math)"},
    {NULL, NULL, NULL}};

static int read_model(const tp_value *model, const char *backend, tp_gelu_fwd_model *m, char *err, size_t errlen)
{
    const char *fv, *v;
    if (tp_model_choice(model, "arithmetic", m_arith, &v, err, errlen) ||
        tp_model_choice(model, "fma", m_fma, &fv, err, errlen) ||
        tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen))
        return -1;
    const tp_value *k = tp_value_get(model, "constants");
    const char *names[] = {"c", "a"};
    float *dst[] = {&m->c, &m->a};
    for (int i = 0; i < 2; i++) {
        const char *s = tp_value_string(tp_value_get(k, names[i]));
        if (tp_parse_f32(s, dst[i]) != 0 || !isfinite(*dst[i])) {
            snprintf(err, errlen, "model.constants.%s must be a finite fp32 literal such as \"0.044715f\"", names[i]);
            return -1;
        }
    }
    m->fma_any = strcmp(fv, "any") == 0;
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
    if (ulp && (!tp_value_is_integer(ulp) || tp_value_integer(ulp) < 0 || tp_value_integer(ulp) > 1000)) {
        snprintf(err, errlen, "model.tanhf_ulp.%s must be an integer in 0 .. 1000", backend ? backend : "cuda");
        return -1;
    }
    m->tanh_ulp = (int)tp_value_integer(ulp);
    return 0;
}

/* On HIP, every tanhf argument of the case must lie in the figure's
 * documented test range: refused before the launch otherwise. */
static int gelu_fwd_check_case(const tp_value *model, const tp_case *c, char *err, size_t errlen)
{
    tp_gelu_fwd_model m;
    memset(&m, 0, sizeof m);
    if (read_model(model, c->backend, &m, err, errlen) != 0 || m.tanh_abs == 0)
        return 0; /* not on a HIP figure; a bad model is the reference's to report */
    return tp_gelu_hip_check_case("gelu_fwd", model, c, m.c, m.a, m.fma_any, err, errlen);
}

static int gelu_fwd_check_model(const tp_value *model, char *err, size_t errlen)
{
    tp_gelu_fwd_model m;
    return read_model(model, NULL, &m, err, errlen);
}

/* One table pair per distinct model: a run checks many cases of one
 * contract, and the tables take a noticeable fraction of a second. */
static struct {
    int valid;
    tp_gelu_fwd_model m;
    tp_interval *exact_y, *model_y;
} cache;

static int tables_for(const tp_gelu_fwd_model *m, char *err, size_t errlen)
{
    if (cache.valid && memcmp(&cache.m, m, sizeof *m) == 0)
        return 0;
    if (!cache.exact_y) {
        cache.exact_y = malloc(TP_GELU_FWD_TABLE_SIZE * sizeof *cache.exact_y);
        cache.model_y = malloc(TP_GELU_FWD_TABLE_SIZE * sizeof *cache.model_y);
    }
    if (!cache.exact_y || !cache.model_y || tp_gelu_fwd_tables_build(m, cache.exact_y, cache.model_y) != 0) {
        snprintf(err, errlen, "gelu_fwd: cannot build the tables");
        cache.valid = 0;
        return -1;
    }
    cache.m = *m;
    cache.valid = 1;
    return 0;
}

static int gelu_fwd_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                              size_t errlen)
{
    tp_gelu_fwd_model m;
    memset(&m, 0, sizeof m);
    if (read_model(model, c->backend, &m, err, errlen) != 0)
        return -1;
    const tp_tensor *x = tp_need_f16(c, "gelu_fwd", "x", err, errlen),
                    *y = x ? tp_need_f16(c, "gelu_fwd", output, err, errlen) : NULL;
    if (!y)
        return -1;
    if (x->numel != y->numel || x->numel > 0x7fffffff) {
        snprintf(err, errlen, "gelu_fwd: x and %s must have the same number of elements (below 2^31)", output);
        return -1;
    }
    if (m.tanh_abs > 0 && gelu_fwd_check_case(model, c, err, errlen) != 0)
        return -1; /* never admit an element the figure does not cover */
    if (tables_for(&m, err, errlen) != 0)
        return -1;
    int n = (int)x->numel;
    tp_interval *ex = malloc((size_t)n * sizeof *ex), *mo = malloc((size_t)n * sizeof *mo);
    if (!ex || !mo) {
        free(ex), free(mo);
        snprintf(err, errlen, "gelu_fwd: out of memory");
        return -1;
    }
    tp_gelu_fwd_ref(n, x->data, cache.exact_y, cache.model_y, ex, mo);
    const tp_format *fo = tp_format_of(y->dtype);
    for (int i = 0; i < n; i++) {
        ref[i].exact_lo = ex[i].lo;
        ref[i].exact_hi = ex[i].hi;
        ref[i].exact = ex[i].lo + 0.5 * (ex[i].hi - ex[i].lo);
        /* model ends are binary32 values (the binary32 rounding leaves
         * them as they are): one rounding to the output's format. The
         * test-only shrink acts on the fp32 hull before that rounding
         * (a no-op at its default scale 1). */
        double lo = mo[i].lo, hi = mo[i].hi;
        tp_bound_shrink(ref[i].exact, &lo, &hi);
        ref[i].allow_lo = tp_round_lower(fo, tp_round_lower(&tp_binary32, lo));
        ref[i].allow_hi = tp_round_upper(fo, tp_round_upper(&tp_binary32, hi));
    }
    free(ex), free(mo);
    return 0;
}

static const tp_statement gelu_fwd_exact = {
    "gelu_fwd.exact.mpfi_table", TP_EVIDENCE,
    "exact y(x) enclosed with MPFI at 80 bits as x / (1 + e^{-2z}), free of cancellation, for every binary16 x "
    "(oracles/gelu/gelu_fwd_tables.c); per-element lookup WP-proven T1+T2 (oracles/gelu/proven/gelu_fwd.c)"};
/* %s: how x + a*x3 may be evaluated, as the model's fma says */
static const tp_statement gelu_fwd_bound = {
    "gelu_fwd.bound.fp32_hull", TP_EVIDENCE,
    "admitted interval: the exact hull of every fp32 value the kernel can form, enumerated per x (each operation "
    "rounded to nearest, x + a*x3 %s, tanhf within the documented ulp of the correctly rounded tanh), "
    "then rounded to binary16"};
static const tp_statement gelu_fwd_vendor_tanhf = {
    "gelu_fwd.nonclaim.vendor_tanhf", TP_NON_CLAIM,
    "the vendor's tanhf ulp bound is stated as measured by extensive but not exhaustive tests, not guaranteed"};
static const tp_statement gelu_fwd_wide_negative_x = {
    "gelu_fwd.nonclaim.wide_negative_x", TP_NON_CLAIM,
    "for x below about -9 the 2-ulp tanhf allowance around -1 admits outputs up to |x| 2^-23 while the exact y is "
    "nearly 0: errors there below that width are not detected"};
static const tp_statement *const gelu_fwd_statements[] = {&gelu_fwd_exact, &gelu_fwd_bound, &gelu_fwd_vendor_tanhf,
                                                          &gelu_fwd_wide_negative_x, &tp_gelu_fwd_hip[0],
                                                          &tp_gelu_fwd_hip[1], &tp_gelu_fwd_hip[2], NULL};

/* The fp32 set was enumerated with the model's fma choice (m.fma_any). */
static void gelu_fwd_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    tp_gelu_fwd_model m;
    char err[200];
    memset(&m, 0, sizeof m);
    int fma_any = read_model(model, c->backend, &m, err, sizeof err) != 0 || m.fma_any;
    tp_say(out, &gelu_fwd_exact);
    if (m.tanh_abs > 0) { /* HIP, on the documented figure */
        tp_gelu_hip_say(tp_gelu_fwd_hip, model, fma_any ? "x + a*x3 fused or not" : "x + a*x3 not fused", out);
        return;
    }
    tp_say(out, &gelu_fwd_bound, fma_any ? "fused or not" : "not fused");
    tp_say(out, &gelu_fwd_vendor_tanhf);
    tp_say(out, &gelu_fwd_wide_negative_x);
}

const tp_op tp_op_gelu_fwd = {"gelu_fwd", "y = 0.5 x (1 + tanh(c (x + a x^3)))", gelu_fwd_check_model,
                              gelu_fwd_reference, gelu_fwd_say, gelu_fwd_statements, TP_DTYPE_BIT(TP_F16),
                              model_keys,
    TP_DTYPE_BIT(TP_F16), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, gelu_fwd_check_case,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
