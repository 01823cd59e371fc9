/* Op contraction (oracles/generic/op_contraction.c, issue 11's third
 * generic family):
 *  - with the epilogue `acc` alone it gives op gemm's references, bit for
 *    bit (exact value, its enclosure, the admitted ends), on every case of
 *    gemm_fwd, gemm_bwd_a (transpose_b) and gemm_bwd_b (transpose_a);
 *  - batched: a rank-3 output with rank-3 or shared rank-2 operands, any
 *    transposes, gives per batch entry what op gemm gives on that entry's
 *    matrices;
 *  - on hand-built batched cases with a bias, a scale input and a residual
 *    input, every exact value's enclosure holds the real value (128-bit
 *    integer sums, MPFR at 400 bits), and every output of an emulated
 *    correct kernel (three summation orders, fused and unfused epilogue)
 *    is admitted, while one that forgets the bias is not;
 *  - the references are the same bits on 1 and 3 threads;
 *  - misuse is an error naming what was expected: shapes that do not
 *    contract, K beyond 65536, an operand that is not binary16, a tensor
 *    named acc, an indexed read, a function without an ulp bound; an
 *    epilogue that overflows binary32 is refused before launch, naming
 *    the element. */
#include "tests/model_json.h"
#include "tests/tap.h"
#include "tests/test_rng.h"
#include "core/tp_case.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "core/tp_plan.h"

#include <jansson.h>
#include <math.h>
#include <mpfr.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x5be1c1a77c0ffee1ULL;
static uint64_t rnd(void) { return tp_test_splitmix64(&rng_state); }
/* a binary16 value of magnitude around 1, or of any binade */
static uint16_t value(void)
{
    if (rnd() % 6 == 0) {
        uint16_t h;
        do
            h = (uint16_t)rnd();
        while ((h & 0x7c00) == 0x7c00 || (h & 0x7c00) > 0x5000); /* below 64: no overflow in the epilogues */
        return h;
    }
    return tp_f16_from_double(((double)(rnd() >> 11) * 0x1p-53 - 0.5) * 4);
}

static int same_ref(const tp_ref *a, const tp_ref *b)
{
    return !memcmp(&a->exact, &b->exact, 8) && !memcmp(&a->exact_lo, &b->exact_lo, 8) &&
           !memcmp(&a->exact_hi, &b->exact_hi, 8) && !memcmp(&a->allow_lo, &b->allow_lo, 8) &&
           !memcmp(&a->allow_hi, &b->allow_hi, 8);
}

static tp_value *ct_model(int ta, int tb, const char *out, const char *expr)
{
    return model_of(json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:{s:s}, s:{s:{s:i}}}", "accumulation", "fp32",
                              "order", "any", "arithmetic", "fp32", "fma", "any", "output_rounding", "nearest",
                              "transpose_a", ta, "transpose_b", tb, "expr", out, expr, "ulp", "tanhf", "cuda", 2));
}

/* ------------------------------------------ op gemm's cases, expr = acc */

static void same_as_gemm(const char *contract)
{
    char err[600] = "", path[128];
    snprintf(path, sizeof path, "build/gen/%s.plan.json", contract);
    tp_plan *plan = tp_plan_load(path, err, sizeof err);
    if (!tap_ok(plan != NULL, "the %s plan loads (%s)", contract, err))
        return;
    const tp_op *gemm = tp_op_find("gemm"), *ct = tp_op_find("contraction");
    int64_t total = 0;
    int cases = 0;
    for (int i = 0; i < plan->ncases; i++) {
        if (plan->cases[i].expect == TP_EXPECT_REFUSED)
            continue;
        tp_case *c = tp_case_build(plan, i, "cuda", err, sizeof err);
        if (!tap_ok(c != NULL, "%s/%s builds (%s)", contract, plan->cases[i].name, err))
            continue;
        const tp_tensor *O = NULL;
        for (int t = 0; t < c->ntensors; t++)
            if (c->tensors[t].initial)
                O = &c->tensors[t];
        tp_value *m = ct_model(tp_value_is_true(tp_value_get(plan->model, "transpose_a")),
                               tp_value_is_true(tp_value_get(plan->model, "transpose_b")), O->name, "acc");
        tp_ref *rg = malloc(sizeof *rg * (size_t)O->numel), *rc = malloc(sizeof *rc * (size_t)O->numel);
        char cerr[600] = "";
        int ok = tp_op_reference(gemm, plan->model, c, O->name, rg, err, sizeof err) == 0 &&
                 tp_op_reference(ct, m, c, O->name, rc, cerr, sizeof cerr) == 0;
        int64_t diff = -1;
        for (int64_t e = 0; ok && e < O->numel && diff < 0; e++)
            if (!same_ref(&rg[e], &rc[e]))
                diff = e;
        tap_ok(ok && diff < 0, "%s/%s: op contraction with %s = \"acc\" gives op gemm's exact value, enclosure and "
               "admitted ends on all %lld elements%s%s", contract, plan->cases[i].name, O->name,
               (long long)O->numel, ok ? "" : ": ", ok ? "" : cerr[0] ? cerr : err);
        if (diff >= 0)
            tap_diag("  first difference at %lld: gemm [%a, %a] exact %a, contraction [%a, %a] exact %a",
                     (long long)diff, rg[diff].allow_lo, rg[diff].allow_hi, rg[diff].exact, rc[diff].allow_lo,
                     rc[diff].allow_hi, rc[diff].exact);
        total += O->numel;
        cases++;
        free(rg);
        free(rc);
        tp_value_free(m);
        tp_case_free(c);
    }
    tap_diag("%s: %d cases, %lld elements compared", contract, cases, (long long)total);
    tp_plan_free(plan);
}

/* ------------------------------------------------- hand-built cases */

typedef struct {
    tp_case c;
    int64_t batch, M, N, K;
    int ta, tb, a3, b3;
} hand;

static tp_tensor *add(tp_case *c, const char *name, tp_dtype dt, int rank, const int64_t *shape, int out)
{
    tp_tensor *t = &c->tensors[c->ntensors++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->dtype = dt;
    t->rank = rank;
    t->numel = 1;
    for (int d = 0; d < rank; d++)
        t->numel *= (t->shape[d] = shape[d]);
    t->data = calloc((size_t)t->numel, dt == TP_F32 ? 4 : 2);
    t->initial = out ? calloc((size_t)t->numel, 2) : NULL;
    return t;
}

/* A, B (rank 3 where a3 / b3, else shared), bias [N], alpha [1] (f32),
 * R [batch, M, N] and C [batch, M, N]. */
static void hand_build(hand *h, int64_t batch, int64_t M, int64_t N, int64_t K, int ta, int tb, int a3, int b3)
{
    memset(h, 0, sizeof *h);
    h->batch = batch, h->M = M, h->N = N, h->K = K, h->ta = ta, h->tb = tb, h->a3 = a3, h->b3 = b3;
    h->c.name = "hand";
    h->c.backend = "cuda";
    const int64_t as[3] = {batch, ta ? K : M, ta ? M : K}, bs[3] = {batch, tb ? N : K, tb ? K : N},
                  cs[3] = {batch, M, N}, one = 1;
    tp_tensor *A = add(&h->c, "A", TP_F16, a3 ? 3 : 2, a3 ? as : as + 1, 0);
    tp_tensor *B = add(&h->c, "B", TP_F16, b3 ? 3 : 2, b3 ? bs : bs + 1, 0);
    tp_tensor *bias = add(&h->c, "bias", TP_F16, 1, &N, 0);
    tp_tensor *alpha = add(&h->c, "alpha", TP_F32, 1, &one, 0);
    tp_tensor *R = add(&h->c, "R", TP_F16, 3, cs, 0);
    add(&h->c, "C", TP_F16, 3, cs, 1);
    for (int64_t i = 0; i < A->numel; i++)
        ((uint16_t *)A->data)[i] = value();
    for (int64_t i = 0; i < B->numel; i++)
        ((uint16_t *)B->data)[i] = value();
    for (int64_t i = 0; i < N; i++)
        ((uint16_t *)bias->data)[i] = value();
    for (int64_t i = 0; i < R->numel; i++)
        ((uint16_t *)R->data)[i] = value();
    *(float *)alpha->data = 0.125f;
}

static void hand_free(hand *h)
{
    for (int t = 0; t < h->c.ntensors; t++) {
        free(h->c.tensors[t].data);
        free(h->c.tensors[t].initial);
    }
}

static double h16(const tp_tensor *t, int64_t i) { return tp_f16_to_double(((const uint16_t *)t->data)[i]); }

/* op(A)[b, m, k] and op(B)[b, k, n] */
static double a_at(const hand *h, int64_t b, int64_t m, int64_t k)
{
    const int64_t base = h->a3 ? b * h->M * h->K : 0;
    return h16(&h->c.tensors[0], base + (h->ta ? k * h->M + m : m * h->K + k));
}
static double b_at(const hand *h, int64_t b, int64_t k, int64_t n)
{
    const int64_t base = h->b3 ? b * h->K * h->N : 0;
    return h16(&h->c.tensors[1], base + (h->tb ? n * h->K + k : k * h->N + n));
}

/* The fp32 accumulator of element (b, m, n) in one of three orders. */
static float kernel_acc(const hand *h, int64_t b, int64_t m, int64_t n, int order)
{
    if (order == 2) { /* pairwise tree of plain adds */
        float *t = malloc(sizeof *t * (size_t)(h->K ? h->K : 1));
        for (int64_t k = 0; k < h->K; k++)
            t[k] = (float)(a_at(h, b, m, k) * b_at(h, b, k, n));
        for (int64_t w = 1; w < h->K; w *= 2)
            for (int64_t k = 0; k + w < h->K; k += 2 * w)
                t[k] = t[k] + t[k + w];
        const float s = h->K ? t[0] : 0.0f;
        free(t);
        return s;
    }
    float acc = 0.0f;
    for (int64_t q = 0; q < h->K; q++) {
        const int64_t k = order == 1 ? h->K - 1 - q : q;
        acc = order == 0 ? fmaf((float)a_at(h, b, m, k), (float)b_at(h, b, k, n), acc)
                         : acc + (float)(a_at(h, b, m, k) * b_at(h, b, k, n));
    }
    return acc;
}

/* The exact sum S = sum_k op(A) op(B) as an MPFR value: binary16 values
 * are integers times 2^-24, so the sum is an __int128 times 2^-48. */
static void exact_sum(const hand *h, int64_t b, int64_t m, int64_t n, mpfr_t s)
{
    __int128 acc = 0;
    for (int64_t k = 0; k < h->K; k++)
        acc += (__int128)(int64_t)ldexp(a_at(h, b, m, k), 24) * (int64_t)ldexp(b_at(h, b, k, n), 24);
    const int neg = acc < 0;
    unsigned __int128 u = neg ? -(unsigned __int128)acc : (unsigned __int128)acc;
    mpfr_set_ui_2exp(s, (unsigned long)(uint64_t)(u >> 64), 64, MPFR_RNDN); /* exact at 400 bits */
    mpfr_add_ui(s, s, (unsigned long)(uint64_t)u, MPFR_RNDN);
    mpfr_mul_2si(s, s, -48, MPFR_RNDN);
    if (neg)
        mpfr_neg(s, s, MPFR_RNDN);
}

#define EPILOGUE "acc * alpha + bias + R"

static void hand_case(int64_t batch, int64_t M, int64_t N, int64_t K, int ta, int tb, int a3, int b3)
{
    hand h;
    hand_build(&h, batch, M, N, K, ta, tb, a3, b3);
    const tp_tensor *C = &h.c.tensors[5], *bias = &h.c.tensors[2], *R = &h.c.tensors[4];
    tp_value *m = ct_model(ta, tb, "C", EPILOGUE);
    tp_ref *ref = malloc(sizeof *ref * (size_t)C->numel);
    char err[600] = "", label[160];
    snprintf(label, sizeof label, "%s%lldx%lldx%lldx%lld, A%s%s, B%s%s", "batch ", (long long)batch, (long long)M,
             (long long)N, (long long)K, a3 ? "[batch]" : " shared", ta ? "^T" : "", b3 ? "[batch]" : " shared",
             tb ? "^T" : "");
    const tp_op *op = tp_op_find("contraction");
    if (!tap_ok(tp_op_reference(op, m, &h.c, "C", ref, err, sizeof err) == 0, "%s: reference (%s)", label, err))
        goto done;
    mpfr_t s, y;
    mpfr_inits2(400, s, y, (mpfr_ptr)0);
    int64_t encl_bad = -1, adm_bad = -1, killed = 0;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t n = 0; n < N; n++) {
                const int64_t e = (b * M + i) * N + n;
                exact_sum(&h, b, i, n, s);
                mpfr_mul_d(y, s, 0.125, MPFR_RNDN); /* exact: a power of 2 */
                mpfr_add_d(y, y, h16(bias, n), MPFR_RNDN);
                mpfr_add_d(y, y, h16(R, e), MPFR_RNDN); /* exact at 400 bits */
                if (encl_bad < 0 && !(mpfr_cmp_d(y, ref[e].exact_lo) >= 0 && mpfr_cmp_d(y, ref[e].exact_hi) <= 0))
                    encl_bad = e;
                for (int order = 0; order < 3; order++) {
                    const float acc = kernel_acc(&h, b, i, n, order);
                    const float bv = (float)h16(bias, n), rv = (float)h16(R, e);
                    const float outs[2] = {(acc * 0.125f + bv) + rv, fmaf(acc, 0.125f, bv) + rv};
                    for (int f = 0; f < 2; f++) {
                        const double out = tp_f16_to_double(tp_f16_from_float(outs[f]));
                        if (adm_bad < 0 && !(out >= ref[e].allow_lo && out <= ref[e].allow_hi))
                            adm_bad = e;
                    }
                    const double wrong = tp_f16_to_double(tp_f16_from_float(acc * 0.125f + rv)); /* bias forgotten */
                    killed += order == 0 && !(wrong >= ref[e].allow_lo && wrong <= ref[e].allow_hi);
                }
            }
    tap_ok(encl_bad < 0, "%s: every exact value's enclosure holds S * alpha + bias + R (S as 128-bit integer sums, "
           "MPFR at 400 bits)%s", label, encl_bad < 0 ? "" : " (not at some element)");
    tap_ok(adm_bad < 0, "%s: every output of the emulated kernel is admitted (sequential fmaf, reversed and pairwise "
           "adds; epilogue fused and unfused)", label);
    tap_ok(killed > 0, "%s: a kernel that forgets the bias is rejected on %lld of %lld elements", label,
           (long long)killed, (long long)C->numel);
    mpfr_clears(s, y, (mpfr_ptr)0);
done:
    free(ref);
    tp_value_free(m);
    hand_free(&h);
}

/* A batched case against op gemm on each batch entry's own matrices. */
static void batch_vs_gemm(int ta, int tb, int a3, int b3)
{
    hand h;
    hand_build(&h, 3, 20, 33, 70, ta, tb, a3, b3);
    tp_value *m = ct_model(ta, tb, "C", "acc");
    tp_value *gm = model_of(json_pack("{s:s, s:s, s:s, s:b, s:b, s:s}", "accumulation", "fp32", "order", "any", "fma",
                                      "any", "transpose_a", ta, "transpose_b", tb, "output_rounding", "nearest"));
    const tp_tensor *C = &h.c.tensors[5];
    tp_ref *ref = malloc(sizeof *ref * (size_t)C->numel), *g = malloc(sizeof *g * 20 * 33);
    char err[600] = "";
    int ok = tp_op_reference(tp_op_find("contraction"), m, &h.c, "C", ref, err, sizeof err) == 0, same = ok;
    for (int64_t b = 0; ok && b < 3; b++) {
        tp_case one;
        memset(&one, 0, sizeof one);
        one.name = "entry";
        one.backend = "cuda";
        for (int t = 0; t < 2; t++) {
            tp_tensor v = h.c.tensors[t];
            const int batched = t == 0 ? a3 : b3;
            if (batched) {
                v.rank = 2;
                v.shape[0] = v.shape[1], v.shape[1] = v.shape[2];
                v.numel = v.shape[0] * v.shape[1];
                v.data = (uint16_t *)v.data + b * v.numel;
            }
            one.tensors[one.ntensors++] = v;
        }
        tp_tensor o = *C;
        o.rank = 2, o.shape[0] = 20, o.shape[1] = 33, o.numel = 20 * 33;
        one.tensors[one.ntensors++] = o;
        ok = tp_op_reference(tp_op_find("gemm"), gm, &one, "C", g, err, sizeof err) == 0;
        for (int64_t e = 0; ok && e < 20 * 33; e++)
            same = same && same_ref(&g[e], &ref[b * 20 * 33 + e]);
    }
    tap_ok(ok && same, "batch 3, A%s%s, B%s%s: each batch entry's references are op gemm's on that entry's matrices%s%s",
           a3 ? "[batch]" : " shared", ta ? "^T" : "", b3 ? "[batch]" : " shared", tb ? "^T" : "", ok ? "" : ": ",
           ok ? "" : err);
    free(ref);
    free(g);
    tp_value_free(m);
    tp_value_free(gm);
    hand_free(&h);
}

/* The same references on 1 and 3 threads, with a GELU epilogue. */
static void threads(void)
{
    hand h;
    hand_build(&h, 2, 40, 24, 300, 0, 1, 1, 0);
    tp_value *m = ct_model(0, 1, "C",
                           "0.5f * (acc + bias) * (1.0f + tanhf(0.7978845608f * ((acc + bias) + 0.044715f * ((acc + "
                           "bias) * (acc + bias) * (acc + bias)))))");
    const int64_t n = h.c.tensors[5].numel;
    tp_ref *r1 = malloc(sizeof *r1 * (size_t)n), *r3 = malloc(sizeof *r3 * (size_t)n);
    char err[600] = "";
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    int ok = tp_op_reference(tp_op_find("contraction"), m, &h.c, "C", r1, err, sizeof err) == 0;
    omp_set_num_threads(3);
    ok = ok && tp_op_reference(tp_op_find("contraction"), m, &h.c, "C", r3, err, sizeof err) == 0;
    omp_set_num_threads(saved);
    int same = ok;
    for (int64_t e = 0; ok && e < n; e++)
        same = same && same_ref(&r1[e], &r3[e]);
    tap_ok(ok && same, "GELU epilogue: the references are the same bits on 1 and 3 threads%s%s", ok ? "" : ": ",
           ok ? "" : err);
    free(r1);
    free(r3);
    tp_value_free(m);
    hand_free(&h);
}

/* ------------------------------------------------------------ misuse */

/* The reference (refuse = 0) or check_case (refuse = 1) of a hand case
 * with `expr`, after `edit`, must fail with a message holding `want`. */
static void misuse(const char *what, const char *expr, void (*edit)(hand *), int refuse, const char *want)
{
    hand h;
    hand_build(&h, 2, 4, 5, 6, 0, 0, 1, 0);
    if (edit)
        edit(&h);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s}}", "accumulation", "fp32", "order", "any", "arithmetic",
                          "fp32", "fma", "any", "output_rounding", "nearest", "expr", "C", expr);
    tp_value *m = model_of(j);
    tp_ref ref[2 * 4 * 5];
    char err[600] = "";
    const tp_op *op = tp_op_find("contraction");
    const int rc = refuse ? op->check_case(m, &h.c, err, sizeof err) : tp_op_reference(op, m, &h.c, "C", ref, err,
                                                                                      sizeof err);
    tap_ok(rc != 0 && strstr(err, want), "%s: %s (%s)", what, refuse ? "refused before launch" : "an error", err);
    tp_value_free(m);
    hand_free(&h);
}

static void k_mismatch(hand *h) { h->c.tensors[1].shape[0] = 7; }
static void a_bf16(hand *h) { h->c.tensors[0].dtype = TP_BF16; }
static void named_acc(hand *h) { h->c.tensors[2].name = "acc"; }
static void huge(hand *h)
{
    for (int64_t i = 0; i < h->c.tensors[0].numel; i++)
        ((uint16_t *)h->c.tensors[0].data)[i] = 0x7bff; /* 65504 */
    for (int64_t i = 0; i < h->c.tensors[1].numel; i++)
        ((uint16_t *)h->c.tensors[1].data)[i] = 0x7bff;
}

/* K = 65537: beyond the proven sum bound's range. */
static void k_too_long(void)
{
    hand h;
    hand_build(&h, 1, 1, 1, 65537, 0, 0, 1, 0);
    tp_value *m = ct_model(0, 0, "C", "acc + bias");
    tp_ref r;
    char err[600] = "";
    const int rc = tp_op_reference(tp_op_find("contraction"), m, &h.c, "C", &r, err, sizeof err);
    tap_ok(rc != 0 && strstr(err, "K = 65537; the reference needs K <= 65536"), "K = 65537: an error naming the "
           "limit (%s)", err);
    tp_value_free(m);
    hand_free(&h);
}

int main(void)
{
    const tp_op *op = tp_op_find("contraction");
    if (!tap_ok(op != NULL, "op contraction is registered"))
        return tap_done();
    same_as_gemm("gemm_fwd");
    same_as_gemm("gemm_bwd_a");
    same_as_gemm("gemm_bwd_b");
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            batch_vs_gemm(ta, tb, 1, tb); /* B shared when not transposed, batched when it is */
    batch_vs_gemm(0, 0, 0, 1);
    hand_case(3, 9, 11, 300, 0, 0, 1, 0);
    hand_case(2, 7, 5, 64, 1, 1, 1, 1);
    hand_case(2, 6, 10, 9000, 0, 1, 1, 0); /* K-chunks of the exact sums */
    threads();
    k_too_long();
    misuse("op(A) and op(B) with different K", "acc", k_mismatch, 0, "does not give C");
    misuse("a bfloat16 operand", "acc", a_bf16, 0, "expected both f16");
    misuse("an input named acc", "acc + acc", named_acc, 0, "is named acc");
    misuse("an indexed read", "acc + bias[col]", NULL, 0, "indexed reads and index() are op elementwise's");
    misuse("a function without an ulp bound", "tanhf(acc)", NULL, 0, "model.ulp.tanhf has no bound for backend cuda");
    misuse("a double literal", "acc * 0.5", NULL, 0, "double");
    misuse("an epilogue that overflows binary32", "acc * acc * acc * acc", huge, 1,
           "C[0, 0, 0]: ");
    return tap_done();
}
