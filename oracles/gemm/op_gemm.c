/* op "gemm": C = op(A) @ op(B), binary16 in and out, where A and B are the
 * contract's first and second input tensors, C its output, and op() is the
 * identity or, with model.transpose_a / model.transpose_b = true, the
 * transpose (the GEMM backward kernels: gA = gC @ B^T, gB = A^T @ gC).
 *
 * Model (contract [model]): accumulation = "fp32", order = "any",
 * fma = "any" | "yes" | "no". The kernel's fp32 sum of K exact products
 * satisfies, in any order and with or without FMA,
 *     |s - S| <= e = K*TP_DOT_C*sum|a_k b_k| + K*TP_DOT_ETA
 * (oracles/dot_fp32.c proves it for the sequential orders under the
 * standard model of binary32 rounding). The binary16 output RN16(s) then
 * lies in [RN16(S - e), RN16(S + e)] because rounding is monotone: that
 * interval is the set of admitted outputs.
 *
 * accumulation = "fp32_faithful" (chosen by `tolproof check --model` for
 * producers whose fp32 adds do not round to nearest, e.g. tensor cores
 * that truncate on some GPUs): every step's result is one of the two fp32
 * neighbours of its exact value x (x itself when representable). Products
 * of binary16 values are exact in fp32, so each step rounds one exact sum,
 * fused or not. Faithfully, |fl(x) - x| < ulp(x) <= 2^-23 |x| when |x| >=
 * 2^-126, and < 2^-149 (the subnormal spacing) below: fl(x) = x(1 + d) + t
 * with |d| <= u' = 2^-23, |t| <= 2^-149, one of them zero: the standard
 * model with u and the underflow term both doubled. The textbook summation
 * argument then gives, for any order (every term passes through at most K
 * roundings), |s - S| <= gamma'_K sum|a b| + K*2^-149*(1 + u')^K with
 * gamma'_K = K u' / (1 - K u'). For K <= 8192 (the exact reference's
 * limit) K u' <= 2^-10, so 1/(1 - K u') <= 1 + 2^-9 < 1 + 2^-7 and
 * (1 + u')^K <= e^(2^-10) < 2:
 *     e' = K*2^-23*(1+2^-7)*sum|a b| + K*2^-148.
 * (1 + 2^-7 would stop covering 1/(1 - K u') near K = 2^23/129 ~ 65000.)
 * This bound is NOT covered by the WP T3 proof of oracles/dot_fp32.c,
 * which is for round-to-nearest; results under it say so. */
#include "oracles/gemm/proven/gemm.h"
#include "oracles/common/op_common.h"
#include "core/tp_format.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The directed roundings below need the library built with
 * -frounding-math (gcc does not implement FENV_ACCESS). */

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_acc[] = {"fp32", "fp32_faithful", NULL}, *const m_order[] = {"any", "sequential", NULL},
                         *const m_fma[] = {"any", "yes", "no", NULL}, *const m_outr[] = {"nearest", NULL};

static const tp_model_key model_keys[] = {
    {"accumulation", m_acc, NULL},
    {"order", m_order, NULL},
    {"fma", m_fma, NULL},
    {"transpose_a", NULL, "true or false (default false): A enters transposed"},
    {"transpose_b", NULL, "true or false (default false): B enters transposed"},
    {"output_rounding", m_outr, NULL}, /* optional: the reference always rounds to nearest */
    {NULL, NULL, NULL}};

static int gemm_check_model(const tp_value *model, char *err, size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "accumulation", m_acc, &v, err, errlen) ||
        tp_model_choice(model, "order", m_order, &v, err, errlen) ||
        tp_model_choice(model, "fma", m_fma, &v, err, errlen) ||
        (tp_value_get(model, "output_rounding") && tp_model_choice(model, "output_rounding", m_outr, &v, err, errlen)))
        return -1;
    const char *flags[] = {"transpose_a", "transpose_b"};
    for (int i = 0; i < 2; i++) {
        const tp_value *f = tp_value_get(model, flags[i]);
        if (f && !tp_value_is_bool(f)) {
            snprintf(err, errlen, "model.%s must be true or false", flags[i]);
            return -1;
        }
    }
    return 0;
}

/* The operand as a row-major float matrix (transposed when asked):
 * binary16 widens to float exactly. */
static float *widen(const tp_tensor *t, int transpose)
{
    float *f = malloc((size_t)t->numel * sizeof *f);
    const tp_format *fmt = tp_format_of(t->dtype);
    int64_t R = t->shape[0], C = t->shape[1];
    for (int64_t r = 0; f && r < R; r++)
        for (int64_t c = 0; c < C; c++)
            f[transpose ? c * R + r : r * C + c] = (float)tp_format_load(fmt, t->data, r * C + c);
    return f;
}

/* e' of accumulation = "fp32_faithful" (derived at the top): twice the
 * round-to-nearest constants, exactly representable in double. */
#define TP_GEMM_FAITHFUL_C 0x1.02p-23
#define TP_GEMM_FAITHFUL_ETA 0x1p-148

static int faithful(const tp_value *model)
{
    const char *acc = tp_value_string(tp_value_get(model, "accumulation"));
    return acc && strcmp(acc, "fp32_faithful") == 0;
}

/* Ends of [S - e, S + e] with S = hi + lo, rounded outward by running the
 * two additions in the directed modes. */
static void admitted(const tp_format *out, int64_t n, int K, int faith, const double *hi, const double *lo,
                     const double *absum, tp_ref *ref)
{
    int saved = fegetround();
    fesetround(FE_UPWARD);
    /* absum was summed in round-to-nearest: its relative error is below
     * K*2^-53, so absum*(1 + K*2^-52) bounds the true sum from above. */
    double grow = 1.0 + (double)K * 0x1p-52, kc = (double)K * (faith ? TP_GEMM_FAITHFUL_C : TP_DOT_C),
           keta = (double)K * (faith ? TP_GEMM_FAITHFUL_ETA : TP_DOT_ETA);
    double *e = malloc((size_t)n * sizeof *e);
    for (int64_t i = 0; i < n; i++) {
        e[i] = kc * (absum[i] * grow) + keta;
        ref[i].allow_hi = (hi[i] + e[i]) + lo[i];
        ref[i].exact_hi = hi[i] + lo[i];
    }
    fesetround(FE_DOWNWARD);
    for (int64_t i = 0; i < n; i++) {
        ref[i].allow_lo = (hi[i] - e[i]) + lo[i];
        ref[i].exact_lo = hi[i] + lo[i];
    }
    fesetround(saved);
    for (int64_t i = 0; i < n; i++) {
        ref[i].exact = hi[i] + lo[i];
        tp_bound_shrink(ref[i].exact, &ref[i].allow_lo, &ref[i].allow_hi); /* tests only: 1 = untouched */
        ref[i].allow_lo = out->round(ref[i].allow_lo);
        ref[i].allow_hi = out->round(ref[i].allow_hi);
    }
    free(e);
}

static int gemm_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                          size_t errlen)
{
    const tp_tensor *in[2] = {NULL, NULL}, *C = tp_need_f16(c, "gemm", output, err, errlen);
    int nin = 0;
    for (int i = 0; i < c->ntensors && nin < 2; i++)
        if (!c->tensors[i].initial)
            in[nin++] = &c->tensors[i];
    if (!C)
        return -1;
    if (nin < 2 || in[0]->dtype != TP_F16 || in[1]->dtype != TP_F16) {
        snprintf(err, errlen, "gemm needs two f16 input tensors");
        return -1;
    }
    int ta = tp_value_is_true(tp_value_get(model, "transpose_a")), tb = tp_value_is_true(tp_value_get(model, "transpose_b"));
    const tp_tensor *A = in[0], *B = in[1];
    if (A->rank != 2 || B->rank != 2 || C->rank != 2) {
        snprintf(err, errlen, "gemm needs matrices");
        return -1;
    }
    int M = (int)A->shape[ta ? 1 : 0], K = (int)A->shape[ta ? 0 : 1], N = (int)B->shape[tb ? 0 : 1];
    if (B->shape[tb ? 1 : 0] != K || C->shape[0] != M || C->shape[1] != N) {
        snprintf(err, errlen, "gemm: %s%s (%lldx%lld) @ %s%s (%lldx%lld) does not give %s (%lldx%lld)", A->name,
                 ta ? "^T" : "", (long long)A->shape[0], (long long)A->shape[1], B->name, tb ? "^T" : "",
                 (long long)B->shape[0], (long long)B->shape[1], C->name, (long long)C->shape[0],
                 (long long)C->shape[1]);
        return -1;
    }
    if (K > TP_GEMM_K_MAX_EXACT) {
        snprintf(err, errlen, "gemm: K = %d; the exact reference needs K <= %d", K, TP_GEMM_K_MAX_EXACT);
        return -1;
    }
    float *a = widen(A, ta), *b = widen(B, tb);
    size_t n = (size_t)M * (size_t)N;
    double *hi = malloc(n * sizeof *hi), *lo = malloc(n * sizeof *lo), *absum = malloc(n * sizeof *absum);
    int rc = -1;
    if (!a || !b || !hi || !lo || !absum) {
        snprintf(err, errlen, "gemm: out of memory for %dx%dx%d", M, N, K);
        goto out;
    }
    /* Row blocks are independent, so the reference parallelises without
     * changing a single bit of its result. */
#pragma omp parallel for schedule(dynamic, 1)
    for (int r0 = 0; r0 < M; r0 += 16) {
        int rows = M - r0 < 16 ? M - r0 : 16;
        tp_gemm_exact(rows, N, K, a + (size_t)r0 * K, b, hi + (size_t)r0 * N, lo + (size_t)r0 * N);
        tp_gemm_abs(rows, N, K, a + (size_t)r0 * K, b, absum + (size_t)r0 * N);
    }
    admitted(tp_format_of(C->dtype), (int64_t)n, K, faithful(model), hi, lo, absum, ref);
    rc = 0;
out:
    free(a);
    free(b);
    free(hi);
    free(lo);
    free(absum);
    return rc;
}

static const tp_statement gemm_exact = {
    "gemm.exact.split_double", TP_EVIDENCE,
    "exact sums by split-double accumulation (oracles/gemm/proven/gemm.c, WP-proven T1+T2 in the real model; "
    "exactness of each double operation argued there and tested bit for bit against MPFR)"};
static const tp_statement gemm_bound = {
    "gemm.bound.any_order_fp32", TP_EVIDENCE,
    "admitted interval [RN16(S - e), RN16(S + e)], e = K*2^-24*(1+2^-7)*sum|a b| + K*2^-149, ends rounded outward"};
static const tp_statement gemm_bound_faithful = {
    "gemm.bound.faithful_fp32", TP_EVIDENCE,
    "admitted interval [RN16(S - e), RN16(S + e)], e = K*2^-23*(1+2^-7)*sum|a b| + K*2^-148 (accumulation "
    "fp32_faithful: each fp32 step yields a neighbour of its exact value), ends rounded outward"};
static const tp_statement gemm_order_hidden = {
    "gemm.nonclaim.order_hidden", TP_NON_CLAIM,
    "the fp32 accumulation bound is a worst case over all orders: it does not reveal which order the kernel used, "
    "and a lost term smaller than the bound is not detected"};
static const tp_statement gemm_proof_sequential = {
    "gemm.nonclaim.proof_sequential_orders", TP_NON_CLAIM,
    "WP proves the error bound for the sequential orders (oracles/common/proven/dot_fp32.c); other orders rest on "
    "the standard textbook result and on the CPU emulation tests"};
static const tp_statement gemm_faithful_unproven = {
    "gemm.nonclaim.faithful_unproven", TP_NON_CLAIM,
    "accumulation fp32_faithful: its bound (every fp32 step one of the two neighbours of the exact sum) is derived "
    "in oracles/gemm/op_gemm.c and is NOT covered by the WP T3 proof, which is for round-to-nearest"};
static const tp_statement gemm_faithful_alignment = {
    "gemm.nonclaim.faithful_alignment", TP_NON_CLAIM,
    "accumulation fp32_faithful assumes each fp32 step keeps its exact value to within one ulp; hardware that drops "
    "more bits when it aligns partial sums is outside the model"};
static const tp_statement *const gemm_statements[] = {
    &gemm_exact, &gemm_bound, &gemm_bound_faithful, &gemm_order_hidden, &gemm_proof_sequential,
    &gemm_faithful_unproven, &gemm_faithful_alignment, NULL};

/* The bound is the one admitted() used: faithful(model) picks it there. */
static void gemm_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)c;
    int faith = faithful(model);
    tp_say(out, &gemm_exact);
    tp_say(out, faith ? &gemm_bound_faithful : &gemm_bound);
    tp_say(out, &gemm_order_hidden);
    if (faith) {
        tp_say(out, &gemm_faithful_unproven);
        tp_say(out, &gemm_faithful_alignment);
    } else
        tp_say(out, &gemm_proof_sequential);
}

const tp_op tp_op_gemm = {"gemm", "C[m,n] = sum_k op(A)[m,k] op(B)[k,n]", gemm_check_model, gemm_reference,
                          gemm_say, gemm_statements, TP_DTYPE_BIT(TP_F16), model_keys,
    TP_DTYPE_BIT(TP_F16), NULL /* values compared: reference_bits */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */};
