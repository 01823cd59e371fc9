/* op "layernorm_bwd_params": per column c of x[rows, cols] (binary16),
 *   dgamma[c] = sum_r (x[r,c] - mean[r]) rstd[r] dy[r,c],
 *   dbeta[c]  = sum_r dy[r,c]                               (binary32 out),
 * with mean and rstd the binary32 input tensors (the pilot's fp32
 * statistics). Runs recorded before fp32 inputs existed gave them as
 * binary16, which binary32 holds exactly: both are read.
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
#include <float.h>
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

/* Element r of mean or rstd as the kernel reads it (binary32). */
static float stat_at(const tp_tensor *t, int r)
{
    if (t->dtype == TP_F32)
        return ((const float *)t->data)[r];
    return (float)tp_format_of(t->dtype)->decode(((const uint16_t *)t->data)[r]);
}

/* The exact term (xv - m) s g as a sum of at most four doubles, written to
 * d[]: 1 when xv - m is a double (checked by TwoSum: no rounding error),
 * 0 otherwise. Then t = xv - m, and t*s = p + q exactly (fma; no
 * underflow: t and s are multiples of 2^-149, so p and q are multiples of
 * 2^-298, far above double's 2^-1074), and p*g, q*g split the same way. */
static int term_pieces(float xv, float m, float s, float g, double d[4])
{
    const double a = xv, b = -(double)m, t = a + b, bv = t - a;
    if ((a - (t - bv)) + (b - bv) != 0.0)
        return 0;
    const double p = t * (double)s, q = fma(t, (double)s, -p);
    d[0] = p * (double)g;
    d[1] = fma(p, (double)g, -d[0]);
    d[2] = q * (double)g;
    d[3] = fma(q, (double)g, -d[2]);
    return 1;
}

/* The same term in MPFR where xv - m is not a double: each operation
 * exact at TERM_PREC bits (xv - m has at most 278 significant bits, as the
 * difference of two multiples of 2^-149 below 2^128; times s at most 302,
 * times g at most 313), checked by the ternary values. Returns nonzero when
 * some operation was inexact (cannot happen: the argument above). */
#define TERM_PREC 320
static int term_mpfr(mpfr_t sum, mpfr_t tmp, float xv, float m, float s, float g)
{
    int inexact = mpfr_set_flt(tmp, xv, MPFR_RNDN);
    inexact |= mpfr_sub_d(tmp, tmp, (double)m, MPFR_RNDN);
    inexact |= mpfr_mul_d(tmp, tmp, (double)s, MPFR_RNDN);
    inexact |= mpfr_mul_d(tmp, tmp, (double)g, MPFR_RNDN);
    return inexact | mpfr_add(sum, sum, tmp, MPFR_RNDN);
}

/* Every term, and every piece of one, is a multiple of 2^-322 (2^-149 for
 * xv - m, s; 2^-24 for g) below 2^273 in magnitude, so every partial sum of
 * at most 4 * 2^20 pieces is a multiple of 2^-322 below 2^295: 617 bits.
 * At WIDE_PREC every addition is exact; a column is summed at TP_LN_PREC
 * first and again at WIDE_PREC only when an addition there was inexact. */
#define WIDE_PREC 640

/* The exact dgamma of column col, summed into sum (precision set by the
 * caller, value 0). Nonzero when some addition was inexact. With bound
 * non-NULL, also the kernel's terms for the sum bound: p = xh*dy, exact in
 * double (24 + 11 significant bits, no underflow), summed rounded down
 * (bound[0]), up (bound[1]), and |p| summed up (bound[2]). Runs in and
 * returns to round to nearest. */
static int dgamma_exact(mpfr_t sum, int R, int C, int col, const uint16_t *x16, const tp_format *fx,
                        const float *dy, const tp_tensor *M, const tp_tensor *S, double *bound)
{
    mpfr_t tmp;
    mpfr_init2(tmp, TERM_PREC);
    int inexact = 0;
    double plo = 0.0, phi = 0.0, a = 0.0;
    for (int r = 0; r < R; r++) {
        const size_t i = (size_t)r * C + col;
        const float xv = (float)fx->decode(x16[i]), m = stat_at(M, r), s = stat_at(S, r);
        if (bound) {
            const float xh = (xv - m) * s; /* the kernel's two roundings */
            const double p = (double)xh * (double)dy[i];
            fesetround(FE_DOWNWARD);
            plo += p;
            fesetround(FE_UPWARD);
            phi += p;
            a += fabs(p);
            fesetround(FE_TONEAREST);
        }
        double d[4];
        if (term_pieces(xv, m, s, dy[i], d)) {
            for (int k = 0; k < 4; k++)
                if (d[k] != 0.0)
                    inexact |= mpfr_add_d(sum, sum, d[k], MPFR_RNDN);
        } else
            inexact |= term_mpfr(sum, tmp, xv, m, s, dy[i]);
    }
    mpfr_clear(tmp);
    if (bound)
        bound[0] = plo, bound[1] = phi, bound[2] = a;
    return inexact;
}

/* The sum bound (tp_ln_sum_reals) holds in the standard model without
 * overflow. With binary16 statistics nothing can overflow (|xh dy| < 2^49);
 * binary32 statistics can make xh, a product or a partial sum overflow, so
 * a case is refused before any launch unless every xh is finite and every
 * column's bound, from sum |xh dy| rounded up, stays below FLT_MAX: then
 * every partial sum of the kernel does too. */
static int params_check_case(const tp_value *model, const tp_case *c, char *err, size_t errlen)
{
    (void)model;
    const tp_tensor *X = tp_case_tensor(c, "x"), *G = tp_case_tensor(c, "dy"), *M = tp_case_tensor(c, "mean"),
                    *S = tp_case_tensor(c, "rstd");
    if (!X || !G || !M || !S || X->rank != 2 || X->dtype != TP_F16 || G->dtype != TP_F16 || G->numel != X->numel ||
        (M->dtype != TP_F16 && M->dtype != TP_F32) || (S->dtype != TP_F16 && S->dtype != TP_F32) ||
        M->numel != X->shape[0] || S->numel != X->shape[0])
        return 0; /* the reference names what is wrong */
    if (X->shape[0] > TP_LN_ROWS_MAX)
        return 0; /* likewise; the margin below needs R <= 2^20 */
    if (M->dtype == TP_F16 && S->dtype == TP_F16)
        return 0; /* |xh dy| < 2^49: nothing overflows */
    const int R = (int)X->shape[0], C = (int)X->shape[1];
    const tp_format *f16 = tp_format_of(TP_F16);
    const uint16_t *x16 = X->data, *g16 = G->data;
    double *a = calloc((size_t)(C ? C : 1), sizeof *a);
    if (!a) {
        snprintf(err, errlen, "layernorm_bwd_params: out of memory");
        return -1;
    }
    const int saved = fegetround();
    fesetround(FE_TONEAREST);
    int rc = 0;
    for (int r = 0; r < R && rc == 0; r++) {
        const float m = stat_at(M, r), s = stat_at(S, r);
        for (int col = 0; col < C; col++) {
            const size_t i = (size_t)r * C + col;
            const float xh = (float)(((float)f16->decode(x16[i]) - m) * s);
            if (!isfinite(xh)) {
                snprintf(err, errlen,
                         "layernorm_bwd_params: xh = (x - mean) * rstd overflows binary32 at x[%d, %d] (mean %.9g, "
                         "rstd %.9g): the model covers fp32 arithmetic without overflow; expected finite xh",
                         r, col, (double)m, (double)s);
                rc = -1;
                break;
            }
            a[col] += fabs((double)xh * f16->decode(g16[i])); /* each product exact (24 + 11 bits) */
        }
    }
    for (int col = 0; col < C && rc == 0; col++) {
        /* R <= 2^20 nonnegative terms added in round to nearest: the sum is
         * at most (1 + 2^-52)^R <= 1 + 2^-31 times too small */
        fesetround(FE_UPWARD);
        const double up = a[col] * (1.0 + 0x1p-30);
        double lo, hi;
        tp_ln_sum_reals(-up, up, up, R, 1, &lo, &hi);
        if (!(hi < FLT_MAX)) {
            snprintf(err, errlen,
                     "layernorm_bwd_params: column %d: sum |xh dy| = %.9g, with the sum bound up to %.9g, may "
                     "overflow binary32: the model covers fp32 sums without overflow; expected the bound below "
                     "FLT_MAX",
                     col, up, hi);
            rc = -1;
        }
    }
    fesetround(saved);
    free(a);
    return rc;
}

static int params_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                            size_t errlen)
{
    if (params_check_model(model, err, errlen) != 0)
        return -1;
    const char *names[] = {"x", "dy", "mean", "rstd"};
    const tp_tensor *T[4];
    for (int i = 0; i < 4; i++)
        if (!(T[i] = i < 2 ? tp_need_f16(c, "layernorm_bwd_params", names[i], err, errlen)
                           : tp_need_f16_or_f32(c, "layernorm_bwd_params", names[i], err, errlen)))
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
    if (params_check_case(model, c, err, errlen) != 0) /* `tolproof check` calls no check_case */
        return -1;
    const size_t N = (size_t)R * C;
    const uint16_t *x16 = T[0]->data, *dy16 = T[1]->data;
    const tp_format *fx = tp_format_of(T[0]->dtype), *fdy = tp_format_of(T[1]->dtype);
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
            /* The exact dgamma: an MPFR sum of the exact terms
             * (dgamma_exact above): for binary16 statistics the pieces are
             * multiples of 2^-72 below 2^49 and the sums of at most 2^20
             * terms below 2^69, 141 bits, exact at TP_LN_PREC; binary32
             * statistics may need WIDE_PREC. Every addition is checked. */
            fesetround(FE_TONEAREST);
            mpfr_t sum;
            mpfi_t acc;
            mpfr_init2(sum, TP_LN_PREC);
            mpfr_set_ui(sum, 0, MPFR_RNDN);
            double bd[3];
            int inexact = dgamma_exact(sum, R, C, col, x16, fx, dy, T[2], T[3], bd);
            if (inexact) {
                mpfr_set_prec(sum, WIDE_PREC);
                mpfr_set_ui(sum, 0, MPFR_RNDN);
                inexact = dgamma_exact(sum, R, C, col, x16, fx, dy, T[2], T[3], NULL);
            }
            mpfi_init2(acc, mpfr_get_prec(sum));
            mpfi_set_fr(acc, sum);
            tp_ln_enclosure(acc, &e->exact_lo, &e->exact, &e->exact_hi);
            sum_admitted(e, bd[0], bd[1], bd[2], R, 1);
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
static const tp_statement params_exact_f32_statistics = {
    "layernorm_bwd_params.exact.f32_statistics", TP_EVIDENCE,
    "binary32 mean and rstd: each exact term (x - mean) rstd dy as up to four doubles by error-free transformations "
    "(x - mean checked to be a double, else the term in MPFR at 320 bits, each operation checked exact), added in MPFR "
    "at 256 bits, again at 640 bits in a column where an addition was inexact (every addition checked exact)"};
static const tp_statement params_no_overflow = {
    "layernorm_bwd_params.nonclaim.no_overflow", TP_NON_CLAIM,
    "binary32 statistics that make xh or a column's sum bound overflow binary32 are refused before launch: the bound "
    "holds for fp32 arithmetic without overflow"};
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
static const tp_statement *const params_statements[] = {
    &params_exact,        &params_exact_chunked,   &params_exact_f32_statistics, &params_bound,      &params_bound_long,
    &params_order_hidden, &params_fp16_statistics, &params_no_overflow,          &params_host_rounding, NULL};

/* One method and one bound (the model admits one choice of each key). */
static void params_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)model;
    const tp_tensor *X = tp_case_tensor(c, "x"), *M = tp_case_tensor(c, "mean");
    const int64_t R = X && X->rank == 2 ? X->shape[0] : 0;
    /* runs recorded before fp32 inputs gave binary16 statistics */
    const int f32_stats = M && M->dtype == TP_F32;
    for (int i = 0; params_statements[i]; i++) {
        const tp_statement *st = params_statements[i];
        if (st == &params_exact_chunked && R <= TP_LN_N_MAX) /* one proven chunk */
            continue;
        if (st == (f32_stats ? &params_fp16_statistics : &params_exact_f32_statistics) ||
            (st == &params_no_overflow && !f32_stats))
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
    NULL /* nonfinite_inputs: the model covers finite inputs only */, params_check_case,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
