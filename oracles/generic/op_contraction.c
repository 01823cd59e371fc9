/* op "contraction" (issue 11, generic op families): a binary16 GEMM with
 * fp32 accumulation in any order, batched, either operand transposed, then
 * an elementwise epilogue written in the contract (a bias, a scale, an
 * activation), rounded once to the output's format. The contract's
 * [model]: oracles/generic/ct_setup.h.
 *
 * Per output element (b, m, n), with the exact sums of op gemm's own
 * machinery (oracles/gemm/gemm_stream.c: the WP-proven split-double sums,
 * K-chunks combined exactly above 8192): S = sum_k a_k b_k and
 * A = sum_k |a_k b_k|.
 *   acc: every any-order fp32 sum of the K exact products lies within
 *     e = K*2^-24*(1+2^-7)*A + K*2^-149 of S; the proven tp_sum_bound_rn
 *     (oracles/common/proven/tp_sum_bound.c, T3) gives a double interval
 *     [L, H] holding [S - e, S + e] (tp_gemm_bound, the call op gemm
 *     makes), and the accumulator, a binary32 value in it, lies in
 *     [RN32(L), RN32(H)]: the proven ends tp_f32_lower_end /
 *     tp_f32_upper_end (oracles/common/round_ends.h).
 *   admitted: the epilogue's binary32 hull with acc that interval and the
 *     other inputs points (oracles/generic/ew_admit.c: the proven interval
 *     primitives, device functions within their declared vendor ulps),
 *     rounded outward to the output's format by the proven ends.
 *   exact: the epilogue over the reals with acc = S exactly, enclosed with
 *     MPFI at 256 bits (oracles/generic/ew_exact.c).
 * An epilogue that is `acc` alone is op gemm's model: the output's format
 * rounds [L, H] itself (RN16(L), RN16(H) for binary16), as op gemm does,
 * and the exact value is op gemm's; rounding [RN32(L), RN32(H)] instead
 * would be as sound but could differ from op gemm's set by one binary16
 * value at a tie, RN16(RN32(x)) != RN16(x) within half a binary32 ulp of
 * a binary16 midpoint. */
#include "oracles/common/op_common.h"
#include "oracles/common/round_ends.h"
#include "oracles/gemm/gemm_admitted.h"
#include "oracles/gemm/gemm_stream.h"
#include "oracles/gemm/proven/gemm.h"
#include "oracles/generic/ct_setup.h"
#include "oracles/generic/ew_admit.h"
#include "oracles/generic/ew_exact.h"
#include "oracles/generic/ew_model.h"

#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#define ct_thread_num() omp_get_thread_num()
#define ct_max_threads() omp_get_max_threads()
#else
/* Built without OpenMP (the fuzz build): one thread, one workspace. */
#define ct_thread_num() 0
#define ct_max_threads() 1
#endif

static const char *const m_acc[] = {"fp32", NULL}, *const m_order[] = {"any", NULL};

static const tp_model_key model_keys[] = {
    {"accumulation", m_acc, NULL},
    {"order", m_order, NULL},
    {"transpose_a", NULL, "true or false (default false): A enters transposed (its last two axes)"},
    {"transpose_b", NULL, "true or false (default false): B enters transposed (its last two axes)"},
    {"arithmetic", ew_arith_values, NULL},
    {"fma", ew_fma_values, NULL},
    {"output_rounding", ew_outr_values, NULL},
    {"expr", NULL,
     "a table: each output tensor's name = its epilogue, an expression of acc (the fp32 accumulator), the other "
     "inputs and the dims (oracles/generic/ct_setup.h)"},
    {"ulp", NULL, "a table: each device function used = { cuda = K, hip = K }, its documented ulp bound per backend"},
    {NULL, NULL, NULL}};

/* One thread's MPFI values. */
typedef struct {
    ew_exact_ws ex;
    mpfi_t acc;
} ct_ws;

/* A pass over one output: with ref, the references; without, only the
 * admitted values (check_case's pass). The first element the model
 * cannot bound is kept. */
typedef struct {
    const ct_setup *s;
    int64_t b;
    tp_ref *ref;
    ct_ws *ws;
    int nws;
    int64_t bad; /* flat index of the first failing element, -1: none */
    int node;
    const char *why;
} ct_pass;

static void fail(ct_pass *p, int64_t at, int node, const char *why)
{
#pragma omp critical(ct_bad)
    if (p->bad < 0 || at < p->bad)
        p->bad = at, p->node = node, p->why = why;
}

/* The accumulator's binary32 interval, from the double interval [L, H] of
 * the sum bound: the proven binary32 ends (round_ends.h). */
static tp_ival32 acc_ival(double L, double H)
{
    tp_ival32 a = {(float)tp_round_lower(&tp_binary32, L), (float)tp_round_upper(&tp_binary32, H)};
    return a;
}

/* Element (b, m, n) from its normalized exact pairs. */
static void element(ct_pass *p, int64_t m, int64_t n, double hi, double lo, double ahi, double alo)
{
    const ct_setup *s = p->s;
    const int64_t at = (p->b * s->M + m) * s->N + n;
    tp_ref r;
    double L, H;
    tp_gemm_bound(hi, lo, ahi, alo, (double)s->K, &r, &L, &H);
    tp_ref *e = p->ref ? &p->ref[at] : NULL;
    if (s->identity) { /* op gemm's admitted set (the top of this file) */
        if (!e)
            return;
        *e = r;
        tp_bound_shrink(e->exact, &L, &H); /* test-only; a no-op at its default scale 1 */
        e->allow_lo = tp_round_lower(s->fo, L);
        e->allow_hi = tp_round_upper(s->fo, H);
        return;
    }
    float x[EW_MAX_INPUTS] = {0};
    tp_ival32 box[EW_MAX_INPUTS], v;
    box[0] = acc_ival(L, H);
    ct_load(s, p->b, m, n, x, box);
    int node;
    const char *why;
    if (ew_admit_box(&s->prog, &s->m, box, s->prog.n - 1, NULL, NULL, NULL, &v, &node, &why) != 0)
        return fail(p, at, node, why);
    if (!isfinite(v.lo) || !isfinite(v.hi))
        return fail(p, at, s->prog.n - 1, "the result may overflow binary32");
    if (!e)
        return;
    ct_ws *w = &p->ws[ct_thread_num() % p->nws];
    mpfi_set_d(w->acc, hi);
    mpfi_add_d(w->acc, w->acc, lo); /* exact: the pair's bits fit 256 */
    w->ex.box[0] = w->acc;
    if (ew_exact_nodes(&w->ex, &s->prog, x, s->prog.n - 1, NULL, NULL, NULL) != 0)
        return fail(p, at, s->prog.n - 1, "the real expression is undefined or unbounded here");
    mpfi_srcptr ex = w->ex.v[s->prog.n - 1];
    e->exact_lo = mpfr_get_d(&ex->left, MPFR_RNDD);
    e->exact_hi = mpfr_get_d(&ex->right, MPFR_RNDU);
    mpfi_mid(w->ex.t, ex);
    e->exact = mpfr_get_d(w->ex.t, MPFR_RNDN);
    double lo32 = v.lo, hi32 = v.hi;
    tp_bound_shrink(e->exact, &lo32, &hi32); /* test-only; a no-op at its default scale 1 */
    e->allow_lo = tp_round_lower(s->fo, tp_round_lower(&tp_binary32, lo32));
    e->allow_hi = tp_round_upper(s->fo, tp_round_upper(&tp_binary32, hi32));
}

static void block(void *ctx, int r0, int rows, int N, const double *hi, const double *lo, const double *ahi,
                  const double *alo)
{
    ct_pass *p = ctx;
    for (int r = 0; r < rows; r++)
        for (int n = 0; n < N; n++) {
            const size_t i = (size_t)r * (size_t)N + (size_t)n;
            element(p, r0 + r, n, hi[i], lo[i], ahi[i], alo[i]);
        }
}

/* Every batch entry of output s->O: 0, or -1 with the first element the
 * model cannot bound named in err. */
static int all_batches(const ct_setup *s, tp_ref *ref, char *err, size_t errlen)
{
    ct_pass p = {s, 0, ref, NULL, 0, -1, 0, ""};
    if (ref && !s->identity) {
        p.nws = ct_max_threads();
        p.ws = malloc(sizeof *p.ws * (size_t)p.nws);
        if (!p.ws) {
            snprintf(err, errlen, "contraction: out of memory");
            return -1;
        }
        for (int k = 0; k < p.nws; k++) {
            ew_exact_init(&p.ws[k].ex, &s->prog);
            mpfi_init2(p.ws[k].acc, EW_EXACT_PREC);
        }
    }
    int rc = 0;
    for (int64_t b = 0; b < s->batch && rc == 0 && p.bad < 0; b++) {
        const tp_tensor A = ct_operand(s, s->A, b), B = ct_operand(s, s->B, b);
        p.b = b;
        rc = tp_gemm_exact_stream(&A, s->ta, &B, s->tb, s->M, s->N, s->K, block, &p, "contraction", err, errlen);
    }
    for (int k = 0; k < p.nws; k++) {
        ew_exact_clear(&p.ws[k].ex);
        mpfi_clear(p.ws[k].acc);
    }
    free(p.ws);
    if (rc != 0 || p.bad < 0)
        return rc;
    const int64_t n = p.bad % s->N, m = p.bad / s->N % s->M, b = p.bad / s->N / s->M;
    char at[64];
    if (s->O->rank == 3)
        snprintf(at, sizeof at, "%lld, %lld, %lld", (long long)b, (long long)m, (long long)n);
    else
        snprintf(at, sizeof at, "%lld, %lld", (long long)m, (long long)n);
    snprintf(err, errlen,
             "contraction: %s[%s]: %s at operation %d of model.expr.%s: the binary32 model covers finite values "
             "within each function's domain; expected inputs for which it does",
             s->O->name, at, p.why, p.node + 1, s->O->name);
    return -1;
}

/* Refuses, before any launch, a case with an element whose epilogue the
 * model cannot bound (an overflow, a function outside its domain). */
static int ct_check_case(const tp_value *model, const tp_case *c, char *err, size_t errlen)
{
    for (int t = 0; t < c->ntensors; t++) {
        if (!c->tensors[t].initial)
            continue;
        ct_setup *s = malloc(sizeof *s);
        if (!s) {
            snprintf(err, errlen, "contraction: out of memory");
            return -1;
        }
        int rc = ct_setup_case(model, c, c->tensors[t].name, s, err, errlen);
        if (rc == 0 && !s->identity)
            rc = all_batches(s, NULL, err, errlen);
        free(s);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int ct_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                        size_t errlen)
{
    ct_setup *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errlen, "contraction: out of memory");
        return -1;
    }
    const int rc = ct_setup_case(model, c, output, s, err, errlen) == 0 ? all_batches(s, ref, err, errlen) : -1;
    free(s);
    return rc;
}

static int ct_check_model_op(const tp_value *model, char *err, size_t errlen)
{
    return ct_check_model(model, err, errlen);
}

static const tp_statement ct_exact_sum = {
    "contraction.exact.split_double", TP_EVIDENCE,
    "the accumulator's exact sum S = sum_k a_k b_k by split-double accumulation, op gemm's (oracles/gemm/proven/"
    "gemm.c and gemm_rows.c: WP-proven exact in the IEEE float model for binary16 inputs; oracles/gemm/"
    "gemm_stream.c), per batch entry"};
static const tp_statement ct_exact_chunks = {
    "contraction.exact.k_chunks", TP_EVIDENCE,
    "K > 8192: the split-double sums run on K-chunks of at most 8192 and are combined exactly in 128-bit integers "
    "(oracles/gemm/gemm_long.c argues it; tested against 128-bit integer sums at K = 65536)"};
static const tp_statement ct_acc_bound = {
    "contraction.bound.accumulator", TP_EVIDENCE,
    "the fp32 accumulator in any order: within e = K*2^-24*(1+2^-7)*sum|a b| + K*2^-149 of S (the proven "
    "tp_sum_bound_rn, oracles/common/proven/tp_sum_bound.c, T3, ends rounded outward), so a binary32 value in "
    "[RN32(S - e), RN32(S + e)] (the proven binary32 ends of oracles/common/proven/tp_f32_round.c, T3)"};
static const tp_statement ct_identity = {
    "contraction.bound.no_epilogue", TP_EVIDENCE,
    "the output is acc itself: admitted interval [RN(S - e), RN(S + e)] in the output's format, the sum bound's "
    "interval rounded outward by the proven ends (op gemm's admitted set)"};
static const tp_statement ct_epilogue = {
    "contraction.bound.epilogue", TP_EVIDENCE,
    "admitted values: the hull of every binary32 evaluation of the epilogue with acc anywhere in its interval "
    "(oracles/generic/ew_admit.c): + - * / fmaf sqrtf through the proven interval primitives "
    "(oracles/common/proven/tp_ival*.c, T3), x*y + z fused or not as model.fma says, device functions within their "
    "declared vendor ulps of the correctly rounded result (oracles/common/vendor_ulp.h, the ends proven in "
    "oracles/common/proven/tp_vendor_ulp.c, T3), then rounded outward to the output's format by the proven ends"};
static const tp_statement ct_exact_epilogue = {
    "contraction.exact.mpfi", TP_EVIDENCE,
    "the exact value: the epilogue over the reals with acc = S, enclosed with MPFI at 256 bits "
    "(oracles/generic/ew_exact.c)"};
static const tp_statement ct_order_hidden = {
    "contraction.nonclaim.order_hidden", TP_NON_CLAIM,
    "the fp32 accumulation bound is a worst case over all orders: it does not reveal which order the kernel used, "
    "and a lost term smaller than the bound is not detected"};
static const tp_statement ct_proof_sequential = {
    "contraction.nonclaim.proof_sequential_orders", TP_NON_CLAIM,
    "WP proves the accumulation bound for the sequential orders (oracles/common/proven/dot_fp32.c); other orders "
    "rest on the standard textbook result and on the CPU emulation tests"};
static const tp_statement ct_dependence = {
    "contraction.nonclaim.dependence", TP_NON_CLAIM,
    "the epilogue's operands are bounded by intervals, as if independent: acc used twice (x * x * x in a GELU), or "
    "an fma choice made at two places, can make the admitted interval wider than the kernel's real result set"};
static const tp_statement ct_finite = {
    "contraction.nonclaim.finite", TP_NON_CLAIM,
    "cases for which some binary32 intermediate of the epilogue may overflow or leave a function's domain are "
    "refused before launch: infinities and NaNs produced inside the epilogue are not modelled"};
static const tp_statement ct_unproven = {
    "contraction.nonclaim.unproven_evaluator", TP_NON_CLAIM,
    "the model reader, the batch loop and the epilogue's parser and node-by-node evaluator that call the proven "
    "primitives are tested, not proven"};
static const tp_statement *const ct_statements[] = {
    &ct_exact_sum, &ct_exact_chunks, &ct_acc_bound,  &ct_identity, &ct_epilogue, &ct_exact_epilogue,
    &ct_order_hidden, &ct_proof_sequential, &ct_dependence, &ct_finite, &ct_unproven, NULL};

/* The case's K from the first input (A), as ct_setup_case reads it. */
static int64_t ct_k(const tp_value *model, const tp_case *c)
{
    for (int i = 0; i < c->ntensors; i++)
        if (!c->tensors[i].initial && c->tensors[i].rank >= 2) {
            const tp_tensor *A = &c->tensors[i];
            return A->shape[A->rank - (tp_value_is_true(tp_value_get(model, "transpose_a")) ? 2 : 1)];
        }
    return 0;
}

/* Whether every output's epilogue is acc alone (ct_setup_case's rule: a
 * program of the one node acc). */
static int ct_identity_model(const tp_value *model)
{
    const tp_value *exprs = tp_value_get(model, "expr");
    const char *const names[] = {"acc"};
    for (int k = 0; tp_value_is_table(exprs) && k < exprs->n; k++) {
        const char *t = tp_value_string(&exprs->items[k]);
        ew_prog p;
        tp_grammar_error e;
        if (!t || ew_parse(t, 1, names, &p, &e) != 0 || p.n != 1 || p.node[0].kind != EW_INPUT)
            return 0;
    }
    return 1;
}

static void ct_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    const int identity = ct_identity_model(model);
    tp_say(out, &ct_exact_sum);
    if (ct_k(model, c) > TP_GEMM_K_MAX_EXACT)
        tp_say(out, &ct_exact_chunks);
    tp_say(out, &ct_acc_bound);
    if (identity)
        tp_say(out, &ct_identity);
    else {
        tp_say(out, &ct_epilogue);
        tp_say(out, &ct_exact_epilogue);
    }
    tp_say(out, &ct_order_hidden);
    tp_say(out, &ct_proof_sequential);
    if (!identity) {
        tp_say(out, &ct_dependence);
        tp_say(out, &ct_finite);
        tp_say(out, &ct_unproven);
    }
}

const tp_op tp_op_contraction = {
    "contraction",
    "C[b,m,n] = f(sum_k op(A)[b,m,k] op(B)[b,k,n], other inputs): fp32 accumulation in any order, then an "
    "elementwise epilogue f in binary32 (contract model.expr)",
    ct_check_model_op, ct_reference, ct_say, ct_statements, TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_BF16) |
    TP_DTYPE_BIT(TP_F32), model_keys, TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_BF16) | TP_DTYPE_BIT(TP_F32),
    NULL /* values compared */, NULL /* nonfinite_inputs: the model covers finite inputs only */, ct_check_case, NULL,
    NULL, NULL /* reference by ranges: none */, NULL, NULL};
