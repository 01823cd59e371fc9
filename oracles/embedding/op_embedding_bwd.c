/* op "embedding_bwd": gW[v, d] = gW0[v, d] + sum of gout[i, d] over the
 * queries i with idx[i] = v, where gW0 is gW's pre-launch content (the
 * contract's init, zeros for the pilot). Tensors: idx (i32, n), gout (f16,
 * n x D), gW (f16, V x D). The exact sums come from the proven scatter of
 * oracles/embedding/proven/embedding_scatter.c.
 *
 * Each element receives m terms t_1..t_m (its gradients, plus gW0 when it
 * is not zero); let S be their exact sum. Two models (contract [model]):
 *
 * accumulation = "fp32" (the pilot oracle's assumption): an fp32 sum of the
 * m terms in any order, rounded once to fp16. |s - S| <= e = m*C(m)*
 * sum|t| + m*TP_DOT_ETA (the GEMM bound of oracles/gemm.h: every term is
 * exact in fp32; C(m) = tp_sum_c(m) of oracles/common/sum_bound.h, TP_DOT_C
 * up to 65536 terms) and rounding is monotone, so admitted [RN16(S-e),
 * RN16(S+e)].
 *
 * accumulation = "fp16_per_step" (the kernel's CAS loop): a_1 = t_p(1) and
 * a_k = RN16(RN32(a_{k-1} + t_p(k))) for an order p the hardware picks.
 * Step k rounds z_k = a_{k-1} + t_p(k) = s_k + E_{k-1}, where s_k is the
 * exact sum of the k terms added so far and E_{k-1} = a_{k-1} - s_{k-1}.
 * Whatever the order, s_k lies between L_k (sum of the k smallest terms)
 * and H_k (sum of the k largest), so |z_k| <= X_k = max(H_k, -L_k) + B_{k-1}
 * with B_1 = 0. The step's error is at most
 *     |RN16(y) - y| + |y - z_k|,  y = RN32(z_k),
 * <= h16(X_k (1 + 2^-23)) + 2^-24 X_k,
 * h16(x) = half an fp16 ulp at magnitude x (2^-25 below 2^-14), a step
 * function that is monotone, and |y| <= X_k (1 + 2^-24). (No appeal to the
 * theorem that this double rounding is innocuous: the 2^-24 X_k term pays
 * for it.) B_k = B_{k-1} + that, and the result a_m is a binary16 value
 * within B_m of S: the admitted interval is [ceil16(S - B_m), floor16(S +
 * B_m)]. Overflow: a partial sum reaching 65520 in magnitude rounds to
 * +-inf and stays there (inf + finite = inf), and no other step of the
 * bound holds beyond it. If some order can make z_k >= 65512 (H_k + B_{k-1},
 * with margin for the fp32 rounding), +inf is admitted, and likewise -inf;
 * the finite part of the interval still holds for the orders that never
 * overflow (their every |z_k| < 65520 keeps each step's bound, with h16
 * capped at its last finite value 16).
 *
 * Every quantity is computed with upward rounding (partial sums of binary16
 * values are exact in double for m <= 8192; beyond, H_k and -L_k are sums
 * rounded up, so upper bounds still). S is exact in int64 fixed point
 * (embedding_exact.c); where it is not a double, the bound starts from S
 * rounded down (lower end) and up (upper end). The bound is not the tightest
 * possible: each step takes the worst partial sum over all orders, which
 * no single order reaches at every step. */
#include "oracles/embedding/embedding_exact.h"
#include "oracles/embedding/proven/embedding_scatter.h" /* TP_EMBEDDING_MAX_TERMS: one proven chunk */
#include "oracles/common/sum_bound.h" /* tp_sum_c, TP_DOT_ETA: the fp32 accumulation bound, derived per length */
#include <limits.h>
#include "oracles/common/op_common.h"
#include "core/tp_format.h"
#include "oracles/common/round_ends.h"
#include "oracles/common/sum_interval.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>

/* Every real within e = m*C(m)*abs + m*TP_DOT_ETA of the exact sum
 * S = fx 2^-24 (abs >= sum |t|): the proven bound's interval where it
 * applies (oracles/common/sum_interval.h), else the same bound in directed
 * rounding from S's double enclosure. */
static void fp32_sum_interval(int64_t fx, double ex_lo, double ex_hi, double abs, int m, double *lo, double *hi)
{
    if (tp_sum_interval_fix24(fx, abs, m, lo, hi))
        return;
    const int saved = fegetround();
    fesetround(FE_UPWARD);
    const double e = (double)m * tp_sum_c(m) * abs + (double)m * TP_DOT_ETA;
    *hi = ex_hi + e;
    fesetround(FE_DOWNWARD);
    *lo = ex_lo - e;
    fesetround(saved);
}

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_acc[] = {"fp16_per_step", "fp32", NULL}, *const m_order[] = {"any", NULL},
                         *const m_outr[] = {"nearest", NULL};

static const tp_model_key model_keys[] = {
    {"accumulation", m_acc, NULL},
    {"order", m_order, NULL},
    {"output_rounding", m_outr, NULL}, /* with accumulation = "fp32" */
    {"step", NULL, "optional words on how one accumulation step rounds (documentation: accumulation decides the bound)"},
    {NULL, NULL, NULL}};

static int embedding_bwd_check_model(const tp_value *model, char *err, size_t errlen)
{
    const char *a, *v;
    if (tp_model_choice(model, "accumulation", m_acc, &a, err, errlen) ||
        tp_model_choice(model, "order", m_order, &v, err, errlen))
        return -1;
    if (strcmp(a, "fp32") == 0 && tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen))
        return -1;
    const tp_value *step = tp_value_get(model, "step");
    if (step && !tp_value_string(step)) {
        snprintf(err, errlen, "model.step must be a string (words on one accumulation step)");
        return -1;
    }
    return 0;
}

/* Half an fp16 ulp at magnitude x >= 0, capped at the last finite binade. */
static double half_ulp16(double x)
{
    if (x < 0x1p-14)
        return 0x1p-25;
    if (x >= 32768.0)
        return 16.0;
    int e;
    (void)frexp(x, &e); /* x = f 2^e, f in [0.5, 1): 2^(e-1) <= x < 2^e */
    return ldexp(1.0, e - 1 - 11);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Admitted interval of one element under fp16_per_step: t[0..m-1] sorted
 * ascending, S their exact sum (rounded: S_lo <= S <= S_hi, all three equal
 * when S is a double); gW is binary16 (tp_need_f16: the model's steps are
 * binary16 roundings). Runs in FE_UPWARD. */
static void per_step(const double *t, int m, double S, double S_lo, double S_hi, tp_ref *r)
{
    double B = 0.0;
    int up = 0, down = 0;
    double nlo = 0.0, hi = 0.0; /* -L_1, H_1 built incrementally */
    nlo = -t[0];
    hi = t[m - 1];
    for (int k = 2; k <= m; k++) {
        nlo += -t[k - 1]; /* exact up to 2^13 terms (sums of binary16 values), rounded up beyond */
        hi += t[m - k];
        double X = fmax(hi, nlo) + B;
        if (hi + B >= 65512.0)
            up = 1;
        if (nlo + B >= 65512.0)
            down = 1;
        double Xr = X * (1.0 + 0x1p-23);
        B = B + (half_ulp16(fmin(Xr, 65504.0)) + X * 0x1p-24);
    }
    double lo_end, hi_end = S_hi + B;
    fesetround(FE_DOWNWARD);
    lo_end = S_lo - B;
    fesetround(FE_UPWARD);
    tp_bound_shrink(S, &lo_end, &hi_end); /* tests only: 1 = untouched */
    /* the binary16 values inside the bound: the proven ceiling and floor
     * (oracles/common/f16_ends.h; comparisons only, exact in FE_UPWARD) */
    r->allow_lo = down ? -INFINITY : tp_f16_ceil(lo_end);
    r->allow_hi = up ? INFINITY : tp_f16_floor(hi_end);
}

static int embedding_bwd_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref,
                                   char *err, size_t errlen)
{
    const tp_tensor *idx = tp_case_tensor(c, "idx"), *G = tp_need_f16(c, "embedding_bwd", "gout", err, errlen);
    const tp_tensor *gW = G ? tp_need_f16(c, "embedding_bwd", output, err, errlen) : NULL;
    if (!G || !gW)
        return -1;
    if (!idx || idx->dtype != TP_I32 || idx->rank != 1) {
        snprintf(err, errlen, "embedding_bwd needs an i32 vector named idx");
        return -1;
    }
    if (G->rank != 2 || gW->rank != 2 || G->shape[0] != idx->shape[0] || G->shape[1] != gW->shape[1] ||
        !gW->initial) {
        snprintf(err, errlen, "embedding_bwd: gout must be n x D with n = len(idx), %s V x D with an init", output);
        return -1;
    }
    const int per = strcmp(tp_value_string(tp_value_get(model, "accumulation")), "fp16_per_step") == 0;
    int64_t n = idx->shape[0], V = gW->shape[0], D = gW->shape[1];
    if (n > TP_EMBEDDING_N_MAX || n * D > INT_MAX || V * D > INT_MAX) {
        snprintf(err, errlen, "embedding_bwd: n = %lld; the exact reference needs n <= %d and n*D, V*D < 2^31",
                 (long long)n, TP_EMBEDDING_N_MAX);
        return -1;
    }
    const int32_t *ix = idx->data;
    for (int64_t i = 0; i < n; i++)
        if (ix[i] < 0 || ix[i] >= V) {
            snprintf(err, errlen, "embedding_bwd: idx[%lld] = %d is outside [0, %lld): the kernel would write "
                     "outside %s", (long long)i, ix[i], (long long)V, output);
            return -1;
        }
    const uint16_t *g16 = G->data, *w0 = gW->initial;
    const tp_format *fg = tp_format_of(G->dtype), *fo = tp_format_of(gW->dtype);
    float *g = malloc((size_t)(n * D) * sizeof *g);
    int64_t *S = malloc((size_t)(V * D > 0 ? V * D : 1) * sizeof *S); /* 2^24 times the exact sums */
    double *t = malloc((size_t)(n + 1) * sizeof *t);
    int64_t *start = calloc((size_t)V + 1, sizeof *start), *rows = malloc((size_t)(n ? n : 1) * sizeof *rows);
    int rc = -1;
    if (!g || !S || !t || !start || !rows) {
        snprintf(err, errlen, "embedding_bwd: out of memory");
        goto out;
    }
    for (int64_t k = 0; k < n * D; k++) {
        if (fg->is_nan(g16[k]) || fg->is_inf(g16[k])) {
            snprintf(err, errlen, "embedding_bwd: gout has a non-finite element at %lld", (long long)k);
            goto out;
        }
        g[k] = (float)fg->decode(g16[k]);
    }
    for (int64_t k = 0; k < V * D; k++)
        if (fo->is_nan(w0[k]) || fo->is_inf(w0[k])) {
            snprintf(err, errlen, "embedding_bwd: %s's init has a non-finite element", output);
            goto out;
        }
    if (tp_embedding_scatter_fix((int)n, (int)V, (int)D, ix, g, S) != 0) {
        snprintf(err, errlen, "embedding_bwd: the exact sums failed (out of memory?)");
        goto out;
    }
    /* the queries of each row, in index order (counting sort) */
    for (int64_t i = 0; i < n; i++)
        start[ix[i] + 1]++;
    for (int64_t v = 0; v < V; v++)
        start[v + 1] += start[v];
    {
        int64_t *fill = malloc((size_t)V * sizeof *fill);
        if (!fill) {
            snprintf(err, errlen, "embedding_bwd: out of memory");
            goto out;
        }
        for (int64_t v = 0; v < V; v++)
            fill[v] = start[v];
        for (int64_t i = 0; i < n; i++)
            rows[fill[ix[i]]++] = i;
        free(fill);
    }
    int saved = fegetround();
    for (int64_t v = 0; v < V; v++)
        for (int64_t d = 0; d < D; d++) {
            tp_ref *r = &ref[v * D + d];
            int m = 0;
            double a0 = fo->decode(w0[v * D + d]);
            if (a0 != 0.0)
                t[m++] = a0;
            for (int64_t q = start[v]; q < start[v + 1]; q++)
                t[m++] = g[rows[q] * D + d];
            /* the exact sum with gW0, 2^24 times: a0 is a binary16 value
             * (an integer times 2^-24 below 2^16), so exact in int64 */
            const int64_t fx = S[v * D + d] + (int64_t)(a0 * 0x1p24);
            fesetround(FE_DOWNWARD);
            const double ex_lo = tp_embedding_fix_to_double(fx);
            fesetround(FE_UPWARD);
            const double ex_hi = tp_embedding_fix_to_double(fx);
            fesetround(FE_TONEAREST);
            const double ex = tp_embedding_fix_to_double(fx);
            fesetround(saved);
            /* one double (ex_lo == ex == ex_hi) up to 2^13 terms: below 2^29 */
            r->exact = ex;
            r->exact_lo = ex_lo;
            r->exact_hi = ex_hi;
            if (m == 0) {
                r->allow_lo = r->allow_hi = a0;
                continue;
            }
            if (per) {
                qsort(t, (size_t)m, sizeof *t, cmp_double);
                fesetround(FE_UPWARD);
                per_step(t, m, ex, ex_lo, ex_hi, r);
                fesetround(saved);
            } else {
                fesetround(FE_UPWARD);
                double abs = 0.0;
                for (int k = 0; k < m; k++)
                    abs += fabs(t[k]); /* exact up to 2^13 terms, rounded up beyond */
                fesetround(saved);
                double lo, hi;
                fp32_sum_interval(fx, ex_lo, ex_hi, abs, m, &lo, &hi);
                tp_bound_shrink(ex, &lo, &hi); /* tests only: 1 = untouched */
                r->allow_lo = tp_round_lower(fo, lo);
                r->allow_hi = tp_round_upper(fo, hi);
            }
        }
    rc = 0;
out:
    free(g);
    free(S);
    free(t);
    free(start);
    free(rows);
    return rc;
}

static const tp_statement emb_bwd_exact = {
    "embedding_bwd.exact.double_rows", TP_EVIDENCE,
    "exact sums per row in double (oracles/embedding/proven/embedding_scatter.c, WP-proven exact in the IEEE "
    "float model for binary16 inputs and at most 8192 queries)"};
static const tp_statement emb_bwd_exact_chunked = {
    "embedding_bwd.exact.chunked", TP_EVIDENCE,
    "more than 8192 queries: the proven scatter on chunks of 8192 queries (the rows a chunk hits renumbered), each "
    "chunk's sums converted to int64 at scale 2^24 and added, each conversion checked exact "
    "(oracles/embedding/embedding_exact.c)"};
static const tp_statement emb_bwd_bound_per_step = {
    "embedding_bwd.bound.fp16_per_step", TP_EVIDENCE,
    "model fp16_per_step: admitted [ceil16(S - B), floor16(S + B)], B summed step by step over the largest partial "
    "sum any order can reach, each step's fp32-then-fp16 rounding bounded by h16(X(1+2^-23)) + 2^-24 X; +-inf "
    "admitted where an order can overflow; ends rounded outward"};
static const tp_statement emb_bwd_bound_fp32 = {
    "embedding_bwd.bound.fp32", TP_EVIDENCE,
    "model fp32: [RN16(S - e), RN16(S + e)], e = m*2^-24*(1+2^-7)*sum|g| + m*2^-149; ends rounded outward"};
static const tp_statement emb_bwd_bound_fp32_long = {
    "embedding_bwd.bound.fp32_long", TP_EVIDENCE,
    "model fp32 (n + 1 > 65536): [RN16(S - e), RN16(S + e)], e = m*C*sum|g| + m*2^-149 with C = 2^-24*(1+2^-7) for "
    "m <= 65536 terms and 2^-24*1.14453125 >= u/(1 - m u) for more (oracles/common/sum_bound.h); ends rounded "
    "outward"};
static const tp_statement emb_bwd_order_hidden = {
    "embedding_bwd.nonclaim.order_hidden", TP_NON_CLAIM,
    "the bounds are worst cases over all orders of the adds: they do not reveal the order the GPU used, and an "
    "error smaller than the bound (e.g. a lost small add) is not detected"};
static const tp_statement emb_bwd_unproven = {
    "embedding_bwd.nonclaim.bound_unproven", TP_NON_CLAIM,
    "the per-step bound and the fp32 bound are not WP-proven (T3): they rest on the argument in "
    "oracles/embedding/op_embedding_bwd.c and on CPU emulations under many random orders"};
static const tp_statement *const embedding_bwd_statements[] = {
    &emb_bwd_exact, &emb_bwd_exact_chunked, &emb_bwd_bound_per_step, &emb_bwd_bound_fp32, &emb_bwd_bound_fp32_long,
    &emb_bwd_order_hidden, &emb_bwd_unproven, NULL};

/* The bound is the one the reference picked by model.accumulation. */
static void embedding_bwd_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    const int per = strcmp(tp_value_string(tp_value_get(model, "accumulation")), "fp16_per_step") == 0;
    const tp_tensor *idx = tp_case_tensor(c, "idx");
    const int64_t n = idx ? idx->numel : 0;
    tp_say(out, &emb_bwd_exact);
    if (n > TP_EMBEDDING_MAX_TERMS) /* more than one proven chunk */
        tp_say(out, &emb_bwd_exact_chunked);
    tp_say(out, per ? &emb_bwd_bound_per_step : n + 1 > 65536 ? &emb_bwd_bound_fp32_long : &emb_bwd_bound_fp32);
    tp_say(out, &emb_bwd_order_hidden);
    tp_say(out, &emb_bwd_unproven);
}

const tp_op tp_op_embedding_bwd = {"embedding_bwd", "gW[v,d] = gW0[v,d] + sum_{i: idx[i]=v} gout[i,d]",
                                   embedding_bwd_check_model, embedding_bwd_reference, embedding_bwd_say,
                                   embedding_bwd_statements, TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_I32),
                                   model_keys,
    TP_DTYPE_BIT(TP_F16), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
