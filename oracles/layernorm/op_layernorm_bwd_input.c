/* op "layernorm_bwd_input": per row r of x[rows, cols] (binary16), with
 * row statistics m (mean) and s (rstd),
 *   xh = (x - m) s, dxh = dy gamma,
 *   dx = s / cols * (cols dxh - sum_j dxh - xh sum_j dxh xh)   (binary16 out).
 *
 * Which m and s, and what the kernel is assumed to hold, is the model's
 * `statistics` key: one op serves two contracts of one kernel.
 *   "inputs"        the kernel's real path: m and s are the binary16 input
 *                   tensors `mean` and `rstd`; the operation is defined on
 *                   those values, and the kernel holds them exactly
 *                   (widened to fp32).
 *   "fp32_forward"  the pilot oracle's assumption: the operation uses the
 *                   exact statistics of x (eps = model.forward_eps as an
 *                   exact real), and the kernel holds any fp32 mean and
 *                   rstd that the forward kernel's model admits
 *                   (oracles/layernorm_model.c, forward_rsqrtf_ulp). The
 *                   case's `mean`/`rstd` inputs must then be the binary16
 *                   roundings of such values (checked per row): the cases
 *                   construct x so that its statistics are known.
 *
 * Model: arithmetic = "fp32", order = "any", fma = "any",
 * output_rounding = "nearest". Per row the kernel's xh is
 * RN32(RN32(x - m) s), dxh is exact in fp32, sum1 and sum2 are any-order
 * fp32 sums (sum2's products rounded or fused), k = RN32(s / cols); per
 * element dx = RN16(RN32(k ((cols dxh - sum1) - xh sum2))) with each
 * mul-add fused or not. Each step is monotone in each argument separately,
 * so evaluating it at the corners of the intervals of m, s, sum1, sum2
 * (host float arithmetic in round-to-nearest) bounds every admitted output. */
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
    int pilot; /* statistics = "fp32_forward" */
    float eps;
    int rsqrt_ulp;
} ln_bwd_model;

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_arith[] = {"fp32", NULL}, *const m_order[] = {"any", NULL}, *const m_fma[] = {"any", NULL},
                         *const m_outr[] = {"nearest", NULL}, *const m_stats[] = {"inputs", "fp32_forward", NULL};

static const tp_model_key model_keys[] = {
    {"arithmetic", m_arith, NULL},
    {"order", m_order, NULL},
    {"fma", m_fma, NULL},
    {"output_rounding", m_outr, NULL},
    {"statistics", m_stats, NULL},
    {"forward_eps", NULL, "with statistics = \"fp32_forward\": the forward kernel's eps as an fp32 literal, e.g. \"1e-5f\""},
    {"forward_rsqrtf_ulp", NULL, "with statistics = \"fp32_forward\": a table of the forward rsqrtf's documented ulp bound per backend"},
    {NULL, NULL, NULL}};

static int read_model(const tp_value *model, const char *backend, ln_bwd_model *m, char *err, size_t errlen)
{
    const char *v, *st;
    if (tp_model_choice(model, "arithmetic", m_arith, &v, err, errlen) ||
        tp_model_choice(model, "order", m_order, &v, err, errlen) ||
        tp_model_choice(model, "fma", m_fma, &v, err, errlen) ||
        tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen) ||
        tp_model_choice(model, "statistics", m_stats, &st, err, errlen))
        return -1;
    m->pilot = strcmp(st, "fp32_forward") == 0;
    m->eps = 0.0f;
    m->rsqrt_ulp = 0;
    if (!m->pilot)
        return 0;
    if (tp_ln_parse_f32(tp_value_string(tp_value_get(model, "forward_eps")), &m->eps) || !(m->eps > 0.0f)) {
        snprintf(err, errlen, "model.forward_eps must be the forward kernel's positive fp32 literal, e.g. \"1e-5f\"");
        return -1;
    }
    const tp_value *ulp = tp_value_get(tp_value_get(model, "forward_rsqrtf_ulp"), backend ? backend : "cuda");
    if (backend && (!tp_value_is_integer(ulp) || tp_value_integer(ulp) < 0)) {
        snprintf(err, errlen, "model.forward_rsqrtf_ulp has no documented bound for backend \"%s\"", backend);
        return -1;
    }
    m->rsqrt_ulp = (int)tp_value_integer(ulp);
    return 0;
}

static int bwd_check_model(const tp_value *model, char *err, size_t errlen)
{
    ln_bwd_model m;
    return read_model(model, NULL, &m, err, errlen);
}

static void upd(float v, float *lo, float *hi)
{
    *lo = fminf(*lo, v);
    *hi = fmaxf(*hi, v);
}

/* One step with FMA contraction "any": the hull of the unfused u - w and
 * the fused fmaf(fa, fb, fc) (which the model makes equal to u - w over
 * the reals), or 0 where a requires fails. */
/* The kernel's xh = RN32(RN32(x - m) s) over m in M, s in S: the proven
 * interval difference and product (oracles/common/proven/tp_ival.c,
 * tp_ival_mul.c) where their requires hold, else the same corners on the
 * host. */
static tp_ln_fint xh_of(float x, tp_ln_fint M, tp_ln_fint S)
{
    const tp_ival32 xv = {x, x}, mv = {M.lo, M.hi}, sv = {S.lo, S.hi};
    if (tp_ival32_addsub_ok(xv, mv)) {
        const tp_ival32 d = tp_ival32_sub(xv, mv);
        if (tp_ival32_mul_ok(d, sv)) {
            const tp_ival32 p = tp_ival32_mul(d, sv);
            const tp_ln_fint r = {p.lo, p.hi};
            return r;
        }
    }
    const float dlo = x - M.hi, dhi = x - M.lo;
    const float c[4] = {dlo * S.lo, dlo * S.hi, dhi * S.lo, dhi * S.hi};
    const tp_ln_fint r = {fminf(fminf(c[0], c[1]), fminf(c[2], c[3])), fmaxf(fmaxf(c[0], c[1]), fmaxf(c[2], c[3]))};
    return r;
}

static int sub_or_fma(tp_ival32 u, tp_ival32 w, tp_ival32 fa, tp_ival32 fb, tp_ival32 fc, tp_ival32 *r)
{
    if (!tp_ival32_addsub_ok(u, w) || !tp_ival32_fma_ok(fa, fb, fc))
        return 0;
    const tp_ival32 d = tp_ival32_sub(u, w), f = tp_ival32_fma(fa, fb, fc);
    r->lo = fminf(d.lo, f.lo);
    r->hi = fmaxf(d.hi, f.hi);
    return 1;
}

/* The model's steps on binary32 intervals, through the proven primitives
 * (oracles/common/proven/tp_ival*.c, T3): a = n dxh - s1 (unfused, or
 * fmaf(n, dxh, -s1)), b = a - xh s2 (unfused, or fmaf(-xh, s2, a)),
 * y = k b, each FMA-contraction choice the hull of both. Negation is exact.
 * Returns 0 where a primitive's requires fails (the caller then evaluates
 * the corners itself). */
static int dx_proven(tp_ln_fint xh, float dxh, tp_ln_fint s1, tp_ln_fint s2, tp_ln_fint k, float n, float *ylo,
                     float *yhi)
{
    const tp_ival32 nv = {n, n}, dv = {dxh, dxh}, s1v = {s1.lo, s1.hi}, ns1 = {-s1.hi, -s1.lo};
    const tp_ival32 xv = {xh.lo, xh.hi}, nx = {-xh.hi, -xh.lo}, s2v = {s2.lo, s2.hi}, kv = {k.lo, k.hi};
    tp_ival32 a, b;
    if (!tp_ival32_mul_ok(nv, dv) || !sub_or_fma(tp_ival32_mul(nv, dv), s1v, nv, dv, ns1, &a) ||
        !tp_ival32_mul_ok(xv, s2v) || !sub_or_fma(a, tp_ival32_mul(xv, s2v), nx, s2v, a, &b) ||
        !tp_ival32_mul_ok(kv, b))
        return 0;
    const tp_ival32 y = tp_ival32_mul(kv, b);
    *ylo = y.lo;
    *yhi = y.hi;
    return 1;
}

/* The outputs (in format out) the model admits for one element; exact is
 * the exact dx, toward which the test-only tp_bound_shrink narrows the fp32
 * hull before its rounding to the output's format. The proven primitives
 * (dx_proven) where their requires hold, else the same corners on the
 * host (the same values: each step is monotone). */
static void dx_admitted(const tp_format *out, double exact, tp_ln_fint xh, float dxh, tp_ln_fint s1, tp_ln_fint s2,
                        tp_ln_fint k, float n, double *lo, double *hi)
{
    float alo = INFINITY, ahi = -INFINITY, blo = INFINITY, bhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    if (!dx_proven(xh, dxh, s1, s2, k, n, &ylo, &yhi)) {
        const float nd = n * dxh;
        upd(nd - s1.hi, &alo, &ahi);
        upd(fmaf(n, dxh, -s1.hi), &alo, &ahi);
        upd(nd - s1.lo, &alo, &ahi);
        upd(fmaf(n, dxh, -s1.lo), &alo, &ahi);
        const float as[2] = {alo, ahi}, xs[2] = {xh.lo, xh.hi}, qs[2] = {s2.lo, s2.hi}, ks[2] = {k.lo, k.hi};
        for (int a = 0; a < 2; a++)
            for (int i = 0; i < 2; i++)
                for (int q = 0; q < 2; q++) {
                    upd(as[a] - xs[i] * qs[q], &blo, &bhi);
                    upd(fmaf(-xs[i], qs[q], as[a]), &blo, &bhi);
                }
        for (int i = 0; i < 2; i++) {
            upd(ks[i] * blo, &ylo, &yhi);
            upd(ks[i] * bhi, &ylo, &yhi);
        }
    }
    double dlo = ylo, dhi = yhi;
    tp_bound_shrink(exact, &dlo, &dhi);
    *lo = tp_round_lower(out, dlo);
    *hi = tp_round_upper(out, dhi);
}

/* One row; fm, fs are the formats of the fed mean and rstd, out that of
 * dx. Returns 0, or -1 (message in err) when the pilot's inputs are not
 * roundings of the statistics it assumes. */
static int row(const ln_bwd_model *md, const tp_format *fm, const tp_format *fs, const tp_format *out, int r,
               int cols, const float *x, const float *dy, const float *g, float m16, float s16, tp_ref *ref, char *err,
               size_t errlen)
{
    const float n = (float)cols;
    tp_ln_fint M = {m16, m16}, S = {s16, s16};
    mpfi_t mu, rho, t, u, S1e, P;
    mpfi_init2(mu, TP_LN_PREC);
    mpfi_init2(rho, TP_LN_PREC);
    mpfi_init2(t, TP_LN_PREC);
    mpfi_init2(u, TP_LN_PREC);
    mpfi_init2(S1e, TP_LN_PREC);
    mpfi_init2(P, TP_LN_PREC);
    int rc = 0;
    if (md->pilot) {
        if (tp_ln_row_stats(cols, x, md->eps, md->rsqrt_ulp, &M, &S, mu, rho) != 0) {
            snprintf(err, errlen, "layernorm_bwd_input: row %d: an exact row sum failed its exactness check", r);
            rc = -1;
            goto out;
        }
        double mlo = tp_round_lower(fm, M.lo), mhi = tp_round_upper(fm, M.hi);
        double slo = tp_round_lower(fs, S.lo), shi = tp_round_upper(fs, S.hi);
        if (!(mlo <= m16 && m16 <= mhi && slo <= s16 && s16 <= shi)) {
            snprintf(err, errlen,
                     "layernorm_bwd_input (statistics = fp32_forward): row %d feeds mean %.9g, rstd %.9g, but the "
                     "binary16 roundings of the fp32 statistics of x lie in [%.9g, %.9g] and [%.9g, %.9g]: "
                     "construct x so that its statistics are known (e.g. antimirror rows)",
                     r, (double)m16, (double)s16, mlo, mhi, slo, shi);
            rc = -1;
            goto out;
        }
    } else {
        mpfi_set_d(mu, (double)m16);
        mpfi_set_d(rho, (double)s16);
    }
    /* sum1: exact sum of dxh = dy*gamma (products of binary16: exact) */
    mpfr_t s1x;
    mpfr_init2(s1x, TP_LN_EXACT_PREC);
    if (tp_ln_row_sum_exact(cols, dy, g, s1x) != 0) {
        mpfr_clear(s1x);
        snprintf(err, errlen, "layernorm_bwd_input: row %d: the exact sum of dy*gamma failed", r);
        rc = -1;
        goto out;
    }
    mpfi_set_fr(S1e, s1x); /* exact: TP_LN_PREC >= TP_LN_EXACT_PREC */
    int saved = fegetround();
    fesetround(FE_UPWARD);
    double a1 = 0.0, p2hi = 0.0, a2 = 0.0; /* a1 exact up to 2^13 terms, rounded up beyond */
    for (int j = 0; j < cols; j++)
        a1 += fabs((double)dy[j] * (double)g[j]);
    fesetround(FE_TONEAREST);
    const tp_ln_fint s1 = tp_ln_sum_model_exact(s1x, a1, cols);
    mpfr_clear(s1x);
    /* the kernel's xh per element (an interval when m, s are), and sum2 */
    tp_ln_fint *xh = malloc((size_t)cols * sizeof *xh);
    if (!xh) {
        snprintf(err, errlen, "layernorm_bwd_input: out of memory");
        rc = -1;
        fesetround(saved);
        goto out;
    }
    double p2lo = 0.0;
    for (int j = 0; j < cols; j++) {
        fesetround(FE_TONEAREST);
        xh[j] = xh_of(x[j], M, S);
        /* dxh * xh is exact in double (22 + 24 significant bits) */
        const double dxh = (double)dy[j] * (double)g[j], e1 = dxh * xh[j].lo, e2 = dxh * xh[j].hi;
        fesetround(FE_DOWNWARD);
        p2lo += fmin(e1, e2);
        fesetround(FE_UPWARD);
        p2hi += fmax(e1, e2);
        a2 += fmax(fabs(e1), fabs(e2));
    }
    fesetround(FE_TONEAREST);
    tp_ln_fint s2 = tp_ln_sum_model(p2lo, p2hi, a2, cols, 1);
    const tp_ln_fint k = tp_ln_div_n(S, n);
    /* exact: sum2 = rho (sum dxh x - mu sum1) */
    mpfi_set_ui(P, 0);
    for (int j = 0; j < cols; j++) {
        mpfi_set_d(t, (double)dy[j] * (double)g[j]);
        mpfi_mul_d(t, t, (double)x[j]);
        mpfi_add(P, P, t);
    }
    mpfi_mul(t, mu, S1e);
    mpfi_sub(P, P, t);
    mpfi_mul(P, P, rho);
    for (int j = 0; j < cols; j++) {
        tp_ref *e = &ref[j];
        const float dxh = dy[j] * g[j];
        mpfi_d_sub(t, (double)x[j], mu);
        mpfi_mul(t, t, rho);  /* xh */
        mpfi_mul(t, t, P);    /* xh sum2 */
        mpfi_set_d(u, (double)dxh);
        mpfi_mul_ui(u, u, (unsigned long)cols);
        mpfi_sub(u, u, S1e);
        mpfi_sub(u, u, t);
        mpfi_mul(u, u, rho);
        mpfi_div_ui(u, u, (unsigned long)cols);
        tp_ln_enclosure(u, &e->exact_lo, &e->exact, &e->exact_hi);
        dx_admitted(out, e->exact, xh[j], dxh, s1, s2, k, n, &e->allow_lo, &e->allow_hi);
    }
    free(xh);
    fesetround(saved);
out:
    mpfi_clear(mu);
    mpfi_clear(rho);
    mpfi_clear(t);
    mpfi_clear(u);
    mpfi_clear(S1e);
    mpfi_clear(P);
    return rc;
}

static int bwd_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                         size_t errlen)
{
    ln_bwd_model md;
    if (read_model(model, c->backend, &md, err, errlen) != 0)
        return -1;
    const char *names[] = {"x", "dy", "gamma", "mean", "rstd"};
    const tp_tensor *T[5];
    for (int i = 0; i < 5; i++)
        if (!(T[i] = tp_need_f16(c, "layernorm_bwd_input", names[i], err, errlen)))
            return -1;
    const tp_tensor *O = tp_need_f16(c, "layernorm_bwd_input", output, err, errlen);
    if (!O)
        return -1;
    if (T[0]->rank != 2 || T[1]->numel != T[0]->numel || O->numel != T[0]->numel || T[2]->numel != T[0]->shape[1] ||
        T[3]->numel != T[0]->shape[0] || T[4]->numel != T[0]->shape[0]) {
        snprintf(err, errlen, "layernorm_bwd_input: x, dy, %s rows x cols; gamma cols; mean, rstd rows", output);
        return -1;
    }
    const int rows = (int)T[0]->shape[0], cols = (int)T[0]->shape[1];
    if (cols > TP_LN_COLS_MAX) {
        snprintf(err, errlen, "layernorm_bwd_input: cols = %d; the exact sums need cols <= %d", cols, TP_LN_COLS_MAX);
        return -1;
    }
    const uint16_t *x16 = T[0]->data, *dy16 = T[1]->data, *g16 = T[2]->data, *m16 = T[3]->data, *s16 = T[4]->data;
    const tp_format *fx = tp_format_of(T[0]->dtype), *fdy = tp_format_of(T[1]->dtype), *fg = tp_format_of(T[2]->dtype),
                    *fm = tp_format_of(T[3]->dtype), *fs = tp_format_of(T[4]->dtype), *fo = tp_format_of(O->dtype);
    float *g = malloc((size_t)cols * sizeof *g);
    if (!g) {
        snprintf(err, errlen, "layernorm_bwd_input: out of memory");
        return -1;
    }
    for (int j = 0; j < cols; j++)
        g[j] = (float)fg->decode(g16[j]);
    int rc = 0;
#pragma omp parallel
    {
        float *x = malloc((size_t)cols * sizeof *x), *dy = malloc((size_t)cols * sizeof *dy);
        char e2[400] = "";
#pragma omp for schedule(dynamic, 4)
        for (int r = 0; r < rows; r++) {
            int bad = !x || !dy;
            if (bad)
                snprintf(e2, sizeof e2, "layernorm_bwd_input: out of memory");
            for (int j = 0; !bad && j < cols; j++) {
                x[j] = (float)fx->decode(x16[(size_t)r * cols + j]);
                dy[j] = (float)fdy->decode(dy16[(size_t)r * cols + j]);
            }
            if (bad || row(&md, fm, fs, fo, r, cols, x, dy, g, (float)fm->decode(m16[r]), (float)fs->decode(s16[r]),
                           ref + (size_t)r * cols, e2, sizeof e2) != 0) {
#pragma omp critical(ln_bwd_err)
                if (!rc) {
                    rc = -1;
                    snprintf(err, errlen, "%s", e2);
                }
            }
        }
        free(x);
        free(dy);
    }
    free(g);
    return rc;
}

static const tp_statement bwd_exact = {
    "layernorm_bwd_input.exact.split_double_mpfi", TP_EVIDENCE,
    "exact sum of dy*gamma by split-double accumulation (oracles/layernorm/proven/layernorm.c, WP-proven exact in "
    "the IEEE float model for binary16 inputs); dx as an MPFI enclosure at 256 bits"};
static const tp_statement bwd_exact_chunked = {
    "layernorm_bwd_input.exact.chunked", TP_EVIDENCE,
    "rows longer than 8192: the proven row sums on chunks of 8192, the chunks' hi and lo added in MPFR at 128 bits, each addition checked exact (oracles/layernorm/layernorm_exact.c)"};
static const tp_statement bwd_stats_inputs = {
    "layernorm_bwd_input.statistics.inputs", TP_EVIDENCE,
    "statistics = inputs: the operation on the given binary16 mean and rstd, which the kernel holds exactly"};
static const tp_statement bwd_stats_forward = {
    "layernorm_bwd_input.statistics.fp32_forward", TP_EVIDENCE,
    "statistics = fp32_forward: the exact statistics of x, the kernel assumed to hold any fp32 mean and rstd the "
    "forward model admits, and the fed binary16 values checked to be roundings of those"};
static const tp_statement bwd_bound = {
    "layernorm_bwd_input.bound.corners", TP_EVIDENCE,
    "any-order fp32 sums (gamma_n bound), dx admitted at the corners of the statistics and sum intervals, each "
    "mul-add fused or not, then RN16"};
static const tp_statement bwd_order_hidden = {
    "layernorm_bwd_input.nonclaim.order_hidden", TP_NON_CLAIM,
    "the sum bounds are worst cases over all orders: they do not reveal the kernel's order"};
static const tp_statement bwd_known_statistics = {
    "layernorm_bwd_input.nonclaim.known_statistics", TP_NON_CLAIM,
    "statistics = fp32_forward needs x whose statistics are known in advance; it says nothing about other inputs"};
static const tp_statement *const bwd_statements[] = {&bwd_exact,  &bwd_exact_chunked, &bwd_stats_inputs, &bwd_stats_forward,
                                                     &bwd_bound,  &bwd_order_hidden, &bwd_known_statistics,
                                                     NULL};

/* Which statistics the reference used is read_model's md.pilot. */
static void bwd_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    ln_bwd_model md;
    char err[300];
    int pilot = read_model(model, c->backend, &md, err, sizeof err) == 0 && md.pilot;
    tp_say(out, &bwd_exact);
    const tp_tensor *X = tp_case_tensor(c, "x");
    if (X && X->rank == 2 && X->shape[1] > TP_LN_N_MAX) /* rows longer than one proven chunk */
        tp_say(out, &bwd_exact_chunked);
    tp_say(out, pilot ? &bwd_stats_forward : &bwd_stats_inputs);
    tp_say(out, &bwd_bound);
    tp_say(out, &bwd_order_hidden);
    if (pilot)
        tp_say(out, &bwd_known_statistics);
}

const tp_op tp_op_layernorm_bwd_input = {
    "layernorm_bwd_input", "dx = rstd/n (n dy gamma - sum dy gamma - xh sum dy gamma xh), xh = (x - mean) rstd",
    bwd_check_model, bwd_reference, bwd_say, bwd_statements, TP_DTYPE_BIT(TP_F16), model_keys,
    TP_DTYPE_BIT(TP_F16), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
