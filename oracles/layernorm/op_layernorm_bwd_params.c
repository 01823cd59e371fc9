/* op "layernorm_bwd_params": per column c of x[rows, cols] (binary16),
 *   dgamma[c] = sum_r (x[r,c] - mean[r]) rstd[r] dy[r,c],
 *   dbeta[c]  = sum_r dy[r,c]                               (binary32 out),
 * with mean and rstd the binary16 input tensors (the kernel widens them to
 * fp32 exactly: the harness cannot yet generate fp32 inputs).
 *
 * Model (contract [model]): arithmetic = "fp32", order = "any",
 * fma = "any", output_rounding = "none" (fp32 out). The kernel's xh is
 * RN32(RN32(x - mean) rstd), a known float per element; dgamma is an
 * any-order fp32 sum of xh*dy with each product rounded or fused, dbeta an
 * any-order fp32 sum of exact terms: the admitted values are the floats in
 * [S - e, S + e] (oracles/layernorm_model.c, tp_ln_sum_model). */
#include "oracles/layernorm/layernorm_exact.h"
#include "oracles/layernorm/layernorm_model.h"
#include "oracles/layernorm/proven/layernorm_cols.h" /* TP_LN_N_MAX */
#include "oracles/common/op_common.h"
#include "oracles/common/sum_interval.h"
#include "core/tp_format.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_arith[] = {"fp32", NULL}, *const m_order[] = {"any", NULL}, *const m_fma[] = {"any", NULL},
                         *const m_outr[] = {"none", NULL};

static const tp_model_key model_keys[] = {
    {"arithmetic", m_arith, NULL},
    {"order", m_order, NULL},
    {"fma", m_fma, NULL},
    {"output_rounding", m_outr, NULL},
    {NULL, NULL, NULL}};

static int params_check_model(const tp_value *model, char *err, size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "arithmetic", m_arith, &v, err, errlen) ||
        tp_model_choice(model, "order", m_order, &v, err, errlen) ||
        tp_model_choice(model, "fma", m_fma, &v, err, errlen) ||
        tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen))
        return -1;
    return 0;
}

static void admit_floats(tp_ref *e, double lo, double hi)
{
    tp_bound_shrink(e->exact, &lo, &hi);
    e->allow_lo = tp_ln_f32_up(lo);
    e->allow_hi = tp_ln_f32_down(hi);
}

/* The admitted fp32 sums: the floats in the real interval of
 * tp_ln_sum_reals (what tp_ln_sum_model returns), that interval first
 * narrowed toward e->exact by the test-only tp_bound_shrink (a no-op at its
 * default scale 1): the sum is the output, no rounding follows it. */
static void sum_admitted(tp_ref *e, double slo, double shi, double absum, int n, int rounded_terms)
{
    double lo, hi;
    tp_ln_sum_reals(slo, shi, absum, n, rounded_terms, &lo, &hi);
    admit_floats(e, lo, hi);
}

/* dbeta's: the proven bound's interval (oracles/common/sum_interval.h)
 * from the exact fixed-point column sum where it applies. */
static void sum_admitted_fix(tp_ref *e, int64_t fix, double slo, double shi, double absum, int n)
{
    double lo, hi;
    if (!tp_sum_interval_fix24(fix, absum, n, &lo, &hi))
        tp_ln_sum_reals(slo, shi, absum, n, 0, &lo, &hi);
    admit_floats(e, lo, hi);
}

static int params_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                            size_t errlen)
{
    if (params_check_model(model, err, errlen) != 0)
        return -1;
    const char *names[] = {"x", "dy", "mean", "rstd"};
    const tp_tensor *T[4];
    for (int i = 0; i < 4; i++)
        if (!(T[i] = tp_need_f16(c, "layernorm_bwd_params", names[i], err, errlen)))
            return -1;
    const tp_tensor *O = tp_case_tensor(c, output);
    int beta = strcmp(output, "dbeta") == 0;
    if (!O || O->dtype != TP_F32 || (!beta && strcmp(output, "dgamma") != 0)) {
        snprintf(err, errlen, "layernorm_bwd_params: outputs are dgamma and dbeta (f32); got %s", output);
        return -1;
    }
    if (T[0]->rank != 2 || T[1]->numel != T[0]->numel || O->numel != T[0]->shape[1] || T[2]->numel != T[0]->shape[0] ||
        T[3]->numel != T[0]->shape[0]) {
        snprintf(err, errlen, "layernorm_bwd_params: x, dy rows x cols; mean, rstd rows; %s cols", output);
        return -1;
    }
    const int R = (int)T[0]->shape[0], C = (int)T[0]->shape[1];
    if (R > TP_LN_ROWS_MAX) {
        snprintf(err, errlen, "layernorm_bwd_params: rows = %d; the exact sums need rows <= %d", R, TP_LN_ROWS_MAX);
        return -1;
    }
    const size_t N = (size_t)R * C;
    const uint16_t *x16 = T[0]->data, *dy16 = T[1]->data, *m16 = T[2]->data, *s16 = T[3]->data;
    const tp_format *fx = tp_format_of(T[0]->dtype), *fdy = tp_format_of(T[1]->dtype), *fm = tp_format_of(T[2]->dtype),
                    *fs = tp_format_of(T[3]->dtype);
    float *dy = malloc(N * sizeof *dy);
    int64_t *fix = malloc((size_t)(C ? C : 1) * sizeof *fix);
    if (!dy || !fix) {
        free(dy), free(fix);
        snprintf(err, errlen, "layernorm_bwd_params: out of memory");
        return -1;
    }
    for (size_t i = 0; i < N; i++)
        dy[i] = (float)fdy->decode(dy16[i]);
    /* 2^24 times the exact column sums of dy (layernorm_exact.c) */
    if (beta && tp_ln_col_sums_fix(R, C, dy, fix) != 0) {
        free(dy), free(fix);
        snprintf(err, errlen, "layernorm_bwd_params: the exact column sums of dy failed (out of memory?)");
        return -1;
    }
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 16)
    for (int col = 0; col < C; col++) {
        int saved = fegetround();
        tp_ref *e = &ref[col];
        if (beta) {
            /* the exact sum rounded up, down and to nearest (exact up to
             * 2^13 rows, where it was hi + lo); |sum dy| likewise,
             * exact up to 2^13 rows and rounded up beyond */
            fesetround(FE_UPWARD);
            double a = 0.0, shi = tp_ln_fix_to_double(fix[col]);
            for (int r = 0; r < R; r++)
                a += fabs((double)dy[(size_t)r * C + col]);
            fesetround(FE_DOWNWARD);
            double slo = tp_ln_fix_to_double(fix[col]);
            fesetround(FE_TONEAREST);
            e->exact = tp_ln_fix_to_double(fix[col]);
            e->exact_lo = slo;
            e->exact_hi = shi;
            sum_admitted_fix(e, fix[col], slo, shi, a, R);
        } else {
            /* The exact dgamma as an MPFR sum of exact double pieces: xv - m
             * is a multiple of 2^-24 below 2^17 (41 bits), times s (11
             * bits) exact in double (52 bits); times dy it is p + q with p
             * = RN(t dy) and q = fma(t, dy, -p) exactly (no underflow: a
             * multiple of 2^-72). Every partial sum is a multiple of 2^-72
             * below 2^20 * 2^49: 141 bits, so each addition at TP_LN_PREC
             * = 256 bits is exact (checked: MPFR's ternary value). The
             * enclosure is the point it always was (the MPFI products and
             * sums at 256 bits were exact too), at a quarter of the cost. */
            mpfr_t sum;
            mpfi_t acc;
            mpfr_init2(sum, TP_LN_PREC);
            mpfi_init2(acc, TP_LN_PREC);
            mpfr_set_ui(sum, 0, MPFR_RNDN);
            int inexact = 0;
            double plo = 0.0, phi = 0.0, a = 0.0;
            for (int r = 0; r < R; r++) {
                const size_t i = (size_t)r * C + col;
                const float xv = (float)fx->decode(x16[i]), m = (float)fm->decode(m16[r]),
                            s = (float)fs->decode(s16[r]);
                fesetround(FE_TONEAREST);
                const float xh = (xv - m) * s;                /* the kernel's two roundings */
                const double p = (double)xh * (double)dy[i]; /* exact: 24 + 11 significant bits */
                fesetround(FE_DOWNWARD);
                plo += p;
                fesetround(FE_UPWARD);
                phi += p;
                a += fabs(p);
                /* exact term: (x - m) s dy = tp + tq (above) */
                fesetround(FE_TONEAREST);
                const double t = ((double)xv - (double)m) * (double)s, tp = t * (double)dy[i],
                             tq = fma(t, (double)dy[i], -tp);
                inexact |= mpfr_add_d(sum, sum, tp, MPFR_RNDN) | mpfr_add_d(sum, sum, tq, MPFR_RNDN);
            }
            fesetround(FE_TONEAREST);
            mpfi_set_fr(acc, sum);
            tp_ln_enclosure(acc, &e->exact_lo, &e->exact, &e->exact_hi);
            sum_admitted(e, plo, phi, a, R, 1);
            mpfi_clear(acc);
            mpfr_clear(sum);
            if (inexact) {
#pragma omp atomic write
                failed = 1;
            }
        }
        fesetround(saved);
    }
    free(dy), free(fix);
    if (failed) { /* cannot happen: the argument above */
        snprintf(err, errlen, "layernorm_bwd_params: an addition of the exact dgamma was not exact");
        return -1;
    }
    return 0;
}

static const tp_statement params_exact = {
    "layernorm_bwd_params.exact.split_double_mpfi", TP_EVIDENCE,
    "exact column sums of dy by split-double accumulation (oracles/layernorm/proven/layernorm_cols.c, WP-proven "
    "exact in the IEEE float model for binary16 inputs); dgamma as an MPFI enclosure at 256 bits"};
static const tp_statement params_exact_chunked = {
    "layernorm_bwd_params.exact.chunked", TP_EVIDENCE,
    "columns longer than 8192 rows: the proven column sums on chunks of 8192 rows, each chunk's hi and lo converted "
    "to int64 at scale 2^24 and added, each conversion checked exact (oracles/layernorm/layernorm_exact.c)"};
static const tp_statement params_bound_long = {
    "layernorm_bwd_params.bound.any_order_fp32_long", TP_EVIDENCE,
    "admitted values (more than 65536 rows): the floats within n*2^-24*1.14453125*sum|term| + k*n*2^-149 of the "
    "exact sum of the kernel's own terms (k = 2 where each product is rounded; 2^-24*1.14453125 >= u/(1 - n u) for "
    "n <= 2^21, oracles/common/sum_bound.h), ends rounded outward"};
static const tp_statement params_bound = {
    "layernorm_bwd_params.bound.any_order_fp32", TP_EVIDENCE,
    "admitted values: the floats within n*2^-24*(1+2^-7)*sum|term| + k*n*2^-149 of the exact sum of the kernel's "
    "own terms (k = 2 where each product is rounded), ends rounded outward"};
static const tp_statement params_order_hidden = {
    "layernorm_bwd_params.nonclaim.order_hidden", TP_NON_CLAIM,
    "the sum bounds are worst cases over all orders: they do not reveal the kernel's order"};
static const tp_statement params_fp16_statistics = {
    "layernorm_bwd_params.nonclaim.fp16_statistics", TP_NON_CLAIM,
    "mean and rstd are binary16 inputs widened to fp32, not the pilot's fp32 statistics (the harness cannot yet "
    "generate fp32 inputs)"};
static const tp_statement params_host_rounding = {
    "layernorm_bwd_params.nonclaim.host_rounding", TP_NON_CLAIM,
    "the pilot's final rounding to fp16 on the host is not checked: the fp32 sums are"};
static const tp_statement *const params_statements[] = {&params_exact, &params_exact_chunked, &params_bound,
                                                        &params_bound_long, &params_order_hidden,
                                                        &params_fp16_statistics, &params_host_rounding, NULL};

/* One method and one bound (the model admits one choice of each key). */
static void params_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)model;
    const tp_tensor *X = tp_case_tensor(c, "x");
    const int64_t R = X && X->rank == 2 ? X->shape[0] : 0;
    for (int i = 0; params_statements[i]; i++) {
        const tp_statement *st = params_statements[i];
        if (st == &params_exact_chunked && R <= TP_LN_N_MAX) /* one proven chunk */
            continue;
        if (st == (R > 65536 ? &params_bound : &params_bound_long)) /* tp_sum_c's two constants */
            continue;
        tp_say(out, st);
    }
}

const tp_op tp_op_layernorm_bwd_params = {
    "layernorm_bwd_params", "dgamma[c] = sum_r (x - mean) rstd dy, dbeta[c] = sum_r dy", params_check_model,
    params_reference, params_say, params_statements, TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_F32), model_keys,
    TP_DTYPE_BIT(TP_F32), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
