/* op "softmax_xent_bwd": gi[r,j] = s[r,j] * (g[r,j] - D_r),
 * D_r = sum_k g[r,k] * s[r,k], row-wise over R x n binary16 tensors s, g
 * and the output.
 *
 * Exact reference: D_r by split-double accumulation (tp_ln_row_dot,
 * oracles/layernorm/proven/layernorm.c: the one proven exact row dot
 * product of binary16 values, exact in WP's IEEE float model; chunks of at
 * most TP_LN_N_MAX terms combined exactly in MPFR), then s*(g - D) exactly
 * in MPFR and rounded to double (nearest, down, up).
 *
 * Model (contract [model]), following kernels/softmax_xent_bwd.hip:
 *   dot = fp32 sum of the n exact products g*s in any order, fused or not:
 *         |dot - D| <= e = n*C(n)*sum|g s| + n*TP_DOT_ETA
 *         (C(n) = TP_DOT_C_OF(n) of oracles/gemm/proven/gemm.h: TP_DOT_C
 *         for n <= 65536, TP_DOT_C_LONG up to 262144: the proven
 *         tp_sum_bound_rn and tp_sum_bound_long_rn), and dot is an fp32
 *         value: dot lies in
 *         [RU32(D - e), RD32(D + e)];
 *   d  = RN32(g - dot)  decreasing in dot;
 *   gi = RN32(s * d)    monotone in d for a fixed s (either direction);
 *   y  = RN16(gi).
 * The admitted interval is the image of the two ends of dot. The kernel
 * computes s*(g - dot), which has no a*b+c shape: no contraction can
 * apply there (only inside the dot, which the bound covers). */
#include "oracles/gemm/proven/gemm.h" /* TP_DOT_C, TP_DOT_ETA: the accumulation bound, in one place */
#include "oracles/common/op_common.h"
#include "oracles/common/sum_interval.h"
#include "oracles/layernorm/proven/layernorm.h"
#include "oracles/softmax/proven/softmax_abs.h"
#include "core/tp_format.h"
#include "oracles/common/round_ends.h"
#include "oracles/common/ival_guard.h"
#include "oracles/common/proven/tp_ival_mul.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>

/* The directed roundings below need the library built with
 * -frounding-math (gcc does not implement FENV_ACCESS). */

/* Exact arithmetic on the row's values: D spans 2^48 .. 2^-48, g and s
 * 2^16 .. 2^-24, an fp32 dot down to 2^-149: 400 bits hold every sum and
 * product below without rounding. */
#define XENT_PREC 400

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_acc[] = {"fp32", NULL}, *const m_order[] = {"any", NULL},
                         *const m_fma[] = {"any", "yes", "no", NULL}, *const m_outr[] = {"nearest", NULL};

static const tp_model_key model_keys[] = {
    {"accumulation", m_acc, NULL},
    {"order", m_order, NULL},
    {"fma", m_fma, NULL},
    {"output_rounding", m_outr, NULL},
    {NULL, NULL, NULL}};

static int xent_check_model(const tp_value *model, char *err, size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "accumulation", m_acc, &v, err, errlen) ||
        tp_model_choice(model, "order", m_order, &v, err, errlen) ||
        tp_model_choice(model, "fma", m_fma, &v, err, errlen) ||
        tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen))
        return -1;
    return 0;
}

typedef struct {
    mpfr_t D, A, t, u;
} xent_ws;

/* The kernel's gi = RN32(s RN32(g - dot)) over dot in [dot_lo, dot_hi]:
 * the ends of the proven interval difference and product
 * (oracles/common/proven/tp_ival.c, tp_ival_mul.c, T3) where their
 * requires hold; else the same fp32 operations on the host (in
 * round-to-nearest: exactly the kernel's RN32). *p1 <= *p2 either way. */
static void gi_ends(float g, float s, float dot_lo, float dot_hi, float *p1, float *p2)
{
    const tp_ival32 gv = {g, g}, dv = {dot_lo, dot_hi}, sv = {s, s};
    if (tp_ival32_addsub_ok(gv, dv)) {
        const tp_ival32 d = tp_ival32_sub(gv, dv);
        if (tp_ival32_mul_ok(sv, d)) {
            const tp_ival32 p = tp_ival32_mul(sv, d);
            *p1 = p.lo;
            *p2 = p.hi;
            return;
        }
    }
    const float d_lo = g - dot_hi, d_hi = g - dot_lo;
    const float a = s * d_lo, b = s * d_hi;
    *p1 = a < b ? a : b;
    *p2 = a < b ? b : a;
}

/* One row of s, g (format in) to gi (format out); rounding mode is nearest
 * on entry and on exit. */
static int xent_row(xent_ws *w, const tp_format *in, const tp_format *out, int n, const uint16_t *s16,
                    const uint16_t *g16, float *sf, float *gf, tp_ref *ref)
{
    for (int j = 0; j < n; j++) {
        sf[j] = (float)in->decode(s16[j]);
        gf[j] = (float)in->decode(g16[j]);
        if (!isfinite(sf[j]) || !isfinite(gf[j]))
            return -1;
    }
    /* D and A = sum|g s|, both exact: in chunks the split-double argument
     * covers (tp_ln_row_dot, tp_row_abs_dot), each chunk's pair added in
     * MPFR, where the sums are exact at XENT_PREC */
    mpfr_set_zero(w->D, 1);
    mpfr_set_zero(w->A, 1);
    for (int k0 = 0; k0 < n; k0 += TP_LN_N_MAX) {
        const int len = n - k0 < TP_LN_N_MAX ? n - k0 : TP_LN_N_MAX;
        double hi, lo;
        tp_ln_row_dot(len, gf + k0, sf + k0, &hi, &lo);
        mpfr_add_d(w->D, w->D, hi, MPFR_RNDN);
        mpfr_add_d(w->D, w->D, lo, MPFR_RNDN);
        tp_row_abs_dot(len, gf + k0, sf + k0, &hi, &lo);
        mpfr_add_d(w->A, w->A, hi, MPFR_RNDN);
        mpfr_add_d(w->A, w->A, lo, MPFR_RNDN);
    }
    /* [L, H] holds every real within n C A + n eta of D: the proven
     * any-order sum bound (tp_sum_bound_rn up to 65536 terms,
     * tp_sum_bound_long_rn up to 262144, T3, through sum_interval.h) at D
     * as an exact double pair, A rounded up. D is a sum of binary16
     * products, multiples of 2^-48 below 2^51, so hi = RN(D) and
     * lo = D - hi are exact (lo is a multiple of 2^-48 below ulp(hi)). The
     * requires hold on every row the op accepts; a row where they did not
     * would be refused, not bounded by hand. */
    const double absum = mpfr_get_d(w->A, MPFR_RNDU);
    const double d_hi = mpfr_get_d(w->D, MPFR_RNDN);
    mpfr_sub_d(w->t, w->D, d_hi, MPFR_RNDN);
    const double d_lo = mpfr_get_d(w->t, MPFR_RNDN);
    mpfr_sub_d(w->t, w->t, d_lo, MPFR_RNDN);
    double L, H;
    fesetround(FE_TONEAREST);
    if (!mpfr_zero_p(w->t) || !tp_sum_interval_long(d_hi, d_lo, absum, n, &L, &H))
        return -4;
    /* dot_lo = smallest fp32 >= L, dot_hi = largest fp32 <= H (MPFR's
     * directed rounding of the exact doubles): the fp32 dot lies between */
    mpfr_set_d(w->t, L, MPFR_RNDN);
    const float dot_lo = mpfr_get_flt(w->t, MPFR_RNDU);
    mpfr_set_d(w->t, H, MPFR_RNDN);
    const float dot_hi = mpfr_get_flt(w->t, MPFR_RNDD);
    if (!isfinite(dot_lo) || !isfinite(dot_hi))
        return -2;

    for (int j = 0; j < n; j++) {
        float p1, p2;
        gi_ends(gf[j], sf[j], dot_lo, dot_hi, &p1, &p2);
        /* exact: s * (g - D) */
        mpfr_set_flt(w->u, gf[j], MPFR_RNDN);
        mpfr_sub(w->u, w->u, w->D, MPFR_RNDN);
        mpfr_mul_d(w->u, w->u, (double)sf[j], MPFR_RNDN);
        ref[j].exact = mpfr_get_d(w->u, MPFR_RNDN);
        ref[j].exact_lo = mpfr_get_d(w->u, MPFR_RNDD);
        ref[j].exact_hi = mpfr_get_d(w->u, MPFR_RNDU);
        /* [min, max] of p1, p2 holds every fp32 gi the model admits: the
         * enclosure before the output rounding (tests only may narrow it
         * toward the exact value; 1 = untouched) */
        double a_lo = p1 < p2 ? p1 : p2, a_hi = p1 < p2 ? p2 : p1;
        tp_bound_shrink(ref[j].exact, &a_lo, &a_hi);
        ref[j].allow_lo = tp_round_lower(out, a_lo);
        ref[j].allow_hi = tp_round_upper(out, a_hi);
    }
    return 0;
}

static int xent_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                          size_t errlen)
{
    if (xent_check_model(model, err, errlen) != 0)
        return -1;
    const tp_tensor *s = tp_need_f16(c, "softmax_xent_bwd", "s", err, errlen),
                    *g = s ? tp_need_f16(c, "softmax_xent_bwd", "g", err, errlen) : NULL,
                    *gi = g ? tp_need_f16(c, "softmax_xent_bwd", output, err, errlen) : NULL;
    if (!gi)
        return -1;
    if (s->rank != 2 || g->rank != 2 || gi->rank != 2 || s->shape[0] != g->shape[0] ||
        s->shape[1] != g->shape[1] || gi->shape[0] != s->shape[0] || gi->shape[1] != s->shape[1]) {
        snprintf(err, errlen, "softmax_xent_bwd: s, g and %s must be matrices of the same shape", output);
        return -1;
    }
    const int R = (int)s->shape[0], n = (int)s->shape[1];
    if (n < 1 || n > TP_DOT_N_MAX_LONG) {
        snprintf(err, errlen, "softmax_xent_bwd: rows of %d elements; the fp32 sum bound holds for 1 .. %d", n,
                 TP_DOT_N_MAX_LONG);
        return -1;
    }
    int bad_row = -1, rc_all = 0;
    const int saved = fegetround();
    fesetround(FE_TONEAREST);
#pragma omp parallel
    {
        xent_ws w;
        mpfr_inits2(XENT_PREC, w.D, w.A, w.t, w.u, (mpfr_ptr)0);
        float *sf = malloc((size_t)n * sizeof *sf), *gf = malloc((size_t)n * sizeof *gf);
        fesetround(FE_TONEAREST);
#pragma omp for schedule(dynamic, 4)
        for (int r = 0; r < R; r++) {
            size_t o = (size_t)r * n;
            int rc = sf && gf ? xent_row(&w, tp_format_of(s->dtype), tp_format_of(gi->dtype), n,
                                         (const uint16_t *)s->data + o, (const uint16_t *)g->data + o, sf, gf, ref + o)
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
        mpfr_clears(w.D, w.A, w.t, w.u, (mpfr_ptr)0);
        free(sf);
        free(gf);
    }
    fesetround(saved);
    if (bad_row >= 0) {
        snprintf(err, errlen, "softmax_xent_bwd: row %d: %s", bad_row,
                 rc_all == -1   ? "an input is infinite or NaN; the model covers finite inputs only"
                 : rc_all == -2 ? "the fp32 dot product bound leaves the fp32 range"
                 : rc_all == -4 ? "the row dot product is outside the proven sum bound's range"
                                : "out of memory");
        return -1;
    }
    return 0;
}

static const tp_statement xent_exact = {
    "softmax_xent_bwd.exact.split_double", TP_EVIDENCE,
    "exact row dot products by split-double accumulation (oracles/layernorm/proven/layernorm.c, WP-proven exact in the "
    "IEEE float model for binary16 inputs), s*(g - D) exactly in MPFR"};
static const tp_statement xent_bound = {
    "softmax_xent_bwd.bound.any_order_fp32_dot", TP_EVIDENCE,
    "admitted interval: dot anywhere in the fp32 values within n*%s*sum|g s| + n*2^-149 of D, then "
    "RN32(g - dot), RN32(s*d), binary16"};
static const tp_statement xent_order_hidden = {
    "softmax_xent_bwd.nonclaim.order_hidden", TP_NON_CLAIM,
    "the fp32 dot bound is a worst case over all orders: a lost term smaller than the bound is not detected, and "
    "where g - D cancels, the admitted interval is wide relative to gi"};
static const tp_statement *const xent_statements[] = {&xent_exact, &xent_bound, &xent_order_hidden, NULL};

/* One method and one bound: g*s is exact in fp32 whatever the model's fma;
 * the bound's constant is the one of the row length (tp_sum_c_text). */
static void xent_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)model;
    const tp_tensor *s = tp_case_tensor(c, "s");
    tp_say(out, &xent_exact);
    tp_say(out, &xent_bound, tp_sum_c_text(s && s->rank == 2 ? s->shape[1] : 0));
    tp_say(out, &xent_order_hidden);
}

const tp_op tp_op_softmax_xent_bwd = {"softmax_xent_bwd", "gi[r,j] = s[r,j] (g[r,j] - sum_k g[r,k] s[r,k])",
                                      xent_check_model, xent_reference, xent_say, xent_statements, TP_DTYPE_BIT(TP_F16), model_keys,
    TP_DTYPE_BIT(TP_F16), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
