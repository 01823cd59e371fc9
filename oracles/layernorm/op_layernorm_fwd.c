/* op "layernorm_fwd": per row r of x[rows, cols] (binary16),
 *   mu = sum_j x / cols, var = sum_j (x - mu)^2 / cols, rho = 1/sqrt(var + eps),
 *   y = (x - mu) rho gamma + beta   (binary16 out),
 *   mean = mu, rstd = rho            (binary32 out),
 * with eps the kernel's fp32 literal taken as an exact real.
 *
 * Model (contract [model]): arithmetic = "fp32", order = "any",
 * fma = "any", output_rounding = "nearest", constants.eps, rsqrtf_ulp per
 * backend. The fp32 mean and rstd the kernel can produce are intervals
 * shared by the row (oracles/layernorm_model.c); per element,
 *   d = RN32(x - mean), t = RN32(d * rstd), y32 = RN32(RN32(t * gamma) + beta)
 *   or fmaf(t, gamma, beta), y = RN16(y32):
 * each step is monotone in each argument, so evaluating it at the corners
 * of the mean and rstd intervals (host float arithmetic in
 * round-to-nearest, the kernel's own operations) bounds every output the
 * model admits. Exact values are MPFI enclosures from exact sums
 * (oracles/layernorm.c). */
#include "oracles/layernorm/layernorm_exact.h"
#include "oracles/layernorm/layernorm_model.h"
#include "oracles/layernorm/proven/layernorm_cols.h" /* TP_LN_N_MAX */
#include "oracles/common/op_common.h"
#include "core/tp_format.h"
#include "oracles/common/round_ends.h"
#include "oracles/common/ival_guard.h"
#include "oracles/common/proven/tp_ival_fma.h"
#include "oracles/common/proven/tp_ival_mul.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>

typedef struct {
    float eps;
    int rsqrt_ulp;
} ln_fwd_model;

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_arith[] = {"fp32", NULL}, *const m_order[] = {"any", NULL}, *const m_fma[] = {"any", NULL},
                         *const m_outr[] = {"nearest", NULL};

static const tp_model_key model_keys[] = {
    {"arithmetic", m_arith, NULL},
    {"order", m_order, NULL},
    {"fma", m_fma, NULL},
    {"output_rounding", m_outr, NULL},
    {"constants", NULL, "a table with eps, the kernel's fp32 literal, e.g. \"1e-5f\""},
    {"rsqrtf_ulp", NULL, "a table of the device rsqrtf's documented ulp bound per backend (cuda, hip)"},
    {NULL, NULL, NULL}};

static int read_model(const tp_value *model, const char *backend, ln_fwd_model *m, char *err, size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "arithmetic", m_arith, &v, err, errlen) ||
        tp_model_choice(model, "order", m_order, &v, err, errlen) ||
        tp_model_choice(model, "fma", m_fma, &v, err, errlen) ||
        tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen))
        return -1;
    if (tp_ln_parse_f32(tp_value_string(tp_value_get(tp_value_get(model, "constants"), "eps")), &m->eps) ||
        !(m->eps > 0.0f)) {
        snprintf(err, errlen, "model.constants.eps must be a positive fp32 literal such as \"1e-5f\"");
        return -1;
    }
    const tp_value *ulp = tp_value_get(tp_value_get(model, "rsqrtf_ulp"), backend ? backend : "cuda");
    if (backend && (!tp_value_is_integer(ulp) || tp_value_integer(ulp) < 0)) {
        snprintf(err, errlen, "model.rsqrtf_ulp has no documented bound for backend \"%s\"", backend);
        return -1;
    }
    m->rsqrt_ulp = (int)tp_value_integer(ulp);
    return 0;
}

static int fwd_check_model(const tp_value *model, char *err, size_t errlen)
{
    ln_fwd_model m;
    return read_model(model, NULL, &m, err, errlen);
}

static float min4(float a, float b, float c, float d) { return fminf(fminf(a, b), fminf(c, d)); }
static float max4(float a, float b, float c, float d) { return fmaxf(fmaxf(a, b), fmaxf(c, d)); }

/* The outputs (in format out) the model admits for one element; exact is
 * the exact y, toward which the test-only tp_bound_shrink narrows the fp32
 * hull before its rounding to the output's format. d, t, the unfused
 * y32 = RN32(RN32(t gamma) + beta) and the fused fmaf(t, gamma, beta) come
 * from the proven binary32 interval primitives (oracles/common/proven/
 * tp_ival.c, tp_ival_mul.c, tp_ival_fma.c, T3) where their requires hold,
 * and y32's interval is the hull of the two (FMA contraction "any"); where
 * a requires fails, the host's own float arithmetic at the corners (the
 * same values: each step is monotone). */
static void y_admitted(const tp_format *out, double exact, float x, float g, float b, tp_ln_fint m, tp_ln_fint r,
                       double *lo, double *hi)
{
    const tp_ival32 xv = {x, x}, mv = {m.lo, m.hi}, rv = {r.lo, r.hi}, gv = {g, g}, bv = {b, b};
    tp_ival32 t = {0, 0}, u = {0, 0}, f = {0, 0};
    int proven = tp_ival32_addsub_ok(xv, mv);
    if (proven) {
        const tp_ival32 d = tp_ival32_sub(xv, mv);
        proven = tp_ival32_mul_ok(d, rv);
        if (proven)
            t = tp_ival32_mul(d, rv);
    }
    if (proven && (proven = tp_ival32_mul_ok(t, gv)) != 0) {
        const tp_ival32 tg = tp_ival32_mul(t, gv);
        proven = tp_ival32_addsub_ok(tg, bv) && tp_ival32_fma_ok(t, gv, bv);
        if (proven) {
            u = tp_ival32_add(tg, bv);
            f = tp_ival32_fma(t, gv, bv);
        }
    }
    double ylo, yhi;
    if (proven) {
        ylo = fminf(u.lo, f.lo);
        yhi = fmaxf(u.hi, f.hi);
    } else {
        float dlo = x - m.hi, dhi = x - m.lo;
        float tlo = min4(dlo * r.lo, dlo * r.hi, dhi * r.lo, dhi * r.hi);
        float thi = max4(dlo * r.lo, dlo * r.hi, dhi * r.lo, dhi * r.hi);
        float ua = tlo * g, ub = thi * g;
        float y1 = ua + b, y2 = ub + b, y3 = fmaf(tlo, g, b), y4 = fmaf(thi, g, b);
        ylo = min4(y1, y2, y3, y4);
        yhi = max4(y1, y2, y3, y4);
    }
    tp_bound_shrink(exact, &ylo, &yhi);
    *lo = tp_round_lower(out, ylo);
    *hi = tp_round_upper(out, yhi);
}

/* The test-only shrink of an fp32 output (mean, rstd): the model's
 * interval [lo, hi] of floats, each end already the kernel's own fp32
 * result with no rounding after it, narrowed toward exact; the admitted set
 * is then the floats inside the narrowed interval. At scale 1 the ends come
 * back unchanged. */
static void f32_admitted(double exact, tp_ln_fint v, double *lo, double *hi)
{
    double a = v.lo, b = v.hi;
    tp_bound_shrink(exact, &a, &b);
    *lo = tp_ln_f32_up(a);
    *hi = tp_ln_f32_down(b);
}

static int fwd_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                         size_t errlen)
{
    ln_fwd_model m;
    if (read_model(model, c->backend, &m, err, errlen) != 0)
        return -1;
    const tp_tensor *X = tp_need_f16(c, "layernorm_fwd", "x", err, errlen);
    const tp_tensor *G = X ? tp_need_f16(c, "layernorm_fwd", "gamma", err, errlen) : NULL;
    const tp_tensor *B = G ? tp_need_f16(c, "layernorm_fwd", "beta", err, errlen) : NULL;
    const tp_tensor *O = tp_case_tensor(c, output);
    if (!B)
        return -1;
    int which = strcmp(output, "y") == 0 ? 0 : strcmp(output, "mean") == 0 ? 1 : strcmp(output, "rstd") == 0 ? 2 : -1;
    if (which < 0 || !O || O->dtype != (which == 0 ? TP_F16 : TP_F32)) {
        snprintf(err, errlen, "layernorm_fwd: outputs are y (f16), mean and rstd (f32); got %s", output);
        return -1;
    }
    if (X->rank != 2 || G->numel != X->shape[1] || B->numel != X->shape[1] ||
        O->numel != (which == 0 ? X->numel : X->shape[0])) {
        snprintf(err, errlen, "layernorm_fwd: x must be rows x cols, gamma and beta cols, y rows x cols, mean and rstd rows");
        return -1;
    }
    const int rows = (int)X->shape[0], cols = (int)X->shape[1];
    if (cols > TP_LN_COLS_MAX) {
        snprintf(err, errlen, "layernorm_fwd: cols = %d; the exact sums need cols <= %d", cols, TP_LN_COLS_MAX);
        return -1;
    }
    const uint16_t *x16 = X->data, *g16 = G->data, *b16 = B->data;
    const tp_format *fx = tp_format_of(X->dtype), *fg = tp_format_of(G->dtype), *fb = tp_format_of(B->dtype),
                    *fo = tp_format_of(O->dtype);
    float *gf = malloc((size_t)cols * sizeof *gf), *bf = malloc((size_t)cols * sizeof *bf);
    if (!gf || !bf) {
        free(gf), free(bf);
        snprintf(err, errlen, "layernorm_fwd: out of memory");
        return -1;
    }
    for (int j = 0; j < cols; j++) {
        gf[j] = (float)fg->decode(g16[j]);
        bf[j] = (float)fb->decode(b16[j]);
    }
    int rc = 0;
#pragma omp parallel for schedule(dynamic, 4)
    for (int r = 0; r < rows; r++) {
        int saved = fegetround();
        fesetround(FE_TONEAREST);
        float *xr = malloc((size_t)cols * sizeof *xr);
        mpfi_t mu, rho, t;
        mpfi_init2(mu, TP_LN_PREC);
        mpfi_init2(rho, TP_LN_PREC);
        mpfi_init2(t, TP_LN_PREC);
        tp_ln_fint mean, rstd;
        if (!xr) {
#pragma omp atomic write
            rc = -1;
        } else {
            for (int j = 0; j < cols; j++)
                xr[j] = (float)fx->decode(x16[(size_t)r * cols + j]);
            if (tp_ln_row_stats(cols, xr, m.eps, m.rsqrt_ulp, &mean, &rstd, mu, rho) != 0) {
#pragma omp atomic write
                rc = -2; /* an exact sum failed its exactness check: cannot happen (layernorm_exact.c) */
            } else if (which == 1) {
                tp_ln_enclosure(mu, &ref[r].exact_lo, &ref[r].exact, &ref[r].exact_hi);
                f32_admitted(ref[r].exact, mean, &ref[r].allow_lo, &ref[r].allow_hi);
            } else if (which == 2) {
                tp_ln_enclosure(rho, &ref[r].exact_lo, &ref[r].exact, &ref[r].exact_hi);
                f32_admitted(ref[r].exact, rstd, &ref[r].allow_lo, &ref[r].allow_hi);
            } else {
                for (int j = 0; j < cols; j++) {
                    tp_ref *e = &ref[(size_t)r * cols + j];
                    mpfi_d_sub(t, (double)xr[j], mu);
                    mpfi_mul(t, t, rho);
                    mpfi_mul_d(t, t, (double)gf[j]);
                    mpfi_add_d(t, t, (double)bf[j]);
                    tp_ln_enclosure(t, &e->exact_lo, &e->exact, &e->exact_hi);
                    y_admitted(fo, e->exact, xr[j], gf[j], bf[j], mean, rstd, &e->allow_lo, &e->allow_hi);
                }
            }
        }
        mpfi_clear(mu);
        mpfi_clear(rho);
        mpfi_clear(t);
        free(xr);
        fesetround(saved);
    }
    free(gf);
    free(bf);
    if (rc)
        snprintf(err, errlen, rc == -2 ? "layernorm_fwd: an exact row sum failed its exactness check"
                                       : "layernorm_fwd: out of memory");
    return rc ? -1 : 0;
}

static const tp_statement fwd_exact = {
    "layernorm_fwd.exact.split_double_mpfi", TP_EVIDENCE,
    "exact row sums of x and x^2 by split-double accumulation (oracles/layernorm/proven/layernorm.c, WP-proven "
    "exact in the IEEE float model for binary16 inputs); mean, rstd and y as MPFI enclosures at 256 bits, eps the kernel's fp32 literal as an "
    "exact real"};
static const tp_statement fwd_exact_chunked = {
    "layernorm_fwd.exact.chunked", TP_EVIDENCE,
    "rows longer than 8192: the proven row sums on chunks of 8192, the chunks' hi and lo added in MPFR at 128 bits, each addition checked exact (oracles/layernorm/layernorm_exact.c)"};
static const tp_statement fwd_bound_statistics = {
    "layernorm_fwd.bound.statistics", TP_EVIDENCE,
    "fp32 mean and rstd as intervals shared by the row: any-order fp32 sums (gamma_n bound, one extra rounding per "
    "squared deviation), sum (x - m)^2 = V + n (mu - m)^2 over the mean interval, correctly rounded divisions, "
    "rsqrtf within the documented ulps of RN32"};
static const tp_statement fwd_bound_corners = {
    "layernorm_fwd.bound.corners", TP_EVIDENCE,
    "y admitted at the corners of the mean and rstd intervals, each mul-add fused or not, then RN16"};
static const tp_statement fwd_order_hidden = {
    "layernorm_fwd.nonclaim.order_hidden", TP_NON_CLAIM,
    "the sum bounds are worst cases over all orders: they do not reveal the kernel's order"};
static const tp_statement fwd_independent_statistics = {
    "layernorm_fwd.nonclaim.independent_statistics", TP_NON_CLAIM,
    "mean and rstd are treated as independent within their intervals (a hull, not the exact joint set)"};
static const tp_statement fwd_hip_refused = {"layernorm_fwd.nonclaim.hip_refused", TP_NON_CLAIM,
                                             "HIP runs are refused: ROCm documents no rsqrtf error bound to cite"};
static const tp_statement *const fwd_statements[] = {
    &fwd_exact, &fwd_exact_chunked, &fwd_bound_statistics, &fwd_bound_corners, &fwd_order_hidden, &fwd_independent_statistics,
    &fwd_hip_refused, NULL};

/* One method and one bound (the model admits one choice of each key);
 * rows longer than one proven chunk also say how the chunks combine. */
static void fwd_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)model;
    const tp_tensor *X = tp_case_tensor(c, "x");
    for (int i = 0; fwd_statements[i]; i++)
        if (fwd_statements[i] != &fwd_exact_chunked || (X && X->rank == 2 && X->shape[1] > TP_LN_N_MAX))
            tp_say(out, fwd_statements[i]);
}

const tp_op tp_op_layernorm_fwd = {"layernorm_fwd",
                                   "y = (x - mean) / sqrt(var + eps) * gamma + beta per row; mean, rstd also out",
                                   fwd_check_model, fwd_reference, fwd_say, fwd_statements, TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_F32), model_keys,
    TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_F32), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
