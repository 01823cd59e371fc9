#define _POSIX_C_SOURCE 200809L /* clock_gettime: the element check log entry's seconds */
/* op "gemm": C = op(A) @ op(B), binary16 in and out, where A and B are the
 * contract's first and second input tensors, C its output, and op() is the
 * identity or, with model.transpose_a / model.transpose_b = true, the
 * transpose (the GEMM backward kernels: gA = gC @ B^T, gB = A^T @ gC).
 *
 * Model (contract [model]): accumulation = "fp32", order = "any",
 * fma = "any" | "yes" | "no". The kernel's fp32 sum of K exact products
 * satisfies, in any order and with or without FMA,
 *     |s - S| <= e = K*TP_DOT_C*sum|a_k b_k| + K*TP_DOT_ETA
 * (oracles/common/proven/dot_fp32.c proves it for the sequential orders
 * under the standard model of binary32 rounding). The binary16 output
 * RN16(s) then lies in [RN16(L), RN16(H)] for any [L, H] holding
 * [S - e, S + e], because rounding is monotone: that interval is the set of
 * admitted outputs. [L, H] comes from the proven tp_sum_bound_rn (see
 * admitted() below), slightly wider than [S - e, S + e] by its proven
 * outward widening.
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
 * gamma'_K = K u' / (1 - K u'). For K <= 8192 (the limit of one exact
 * split-double sum, kept for the results recorded under it) K u' <= 2^-10,
 * so 1/(1 - K u') <= 1 + 2^-9 < 1 + 2^-7 and (1 + u')^K <= e^(2^-10) < 2:
 *     e' = K*2^-23*(1+2^-7)*sum|a b| + K*2^-148.
 * (1 + 2^-7 stops covering 1/(1 - K u') near K = 2^23/129 ~ 65000.) For
 * 8192 < K <= 65536 = TP_GEMM_K_MAX, K u' <= 2^-7, so 1/(1 - K u') <=
 * 1/(1 - 2^-7) = 1 + 1/127 < 1 + 3*2^-8 and (1 + u')^K <= e^(2^-7) < 2:
 *     e' = K*2^-23*(1+3*2^-8)*sum|a b| + K*2^-148.
 * The round-to-nearest constant TP_DOT_C = 2^-24*(1+2^-7) needs no such
 * step: the T3 proof of oracles/common/proven/dot_fp32.c holds it for
 * n <= TP_DOT_N_MAX = 65536 (gemm.h).
 * This bound is NOT covered by the WP T3 proof of dot_fp32.c,
 * which is for round-to-nearest; results under it say so. */
#include "oracles/gemm/gemm_long.h"
#include "oracles/gemm/gemm_stream.h"
#include "oracles/gemm/gemm_tiles.h"
#include "oracles/gemm/proven/gemm.h"
#include "oracles/gemm/gemm_exact_provider.h"
#include "core/tp_timings.h"
#include "oracles/gemm/gemm_admitted.h"
#include "oracles/gemm/gemm_check_one.h"
#include "oracles/common/tp_exact_log.h"
#include "oracles/common/op_common.h"
#include "core/tp_big_alloc.h"
#include "core/tp_format.h"

#include <fenv.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    return tp_model_transposes(model, err, errlen);
}

/* e' of accumulation = "fp32_faithful" (derived at the top) in terms of
 * the round-to-nearest constants of tp_sum_bound_rn (C = TP_DOT_C =
 * 2^-24*(1+2^-7), eta = 2^-149; faith_c, faith_eta in
 * oracles/common/proven/tp_sum_bound.acsl): for K <= 8192 it is exactly
 * the bound of 2K terms, K*2^-23*(1+2^-7) = 2K*C and K*2^-148 = 2K*eta
 * (lemma Admits_Faithful). For 8192 < K <= 65536 its constant
 * 2^-23*(1+3*2^-8) is 2C*259/258, so n = ceil(2K*259/258) terms cover it,
 * n*C >= K*2^-23*(1+3*2^-8) and n*eta >= K*2^-148 (an argued step, like
 * the constant; Admits_Faithful is for 2K). n <= 131581 is within the
 * proven range of tp_sum_bound_rn (2^20 terms). */
static double faithful_terms(int K)
{
    if (K <= TP_GEMM_K_MAX_EXACT)
        return 2.0 * K;
    return (double)((2 * (int64_t)K * 259 + 257) / 258);
}

static int faithful(const tp_value *model)
{
    const char *acc = tp_value_string(tp_value_get(model, "accumulation"));
    return acc && strcmp(acc, "fp32_faithful") == 0;
}

/* The admitted interval of each entry, only from proven code plus the
 * output rounding: tp_sum_bound_rn (oracles/common/proven/tp_sum_bound.c,
 * WP T1+T3) turns the exact sum S = hi + lo and the exact abs sum
 * ahi + alo (both from tp_gemm_exact) into a double interval holding every
 * real within e = K*TP_DOT_C*sum|a b| + K*TP_DOT_ETA of S, computed in
 * round-to-nearest and widened by a margin its proof covers; lemma
 * Dot_Interval ties dot_fp32's proven bound to that interval. The faithful
 * constants are twice the round-to-nearest ones, so the faithful interval
 * is the one of 2K terms (lemma Admits_Faithful). With no terms (K = 0,
 * passed as n = 0) the same call encloses S itself: that is the enclosure
 * [exact_lo, exact_hi] of the exact value. tp_bound_shrink is the unit
 * tests' hook (a no-op by default), applied before the output rounding. */
static void admitted(int64_t n, int K, int faith, const double *hi, const double *lo, const double *ahi,
                     const double *alo, tp_ref *ref)
{
    const double terms = faith ? faithful_terms(K) : (double)K;
    for (int64_t i = 0; i < n; i++) {
        double blo, bhi;
        tp_gemm_bound(hi[i], lo[i], ahi[i], alo[i], terms, &ref[i], &blo, &bhi);
        tp_bound_shrink(ref[i].exact, &blo, &bhi);
        tp_gemm_admit_f16(blo, bhi, &ref[i]);
    }
}

/* The CPU path as the provider's cross-check sees it (tp_gemm_cpu_fn):
 * exact sums hi + lo for every element. A chunk pair off gemm_long.c's
 * grid (a changed gemm.c, never seen) yields NaN, which no provider value
 * equals: the cross-check then fails naming the element. */
static void cpu_sums(int M, int N, int K, const float *a, const float *b, double *hi, double *lo)
{
    /* Row blocks are independent, so the reference parallelises without
     * changing a single bit of its result. */
#pragma omp parallel
    {
        tp_gemm_long_work work = {0};
        int ok = K <= TP_GEMM_K_MAX_EXACT || tp_gemm_long_work_alloc(&work, N) == 0;
#pragma omp for schedule(dynamic, 1)
        for (int r0 = 0; r0 < M; r0 += 16) {
            int rows = M - r0 < 16 ? M - r0 : 16;
            double *h = hi + (size_t)r0 * N, *l = lo + (size_t)r0 * N;
            if (!ok || tp_gemm_exact_long(rows, N, K, a + (size_t)r0 * K, b, h, l, &work) != 0)
                for (size_t i = 0; i < (size_t)rows * (size_t)N; i++)
                    h[i] = l[i] = NAN;
        }
        tp_gemm_long_work_free(&work);
    }
}

/* op(T) widened whole (R x C row-major floats), in row blocks in
 * parallel: serially, the two 4096^2 operands and their |x| copies took
 * 0.37 s of a 1.5 s --device check on the GPU host. */
static float *widen(const tp_tensor *t, int transpose)
{
    int64_t R = t->shape[transpose ? 1 : 0], C = t->shape[transpose ? 0 : 1];
    float *f = tp_big_alloc((size_t)t->numel * sizeof *f); /* huge pages: fewer faults as the rows are written */
    if (f) {
#pragma omp parallel for schedule(static)
        for (int64_t r0 = 0; r0 < R; r0 += 64)
            tp_gemm_widen_rows(t, transpose, r0, R - r0 < 64 ? R - r0 : 64, f + r0 * C);
    }
    return f;
}

/* With an exact provider (a GPU): both exact sums, S = sum a b and the abs
 * sum A = sum |a b|, over the whole matrix from the provider in one call,
 * with a sample of each cross-checked against cpu_sums (on the operands
 * and on their |x|). The state of a reference by ranges
 * (tp_op.reference_prepare): the sums, from which any range of elements'
 * admitted intervals follows. When the provider offers its own element
 * check (check_f16), the sums stay on it (kept) and come back only when a
 * range of references is asked for (gemm_reference_ready). */
typedef struct {
    int K, faith;
    double *hi, *lo, *ahi, *alo; /* NULL while kept */
    int kept;
    size_t *sample, nsample;   /* kept: the cross-checked sample and its sums */
    double *shi, *slo, *sahi, *salo;
    size_t n;
} provider_sums;

static void provider_sums_free(void *state)
{
    provider_sums *p = state;
    if (!p)
        return;
    if (p->kept)
        tp_gemm_exact_provider_get()->release();
    free(p->hi);
    free(p->lo);
    free(p->ahi);
    free(p->alo);
    free(p->sample);
    free(p->shi); /* one block: slo, sahi, salo follow it */
    free(p);
}

static double gemm_terms(int K, int faith) { return faith ? faithful_terms(K) : (double)K; }

/* op(T) of a binary16 R x C tensor T (T^T when transpose), as the
 * provider reads it. */
static tp_gemm_f16_operand f16_operand(const tp_tensor *t, int transpose)
{
    tp_gemm_f16_operand o = {t->data, t->shape[1], 1};
    if (transpose) {
        o.rs = 1;
        o.cs = t->shape[1];
    }
    return o;
}

/* keep: leave the sums on a provider that can check there; it reads the
 * binary16 operands (no widened copy). */
static provider_sums *provider_sums_compute(const tp_tensor *A, int ta, const tp_tensor *B, int tb, int M, int N,
                                            int K, int faith, int keep, const char *output, char *err, size_t errlen)
{
    const tp_gemm_exact_provider *prov = tp_gemm_exact_provider_get();
    keep = keep && prov->sums_kept && prov->gather && prov->fetch && prov->check_f16 && prov->release &&
           !tp_bound_shrink_active();
    size_t n = (size_t)M * (size_t)N;
    provider_sums *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "gemm: out of memory for %dx%dx%d", M, N, K);
        return NULL;
    }
    p->K = K;
    p->faith = faith;
    p->n = n;
    if (keep) {
        const tp_gemm_f16_operand a = f16_operand(A, ta), b = f16_operand(B, tb);
        if (tp_gemm_exact_sums_kept(output, M, N, K, &a, &b, cpu_sums, &p->sample, &p->nsample, &p->shi, &p->slo,
                                    &p->sahi, &p->salo, err, errlen) != 0) {
            provider_sums_free(p);
            return NULL;
        }
        p->kept = 1;
        return p;
    }
    double t = tp_timing_start();
    float *a = widen(A, ta), *b = widen(B, tb);
    tp_timing_end(t, "gemm %s: operands widened to binary32", output);
    p->hi = tp_big_alloc(n * sizeof(double));
    p->lo = tp_big_alloc(n * sizeof(double));
    p->ahi = tp_big_alloc(n * sizeof(double));
    p->alo = tp_big_alloc(n * sizeof(double));
    if (!a || !b || !p->hi || !p->lo || !p->ahi || !p->alo) {
        snprintf(err, errlen, "gemm: out of memory for %dx%dx%d", M, N, K);
        provider_sums_free(p);
        p = NULL;
    } else if (tp_gemm_exact_sums(output, M, N, K, a, b, p->hi, p->lo, p->ahi, p->alo, cpu_sums, err, errlen) != 0) {
        provider_sums_free(p);
        p = NULL;
    }
    free(a);
    free(b);
    return p;
}

/* Admitted intervals of elements [from, to): element by element, so any
 * split into ranges gives the same bits. */
static void provider_range(const void *state, int64_t from, int64_t to, tp_ref *ref)
{
    const provider_sums *p = state;
    admitted(to - from, p->K, p->faith, p->hi + from, p->lo + from, p->ahi + from, p->alo + from, ref);
}

/* Kept sums copied back, for provider_range. */
static int gemm_reference_ready(void *state, char *err, size_t errlen)
{
    provider_sums *p = state;
    if (p->hi)
        return 0;
    double t = tp_timing_start();
    char inner[600] = "";
    p->hi = tp_big_alloc(p->n * sizeof(double));
    p->lo = tp_big_alloc(p->n * sizeof(double));
    p->ahi = tp_big_alloc(p->n * sizeof(double));
    p->alo = tp_big_alloc(p->n * sizeof(double));
    if (!p->hi || !p->lo || !p->ahi || !p->alo) {
        snprintf(err, errlen, "gemm: out of memory for the exact sums of %zu elements", p->n);
        return -1;
    }
    if (tp_gemm_exact_provider_get()->fetch(p->hi, p->lo, p->ahi, p->alo, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "exact provider %s: %s", tp_gemm_exact_provider_get()->name, inner);
        return -1;
    }
    tp_gemm_exact_normalize(p->n, p->hi, p->lo);
    tp_gemm_exact_normalize(p->n, p->ahi, p->alo);
    tp_timing_end(t, "gemm: exact sums copied back from the provider");
    return 0;
}

/* Every field of a tally up to its last member: the struct has no
 * padding before it (harness/tp_check_elem.h: 8-byte members, then ints). */
static int tally_same(const tp_check_tally *a, const tp_check_tally *b)
{
    return memcmp(a, b, offsetof(tp_check_tally, unordered) + sizeof a->unordered) == 0;
}

/* The provider's element check, then the cross-check of what it computed:
 * every sampled element's tally (its reference, verdict, err, ratio, audit)
 * computed again here from the sample's cross-checked sums with the same
 * source, bit for bit; a difference is an error, not a verdict. */
static int gemm_check_elsewhere(void *state, const tp_tensor *out, double atol, double rtol, int64_t chunk,
                                void *tallies, char *err, size_t errlen)
{
    provider_sums *p = state;
    if (!p->kept || p->hi)
        return 1;
    const tp_gemm_exact_provider *prov = tp_gemm_exact_provider_get();
    const double terms = gemm_terms(p->K, p->faith);
    tp_check_tally *st = calloc(p->nsample ? p->nsample : 1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "gemm: out of memory for the element check's cross-check");
        return -1;
    }
    double t0 = tp_timing_start();
    struct timespec w0, w1; /* the log's seconds, whether or not --timings is on */
    clock_gettime(CLOCK_MONOTONIC, &w0);
    char inner[600] = "";
    if (prov->check_f16((const uint16_t *)out->data, terms, atol, rtol, chunk, tallies, p->nsample, p->sample, st,
                        sizeof *st, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "exact provider %s: element check: %s", prov->name, inner);
        free(st);
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &w1);
    const double seconds = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
    tp_timing_end(t0, "element check of %s by provider %s", out->name, prov->name);
    double t1 = tp_timing_start();
    int64_t bad = 0, checked = 0;
    for (size_t q = 0; q < p->nsample && !bad; q++, checked++) {
        const size_t i = p->sample[q];
        tp_check_tally mine;
        memset(&mine, 0, sizeof mine);
        tp_gemm_check_one((int64_t)i, p->shi[q], p->slo[q], p->sahi[q], p->salo[q], ((const uint16_t *)out->data)[i],
                          terms, atol, rtol, &mine);
        if (!tally_same(&mine, &st[q])) {
            bad = 1;
            snprintf(err, errlen,
                     "exact provider %s: its element check disagrees with the CPU's at %s[%zu, %zu] (reference, "
                     "verdict or statistics of that element)",
                     prov->name, out->name, i / (size_t)out->shape[1], i % (size_t)out->shape[1]);
        }
    }
    free(st);
    tp_timing_end(t1, "%lld elements of the element check cross-checked on the CPU", (long long)checked);
    tp_exact_check rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.output, sizeof rec.output, "%s.element_check", out->name);
    snprintf(rec.provider, sizeof rec.provider, "%s", prov->name);
    snprintf(rec.device, sizeof rec.device, "%s", prov->device ? prov->device() : "");
    snprintf(rec.algorithm, sizeof rec.algorithm,
             "the admitted intervals (oracles/gemm/gemm_admitted.h with the proven tp_sum_bound_rn) and the element "
             "rule (harness/tp_check_elem.h) compiled for the device, from the kept exact sums");
    snprintf(rec.against, sizeof rec.against,
             "the same source on the CPU, element by element, from the sample's cross-checked exact sums");
    rec.elements = (int64_t)p->n;
    rec.sampled = checked;
    rec.disagreements = bad;
    rec.seed = tp_gemm_cross_check_seed();
    rec.seconds = seconds;
    tp_exact_log_add(&rec);
    return bad ? -1 : 0;
}

static int provider_reference(const tp_tensor *A, int ta, const tp_tensor *B, int tb, int M,
                              int N, int K, int faith, const char *output, tp_ref *ref, char *err, size_t errlen)
{
    provider_sums *p = provider_sums_compute(A, ta, B, tb, M, N, K, faith, 0, output, err, errlen);
    if (!p)
        return -1;
    double t = tp_timing_start();
    const int64_t n = (int64_t)M * N, chunk = 65536, nchunks = (n + chunk - 1) / chunk;
    const int mode = fegetround(); /* to nearest: tp_sum_bound_rn and the output rounding assume it */
#pragma omp parallel
    {
        int saved = fegetround();
        fesetround(mode);
#pragma omp for schedule(static)
        for (int64_t q = 0; q < nchunks; q++)
            provider_range(p, q * chunk, n - q * chunk < chunk ? n : (q + 1) * chunk, ref + q * chunk);
        fesetround(saved);
    }
    tp_timing_end(t, "gemm %s: admitted intervals from the exact sums", output);
    provider_sums_free(p);
    return 0;
}

/* A GEMM case's operands and sizes, checked. */
typedef struct {
    const tp_tensor *A, *B;
    int ta, tb, M, N, K, faith;
    const tp_format *fmt;
} gemm_operands;

static int gemm_operands_of(const tp_value *model, const tp_case *c, const char *output, gemm_operands *g,
                            char *err, size_t errlen)
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
    if (K > TP_GEMM_K_MAX) {
        snprintf(err, errlen,
                 "gemm: K = %d; the reference needs K <= %d (its exact sums run in chunks of %d, and the fp32 "
                 "accumulation bound is derived for K <= %d)",
                 K, TP_GEMM_K_MAX, TP_GEMM_K_MAX_EXACT, TP_GEMM_K_MAX);
        return -1;
    }
    *g = (gemm_operands){A, B, ta, tb, M, N, K, faithful(model), tp_format_of(C->dtype)};
    return 0;
}

/* One row block of the CPU stream into its admitted intervals. */
typedef struct {
    int K, faith;
    tp_ref *ref;
} gemm_block_ctx;

static void gemm_block(void *ctx, int r0, int rows, int N, const double *hi, const double *lo, const double *ahi,
                       const double *alo)
{
    const gemm_block_ctx *g = ctx;
    admitted((int64_t)rows * N, g->K, g->faith, hi, lo, ahi, alo, g->ref + (size_t)r0 * N);
}

static int gemm_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                          size_t errlen)
{
    gemm_operands g;
    if (gemm_operands_of(model, c, output, &g, err, errlen) != 0)
        return -1;
    const tp_tensor *A = g.A, *B = g.B;
    const int ta = g.ta, tb = g.tb, M = g.M, N = g.N, K = g.K, faith = g.faith;
    if (tp_gemm_exact_provider_get())
        return provider_reference(A, ta, B, tb, M, N, K, faith, output, ref, err, errlen);
    /* The CPU path streams row blocks of both exact sums from the proven
     * one-pass tiles (oracles/gemm/gemm_tiles.c), each turned into
     * admitted intervals at once: nothing of size M x N but the caller's
     * ref. */
    gemm_block_ctx bc = {K, faith, ref};
    return tp_gemm_exact_stream_tiles(A, ta, B, tb, M, N, K, gemm_block, &bc, "gemm", err, errlen);
}

/* By ranges only with a provider: its sums are computed whole anyway, and
 * the admitted intervals follow element by element. The CPU path streams
 * row blocks into the whole reference (gemm_reference). */
static int gemm_reference_prepare(const tp_value *model, const tp_case *c, const char *output, void **state,
                                  char *err, size_t errlen)
{
    *state = NULL;
    if (!tp_gemm_exact_provider_get())
        return 0;
    gemm_operands g;
    if (gemm_operands_of(model, c, output, &g, err, errlen) != 0)
        return -1;
    *state = provider_sums_compute(g.A, g.ta, g.B, g.tb, g.M, g.N, g.K, g.faith, 1, output, err, errlen);
    return *state ? 0 : -1;
}

static const tp_statement gemm_exact = {
    "gemm.exact.split_double", TP_EVIDENCE,
    "exact sums by split-double accumulation, sum a b and sum |a b| in one pass (oracles/gemm/proven/gemm_tile.c, "
    "each tile of one row and 8 columns: WP-proven exact in the IEEE float model for binary16 inputs; the tiles over "
    "rows, column panels and K-blocks, oracles/gemm/gemm_tiles.c, tested against 128-bit integer sums, not proven)"};
static const tp_statement gemm_exact_chunks = {
    "gemm.exact.k_chunks", TP_EVIDENCE,
    "K > 8192: the one-pass tiles run on K-chunks of at most 8192 terms, combined exactly in 128-bit integers "
    "(oracles/gemm/gemm_tiles.c with the steps of oracles/gemm/gemm_long.c, which argues them; tested against "
    "128-bit integer sums at K = 65536)"};
static const tp_statement gemm_bound = {
    "gemm.bound.any_order_fp32", TP_EVIDENCE,
    "admitted interval [RN16(S - e), RN16(S + e)], e = K*2^-24*(1+2^-7)*sum|a b| + K*2^-149, ends rounded outward"};
static const tp_statement gemm_bound_faithful = {
    "gemm.bound.faithful_fp32", TP_EVIDENCE,
    "admitted interval [RN16(S - e), RN16(S + e)], e = K*2^-23*(1+2^-7)*sum|a b| + K*2^-148 (accumulation "
    "fp32_faithful: each fp32 step yields a neighbour of its exact value), ends rounded outward"};
static const tp_statement gemm_bound_faithful_long = {
    "gemm.bound.faithful_fp32_long", TP_EVIDENCE,
    "admitted interval [RN16(S - e), RN16(S + e)], e = K*2^-23*(1+3*2^-8)*sum|a b| + K*2^-148 (accumulation "
    "fp32_faithful, 8192 < K <= 65536: each fp32 step yields a neighbour of its exact value), ends rounded outward"};
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
    &gemm_exact, &gemm_exact_chunks, &gemm_bound, &gemm_bound_faithful, &gemm_bound_faithful_long,
    &gemm_order_hidden, &gemm_proof_sequential, &gemm_faithful_unproven, &gemm_faithful_alignment, NULL};

/* The case's K (0 when its tensors do not say: the reference refuses it). */
static int64_t gemm_k(const tp_value *model, const tp_case *c)
{
    for (int i = 0; i < c->ntensors; i++)
        if (!c->tensors[i].initial && c->tensors[i].rank == 2)
            return c->tensors[i].shape[tp_value_is_true(tp_value_get(model, "transpose_a")) ? 0 : 1];
    return 0;
}

/* The bound is the one admitted() used: faithful(model) picks it there. */
static void gemm_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    int faith = faithful(model), chunks = gemm_k(model, c) > TP_GEMM_K_MAX_EXACT;
    tp_say(out, &gemm_exact);
    if (chunks)
        tp_say(out, &gemm_exact_chunks);
    tp_say(out, !faith ? &gemm_bound : chunks ? &gemm_bound_faithful_long : &gemm_bound_faithful);
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
    NULL /* nonfinite_inputs: the model covers finite inputs only */, NULL /* check_case */,
    gemm_reference_prepare, provider_range, provider_sums_free, gemm_check_elsewhere, gemm_reference_ready};
