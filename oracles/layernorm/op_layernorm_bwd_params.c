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
#include "oracles/layernorm/proven/layernorm.h"
#include "oracles/layernorm/layernorm_model.h"
#include "oracles/common/op_common.h"
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

/* The admitted fp32 sums: the floats in the real interval of
 * tp_ln_sum_reals (what tp_ln_sum_model returns), that interval first
 * narrowed toward e->exact by the test-only tp_bound_shrink (a no-op at its
 * default scale 1): the sum is the output, no rounding follows it. */
static void sum_admitted(tp_ref *e, double slo, double shi, double absum, int n, int rounded_terms)
{
    double lo, hi;
    tp_ln_sum_reals(slo, shi, absum, n, rounded_terms, &lo, &hi);
    tp_bound_shrink(e->exact, &lo, &hi);
    e->allow_lo = tp_ln_f32_up(lo);
    e->allow_hi = tp_ln_f32_down(hi);
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
    if (R > TP_LN_N_MAX) {
        snprintf(err, errlen, "layernorm_bwd_params: rows = %d; the exact sums need rows <= %d", R, TP_LN_N_MAX);
        return -1;
    }
    const size_t N = (size_t)R * C;
    const uint16_t *x16 = T[0]->data, *dy16 = T[1]->data, *m16 = T[2]->data, *s16 = T[3]->data;
    const tp_format *fx = tp_format_of(T[0]->dtype), *fdy = tp_format_of(T[1]->dtype), *fm = tp_format_of(T[2]->dtype),
                    *fs = tp_format_of(T[3]->dtype);
    float *dy = malloc(N * sizeof *dy);
    double *hi = malloc((size_t)C * sizeof *hi), *lo = malloc((size_t)C * sizeof *lo);
    if (!dy || !hi || !lo) {
        free(dy), free(hi), free(lo);
        snprintf(err, errlen, "layernorm_bwd_params: out of memory");
        return -1;
    }
    for (size_t i = 0; i < N; i++)
        dy[i] = (float)fdy->decode(dy16[i]);
    if (beta)
        tp_ln_col_sums(R, C, dy, hi, lo);
#pragma omp parallel for schedule(dynamic, 16)
    for (int col = 0; col < C; col++) {
        int saved = fegetround();
        tp_ref *e = &ref[col];
        if (beta) {
            fesetround(FE_UPWARD);
            double a = 0.0, shi = hi[col] + lo[col];
            for (int r = 0; r < R; r++)
                a += fabs((double)dy[(size_t)r * C + col]);
            fesetround(FE_DOWNWARD);
            double slo = hi[col] + lo[col];
            fesetround(FE_TONEAREST);
            e->exact = hi[col] + lo[col];
            e->exact_lo = slo;
            e->exact_hi = shi;
            sum_admitted(e, slo, shi, a, R, 0);
        } else {
            mpfi_t acc, t;
            mpfi_init2(acc, TP_LN_PREC);
            mpfi_init2(t, TP_LN_PREC);
            mpfi_set_ui(acc, 0);
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
                /* exact term: (x - m) s dy; x - m is exact in double */
                mpfi_set_d(t, (double)xv - (double)m);
                mpfi_mul_d(t, t, (double)s);
                mpfi_mul_d(t, t, (double)dy[i]);
                mpfi_add(acc, acc, t);
            }
            fesetround(FE_TONEAREST);
            tp_ln_enclosure(acc, &e->exact_lo, &e->exact, &e->exact_hi);
            sum_admitted(e, plo, phi, a, R, 1);
            mpfi_clear(acc);
            mpfi_clear(t);
        }
        fesetround(saved);
    }
    free(dy), free(hi), free(lo);
    return 0;
}

static const tp_statement params_exact = {
    "layernorm_bwd_params.exact.split_double_mpfi", TP_EVIDENCE,
    "exact column sums of dy by split-double accumulation (oracles/layernorm/proven/layernorm.c, WP-proven T1+T2 in "
    "the real model); dgamma as an MPFI enclosure at 256 bits"};
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
static const tp_statement *const params_statements[] = {&params_exact, &params_bound, &params_order_hidden,
                                                        &params_fp16_statistics, &params_host_rounding, NULL};

/* One method and one bound (the model admits one choice of each key). */
static void params_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)model, (void)c;
    tp_say_all(out, params_statements);
}

const tp_op tp_op_layernorm_bwd_params = {
    "layernorm_bwd_params", "dgamma[c] = sum_r (x - mean) rstd dy, dbeta[c] = sum_r dy", params_check_model,
    params_reference, params_say, params_statements, TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_F32), model_keys,
    TP_DTYPE_BIT(TP_F32), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */};
