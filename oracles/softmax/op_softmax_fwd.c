/* op "softmax_fwd": y[r,j] = exp(x[r,j] - M_r) / sum_k exp(x[r,k] - M_r),
 * M_r = max_k x[r,k], row-wise over the contract's input x (R x n) and
 * output (R x n), binary16 in and out.
 *
 * Exact reference: x is binary16, so d = x - M_r is exact in double (a
 * multiple of 2^-24 below 2^17 in magnitude); exp(d) is enclosed with MPFR
 * rounded down and up, the row sum of the enclosures is formed in double
 * rounded down and up, and y's enclosure is lo/SUM_hi .. hi/SUM_lo.
 *
 * Model (contract [model]), following kernels/softmax_fwd.hip step by step:
 *   d  = RN32(x - M)          a point: M is exact (tp_row_max, proven);
 *   e  = expf(d)              any fp32 within expf_ulp ulps of RN32(exp(d))
 *                             (oracles/common/vendor_ulp.h: ulps of the
 *                             correctly rounded value, or as many fp32
 *                             steps): an interval [e_lo, e_hi];
 *   y1 = RN16(e)              intermediate = "binary16" (the pilot writes e
 *                             to y and re-reads it), or y1 = e with
 *                             intermediate = "fp32";
 *   s  = fp32 sum of the n e  any order: |s - sum e| <= n*C(n)*sum|e|
 *                             + n*TP_DOT_ETA (C(n) = TP_DOT_C_OF(n) of
 *                             oracles/gemm/proven/gemm.h: TP_DOT_C for
 *                             n <= 65536, TP_DOT_C_LONG up to 262144), taken over
 *                             the whole box of possible e: s lies in the
 *                             hull [sum e_lo - err, sum e_hi + err]
 *                             (the proven tp_sum_bound_rn at each
 *                             end, tp_sum_bound_long_rn beyond 65536);
 *   inv = RN32(1/s)           correctly rounded division, decreasing in s;
 *   y  = RN16(RN32(y1*inv))   monotone in y1 and inv.
 * Every step is monotone, so the admitted interval of y is the image of
 * the interval ends. The model ignores that y1 and s share the same e (a
 * hull over independent choices): it admits at least every output the
 * kernel can produce, and somewhat more. No step has the a*b+c shape, so
 * FMA contraction does not enter. */
#include "oracles/gemm/proven/gemm.h" /* TP_DOT_C, TP_DOT_ETA: the accumulation bound, in one place */
#include "oracles/common/op_common.h"
#include "oracles/softmax/proven/softmax.h"
#include "core/tp_format.h"
#include "oracles/common/round_ends.h"
#include "oracles/common/ival_guard.h"
#include "oracles/common/vendor_ulp.h"
#include "oracles/common/proven/tp_ival_mul.h"
#include "oracles/common/proven/tp_ival_div.h"
#include "oracles/common/sum_interval.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>

/* The directed roundings below need the library built with
 * -frounding-math (gcc does not implement FENV_ACCESS). */

#define EXP_PREC 64 /* bits of the MPFR exp evaluations */

typedef struct {
    int expf_ulp;     /* vendor ulps around RN32(exp) */
    int double_round; /* 1: e is rounded to binary16 before the scaling */
} sm_model;

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_arith[] = {"fp32", NULL}, *const m_order[] = {"any", NULL},
                         *const m_inter[] = {"binary16", "fp32", NULL}, *const m_outr[] = {"nearest", NULL};

static const tp_model_key model_keys[] = {
    {"arithmetic", m_arith, NULL},
    {"order", m_order, NULL},
    {"intermediate", m_inter, NULL},
    {"output_rounding", m_outr, NULL},
    {"expf_ulp", NULL, "a table of the device expf's documented ulp bound per backend (cuda, hip)"},
    {NULL, NULL, NULL}};

static int read_model(const tp_value *model, const char *backend, sm_model *m, char *err, size_t errlen)
{
    const char *v, *im;
    if (tp_model_choice(model, "arithmetic", m_arith, &v, err, errlen) ||
        tp_model_choice(model, "order", m_order, &v, err, errlen) ||
        tp_model_choice(model, "intermediate", m_inter, &im, err, errlen) ||
        tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen))
        return -1;
    m->double_round = strcmp(im, "binary16") == 0;
    const tp_value *tab = tp_value_get(model, "expf_ulp");
    if (!tp_value_is_table(tab)) {
        snprintf(err, errlen, "model.expf_ulp must be a table of documented ulp bounds per backend");
        return -1;
    }
    const tp_value *ulp = tp_value_get(tab, backend ? backend : "cuda");
    if (backend && !tp_value_is_integer(ulp)) {
        snprintf(err, errlen, "model.expf_ulp has no documented bound for backend \"%s\"", backend);
        return -1;
    }
    m->expf_ulp = (int)tp_value_integer(ulp);
    if (m->expf_ulp < 0 || m->expf_ulp > 64) {
        snprintf(err, errlen, "model.expf_ulp must be between 0 and 64");
        return -1;
    }
    return 0;
}

static int sm_check_model(const tp_value *model, char *err, size_t errlen)
{
    sm_model m;
    return read_model(model, NULL, &m, err, errlen);
}

/* Everything the reference needs about one binary16 pattern of x, given
 * the row maximum: the enclosure of exp(x - M) and the fp32 interval of
 * the kernel's expf. Rows reuse it for repeated values. */
typedef struct {
    double ex_lo, ex_hi;
    float e_lo, e_hi;
} sm_entry;

typedef struct {
    int *stamp; /* 65536: row + 1 for which entry[h] is valid */
    sm_entry *entry;
    mpfr_t d, t, q;
    mpfr_t r24; /* 24 bits: one correctly rounded fp32 division */
} sm_ws;

static void entry_fill(sm_ws *w, double d, int ulp, sm_entry *en)
{
    mpfr_set_d(w->d, d, MPFR_RNDN); /* exact: d has at most 41 significant bits */
    mpfr_exp(w->t, w->d, MPFR_RNDD);
    en->ex_lo = mpfr_get_d(w->t, MPFR_RNDD);
    mpfr_exp(w->t, w->d, MPFR_RNDU);
    en->ex_hi = mpfr_get_d(w->t, MPFR_RNDU);

    /* RN32(exp(d32)) from a 64-bit evaluation: when it is inexact, RN32 of
     * its two neighbours brackets RN32 of the true value (they differ only
     * at a near-tie, and then both candidates are kept). */
    float d32 = (float)d; /* RN32 of the exact difference: the kernel's x - max */
    mpfr_set_flt(w->d, d32, MPFR_RNDN);
    int inex = mpfr_exp(w->t, w->d, MPFR_RNDN);
    mpfr_set(w->q, w->t, MPFR_RNDN);
    if (inex) {
        mpfr_nextbelow(w->t);
        mpfr_nextabove(w->q);
    }
    float lo = mpfr_get_flt(w->t, MPFR_RNDN), hi = mpfr_get_flt(w->q, MPFR_RNDN);
    en->e_lo = tp_vendor_lower(lo, hi, ulp); /* expf within its ulps: oracles/common/vendor_ulp.h */
    en->e_hi = tp_vendor_upper(lo, hi, ulp);
}

/* One row of x (format in) to y (format out); rounding mode is nearest on
 * entry and on exit. */
static int sm_row(sm_ws *w, const sm_model *m, const tp_format *in, const tp_format *out, int row, int n,
                  const uint16_t *x, float *xf, tp_ref *ref)
{
    for (int j = 0; j < n; j++) {
        xf[j] = (float)in->decode(x[j]);
        if (!isfinite(xf[j]))
            return -1;
    }
    const float M = tp_row_max(n, xf);
    for (int j = 0; j < n; j++)
        if (w->stamp[x[j]] != row + 1) {
            w->stamp[x[j]] = row + 1;
            entry_fill(w, (double)xf[j] - (double)M, m->expf_ulp, &w->entry[x[j]]);
        }

    /* Row sums with outward rounding. */
    double ex_lo = 0, ex_hi = 0, s_lo = 0, s_hi = 0, a_hi = 0;
    fesetround(FE_DOWNWARD);
    for (int j = 0; j < n; j++) {
        const sm_entry *en = &w->entry[x[j]];
        ex_lo += en->ex_lo;
        s_lo += en->e_lo;
    }
    fesetround(FE_UPWARD);
    for (int j = 0; j < n; j++) {
        const sm_entry *en = &w->entry[x[j]];
        ex_hi += en->ex_hi;
        s_hi += en->e_hi;
        a_hi += fabs(en->e_lo) > fabs(en->e_hi) ? fabs(en->e_lo) : fabs(en->e_hi);
    }
    /* The fp32 row sum s of any e in the box, in any order: within
     * err = n*C(n)*a_hi + n*TP_DOT_ETA of an exact sum in [s_lo, s_hi],
     * through the proven any-order sum bounds (tp_sum_bound_rn up to 65536
     * elements, tp_sum_bound_long_rn up to 262144, T3, by way of
     * sum_interval.h), taken at each end of that range: the interval at
     * s_lo holds s_lo - err, at s_hi s_hi + err, so their hull holds s.
     * Their requires hold on every row the op accepts (n <= 262144, each
     * |e| <= 1, so the sums are at most 2^18); a row where they did not
     * would be refused, not bounded by hand. */
    fesetround(FE_TONEAREST);
    double L_lo, H_lo, L_hi, H_hi;
    if (!tp_sum_interval_long(s_lo, 0.0, a_hi, n, &L_lo, &H_lo) ||
        !tp_sum_interval_long(s_hi, 0.0, a_hi, n, &L_hi, &H_hi))
        return -4;
    s_hi = H_hi;
    s_lo = L_lo;
    fesetround(FE_UPWARD);
    const float s32_hi = (float)s_hi; /* the fp32 sum lies at or below: rounded up, a valid bound */
    fesetround(FE_DOWNWARD);
    const float s32_lo = (float)s_lo;
    fesetround(FE_TONEAREST);
    if (!(s32_lo > 0.0f)) /* cannot happen for n <= 262144: the max contributes ~1, n*C(n) < 2^-5 */
        return -2;

    /* inv = RN32(1/s) over s in [s32_lo, s32_hi]: the proven quotient of
     * binary32 intervals (oracles/common/proven/tp_ival_div.c, T3), whose
     * ends are RN32(1/s32_hi) and RN32(1/s32_lo). Its requires hold on
     * every row (s32_lo is near the row sum, which the maximum's e = 1
     * keeps above 1 - 2^-5); the MPFR division at 24 bits (correctly
     * rounded: 1/s is far from the binary32 subnormal range for s in
     * [2^-1, 2^17]) stays as the fallback should the guard refuse. */
    const tp_ival32 one = {1.0f, 1.0f}, sv = {s32_lo, s32_hi};
    float inv_lo, inv_hi;
    if (tp_ival32_div_ok(one, sv)) {
        const tp_ival32 iv = tp_ival32_div(one, sv);
        inv_lo = iv.lo;
        inv_hi = iv.hi;
    } else {
        mpfr_set_flt(w->d, s32_hi, MPFR_RNDN);
        mpfr_ui_div(w->r24, 1, w->d, MPFR_RNDN);
        inv_lo = mpfr_get_flt(w->r24, MPFR_RNDN);
        mpfr_set_flt(w->d, s32_lo, MPFR_RNDN);
        mpfr_ui_div(w->r24, 1, w->d, MPFR_RNDN);
        inv_hi = mpfr_get_flt(w->r24, MPFR_RNDN);
    }

    /* The exact values first: tp_bound_shrink below narrows toward them. */
    fesetround(FE_DOWNWARD);
    for (int j = 0; j < n; j++)
        ref[j].exact_lo = w->entry[x[j]].ex_lo / ex_hi;
    fesetround(FE_UPWARD);
    for (int j = 0; j < n; j++)
        ref[j].exact_hi = w->entry[x[j]].ex_hi / ex_lo;
    fesetround(FE_TONEAREST);
    for (int j = 0; j < n; j++)
        ref[j].exact = ref[j].exact_lo + 0.5 * (ref[j].exact_hi - ref[j].exact_lo);
    for (int j = 0; j < n; j++) {
        const sm_entry *en = &w->entry[x[j]];
        double y1_lo = en->e_lo, y1_hi = en->e_hi;
        if (m->double_round) {
            y1_lo = tp_round_lower(&tp_binary16, y1_lo); /* the model's binary16 copy of e, whatever y's format */
            y1_hi = tp_round_upper(&tp_binary16, y1_hi);
        }
        /* y = RN32(y1 * inv) over the box of y1 (binary16 or fp32 values)
         * and inv: the proven product of binary32 intervals
         * (oracles/common/proven/tp_ival_mul.c, T3), where its requires
         * hold; otherwise the same corners on the host (y1 times an fp32
         * inv is exact in double, the cast rounds it once to fp32). */
        const tp_ival32 yv = {(float)y1_lo, (float)y1_hi}, iv = {inv_lo, inv_hi};
        float p_lo, p_hi;
        if (tp_ival32_mul_ok(yv, iv)) {
            const tp_ival32 p = tp_ival32_mul(yv, iv);
            p_lo = p.lo;
            p_hi = p.hi;
        } else {
            float c[4] = {(float)(y1_lo * inv_lo), (float)(y1_lo * inv_hi), (float)(y1_hi * inv_lo),
                          (float)(y1_hi * inv_hi)};
            p_lo = c[0], p_hi = c[0];
            for (int k = 1; k < 4; k++) {
                p_lo = c[k] < p_lo ? c[k] : p_lo;
                p_hi = c[k] > p_hi ? c[k] : p_hi;
            }
        }
        /* [p_lo, p_hi] holds every fp32 y the model admits: the enclosure
         * before the output rounding (tests only may narrow it; 1 = untouched) */
        double a_lo = p_lo, a_hi = p_hi;
        tp_bound_shrink(ref[j].exact, &a_lo, &a_hi);
        ref[j].allow_lo = tp_round_lower(out, a_lo);
        ref[j].allow_hi = tp_round_upper(out, a_hi);
    }
    return 0;
}

static int sm_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                        size_t errlen)
{
    sm_model m;
    if (read_model(model, c->backend, &m, err, errlen) != 0)
        return -1;
    const tp_tensor *x = tp_need_f16(c, "softmax_fwd", "x", err, errlen),
                    *y = x ? tp_need_f16(c, "softmax_fwd", output, err, errlen) : NULL;
    if (!y)
        return -1;
    if (x->rank != 2 || y->rank != 2 || x->shape[0] != y->shape[0] || x->shape[1] != y->shape[1]) {
        snprintf(err, errlen, "softmax_fwd: x and %s must be matrices of the same shape", output);
        return -1;
    }
    const int R = (int)x->shape[0], n = (int)x->shape[1];
    if (n < 1 || n > TP_DOT_N_MAX_LONG) {
        snprintf(err, errlen, "softmax_fwd: rows of %d elements; the fp32 sum bound holds for 1 .. %d", n,
                 TP_DOT_N_MAX_LONG);
        return -1;
    }
    int bad_row = -1, rc_all = 0;
    const int saved = fegetround();
    fesetround(FE_TONEAREST);
    /* Rows are independent: the result does not depend on the schedule. */
#pragma omp parallel
    {
        sm_ws w;
        w.stamp = calloc(65536, sizeof *w.stamp);
        w.entry = malloc(65536 * sizeof *w.entry);
        float *xf = malloc((size_t)n * sizeof *xf);
        mpfr_inits2(EXP_PREC, w.d, w.t, w.q, (mpfr_ptr)0);
        mpfr_init2(w.r24, 24);
        int ok = w.stamp && w.entry && xf;
        fesetround(FE_TONEAREST);
#pragma omp for schedule(dynamic, 1)
        for (int r = 0; r < R; r++) {
            int rc = ok ? sm_row(&w, &m, tp_format_of(x->dtype), tp_format_of(y->dtype), r, n,
                                 (const uint16_t *)x->data + (size_t)r * n, xf, ref + (size_t)r * n)
                        : -3;
            if (rc != 0) {
#pragma omp critical
                {
                    if (bad_row < 0 || r < bad_row) {
                        bad_row = r;
                        rc_all = rc;
                    }
                }
            }
        }
        mpfr_clears(w.d, w.t, w.q, w.r24, (mpfr_ptr)0);
        free(w.stamp);
        free(w.entry);
        free(xf);
    }
    fesetround(saved);
    if (bad_row >= 0) {
        snprintf(err, errlen, "softmax_fwd: row %d: %s", bad_row,
                 rc_all == -1   ? "a logit is infinite or NaN; the model covers finite logits only"
                 : rc_all == -2 ? "the row sum bound does not stay positive"
                 : rc_all == -4 ? "the row sums are outside the proven sum bound's range"
                                : "out of memory");
        return -1;
    }
    return 0;
}

static const tp_statement sm_exact = {
    "softmax_fwd.exact.mpfr_enclosure", TP_EVIDENCE,
    "exact softmax enclosed per element: exp(x - max) with MPFR rounded down and up, row sums and the division "
    "rounded outward in double; the row max by tp_row_max (oracles/softmax/proven/softmax.c, WP-proven T1+T2)"};
/* %s: the binary16 copy of e where the model's intermediate is binary16;
 * then the sum bound's constant for the row length (tp_sum_c_text) */
static const tp_statement sm_bound = {
    "softmax_fwd.bound.stepwise_fp32", TP_EVIDENCE,
    "admitted interval: d = RN32(x - max), expf within the documented ulp of RN32(exp d), %sfp32 row sum in any "
    "order within n*%s*sum|e| + n*2^-149 over every possible e, RN32(1/s), RN32(y1*inv), binary16"};
static const tp_statement sm_independent = {
    "softmax_fwd.nonclaim.independent_choices", TP_NON_CLAIM,
    "the model treats the row sum and each output's own exp as independent choices: it admits some outputs the "
    "kernel cannot produce, so an error smaller than that slack goes undetected"};
static const tp_statement sm_row_sum = {
    "softmax_fwd.nonclaim.row_sum_claim", TP_NON_CLAIM,
    "the row-sum claim of the pilot (every row sums to 1 within a tolerance) is not audited by the per-element "
    "checker"};
static const tp_statement sm_vendor_expf = {
    "softmax_fwd.nonclaim.vendor_expf", TP_NON_CLAIM,
    "the vendor's expf ulp bound is stated as measured by extensive but not exhaustive tests, not guaranteed"};
static const tp_statement *const sm_statements[] = {&sm_exact,   &sm_bound,       &sm_independent,
                                                    &sm_row_sum, &sm_vendor_expf, NULL};

/* The binary16 step is in the bound where read_model set double_round. */
static void sm_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    sm_model m;
    char err[200];
    int copy = read_model(model, c->backend, &m, err, sizeof err) == 0 && m.double_round;
    tp_say(out, &sm_exact);
    const tp_tensor *x = tp_case_tensor(c, "x");
    tp_say(out, &sm_bound, copy ? "binary16 copy of e, " : "", tp_sum_c_text(x && x->rank == 2 ? x->shape[1] : 0));
    tp_say(out, &sm_independent);
    tp_say(out, &sm_row_sum);
    tp_say(out, &sm_vendor_expf);
}

const tp_op tp_op_softmax_fwd = {"softmax_fwd", "y[r,j] = exp(x[r,j] - max_k x[r,k]) / sum_k exp(x[r,k] - max_k x[r,k])",
                                 sm_check_model, sm_reference, sm_say, sm_statements, TP_DTYPE_BIT(TP_F16),
                                 model_keys,
    TP_DTYPE_BIT(TP_F16), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
