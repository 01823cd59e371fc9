/* op "attention_fwd": O = softmax(scale Q K^T + mask) V per batch and head,
 * and the log-sum-exp of each row, for a FlashAttention-style kernel
 * (model: attn_model.h; the bound: docs/attention.md; one row:
 * attn_row.c).
 *
 * Tensors: Q [B, H, L, d], K and V [B, H, S, d], O [B, H, L, d], all f16;
 * lse [B, H, L] f32 (optional). d <= 256; a causal mask needs L = S (query
 * i sees keys 0 .. i). */
#include "oracles/attention/attn_model.h"
#include "oracles/attention/attn_row.h"
#include "oracles/common/op_common.h"

#include <stdlib.h>
#include <string.h>

#define D_MAX 256

typedef struct {
    attn_model m;
    const tp_tensor *Q, *K, *V;
    int64_t B, H, L, S, d;
} attn_setup;

static int setup(const tp_value *model, const tp_case *c, attn_setup *s, char *err, size_t errlen)
{
    const char *backend = c->backend ? c->backend : "cuda";
    if (attn_model_read(model, backend, &s->m, err, errlen) != 0)
        return -1;
    if (s->m.expf_ulp < 0) {
        snprintf(err, errlen, "attention_fwd: model.expf_ulp has no documented bound for backend %s", backend);
        return -1;
    }
    if (!(s->Q = tp_need_f16(c, "attention_fwd", "Q", err, errlen)) ||
        !(s->K = tp_need_f16(c, "attention_fwd", "K", err, errlen)) ||
        !(s->V = tp_need_f16(c, "attention_fwd", "V", err, errlen)))
        return -1;
    const tp_tensor *Q = s->Q, *K = s->K, *V = s->V;
    if (Q->rank != 4 || K->rank != 4 || V->rank != 4) {
        snprintf(err, errlen, "attention_fwd: Q, K and V must have rank 4 ([B, H, L, d], [B, H, S, d])");
        return -1;
    }
    s->B = Q->shape[0], s->H = Q->shape[1], s->L = Q->shape[2], s->d = Q->shape[3], s->S = K->shape[2];
    if (K->shape[0] != s->B || K->shape[1] != s->H || K->shape[3] != s->d ||
        memcmp(K->shape, V->shape, sizeof K->shape) != 0) {
        snprintf(err, errlen, "attention_fwd: K and V must be [B, H, S, d] with Q's B, H and d");
        return -1;
    }
    if (s->d < 1 || s->d > D_MAX || s->S < 1 || s->L < 1) {
        snprintf(err, errlen, "attention_fwd: head dimension %lld and %lld keys; expected 1 <= d <= %d, S >= 1",
                 (long long)s->d, (long long)s->S, D_MAX);
        return -1;
    }
    if (s->m.causal && s->L != s->S) {
        snprintf(err, errlen, "attention_fwd: a causal mask with %lld queries and %lld keys; expected L = S",
                 (long long)s->L, (long long)s->S);
        return -1;
    }
    return 0;
}

/* Every row of every head, rows in parallel: the head's keys and values
 * are prepared once, each thread has its own row arrays. */
static int run(const attn_setup *s, tp_ref *o, tp_ref *lse, char *err, size_t errlen)
{
    int failed = 0;
    const char *why = NULL;
    int64_t where = -1;
    attn_ws *head = attn_ws_new(s->S, s->d);
    if (!head) {
        snprintf(err, errlen, "attention_fwd: out of memory");
        return -1;
    }
    for (int64_t bh = 0; bh < s->B * s->H && !failed; bh++) {
        const attn_head h = {&s->m,
                             s->L,
                             s->S,
                             s->d,
                             attn_scale(s->d),
                             (const uint16_t *)s->Q->data + bh * s->L * s->d,
                             (const uint16_t *)s->K->data + bh * s->S * s->d,
                             (const uint16_t *)s->V->data + bh * s->S * s->d};
        attn_ws_head(head, &h);
#pragma omp parallel
        {
            attn_ws *w = attn_ws_borrow(head);
#pragma omp for schedule(dynamic, 4)
            for (int64_t i = 0; i < s->L; i++) {
                const char *row_why = NULL;
                if (failed)
                    continue;
                if (!w || attn_row(w, &h, i, o ? o + (bh * s->L + i) * s->d : NULL, lse ? lse + bh * s->L + i : NULL,
                                   &row_why) != 0) {
#pragma omp critical(attn_failed)
                    if (!failed || bh * s->L + i < where) {
                        failed = 1;
                        why = w ? row_why : "out of memory";
                        where = bh * s->L + i;
                    }
                }
            }
            attn_ws_free(w);
        }
    }
    attn_ws_free(head);
    if (failed) {
        const int64_t bh = where / s->L, i = where % s->L;
        snprintf(err, errlen, "attention_fwd: batch %lld, head %lld, row %lld: %s", (long long)(bh / s->H),
                 (long long)(bh % s->H), (long long)i, why);
        return -1;
    }
    return 0;
}

static int at_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                        size_t errlen)
{
    attn_setup s;
    if (setup(model, c, &s, err, errlen) != 0)
        return -1;
    const tp_tensor *out = tp_case_tensor(c, output);
    if (strcmp(output, "O") == 0) {
        if (!out || out->dtype != TP_F16 || out->numel != s.B * s.H * s.L * s.d) {
            snprintf(err, errlen, "attention_fwd: O must be f16 [B, H, L, d]");
            return -1;
        }
        return run(&s, ref, NULL, err, errlen);
    }
    if (strcmp(output, "lse") == 0) {
        if (!out || out->dtype != TP_F32 || out->numel != s.B * s.H * s.L) {
            snprintf(err, errlen, "attention_fwd: lse must be f32 [B, H, L]");
            return -1;
        }
        return run(&s, NULL, ref, err, errlen);
    }
    snprintf(err, errlen, "attention_fwd: no output named %s; expected O or lse", output);
    return -1;
}

static const tp_statement at_exact = {
    "attention_fwd.exact.scores_exp", TP_EVIDENCE,
    "exact result per row: every score q.k exact (split-double sums, oracles/common/proven/exact_row.c, proven "
    "exact in WP's IEEE model), exp(S_j - max) enclosed in double with outward rounding "
    "(oracles/common/exp_enclose.c, tested against MPFR, not proven), the sums L = sum e_j and A = sum e_j v_j "
    "enclosed in directed rounding, O = A / L; the log-sum-exp max + log L through MPFR"};
static const tp_statement at_bound = {
    "attention_fwd.bound.online_softmax", TP_EVIDENCE,
    "admitted interval: the kernel's binary32 scores from the proven any-order sum bound and the proven interval "
    "product by scale; the online softmax's rescaled terms within a per-row relative factor of exp(S_j - max) "
    "(expf within its documented ulps at each of at most ceil(n / min_tile_keys) + 1 steps, the exponents' "
    "roundings, P rounded to binary16 where the model says so), the running sums' accumulation by the textbook "
    "bound; the final acc / l (or acc * (1 / l)) through the proven interval division and product, and the output "
    "rounding through the proven ends (docs/attention.md)"};
static const tp_statement at_unproven = {
    "attention_fwd.nonclaim.unproven_bound", TP_NON_CLAIM,
    "the online-softmax perturbation bound (the per-row factor, the far and subnormal terms, the accumulations with "
    "rescales) is derived in docs/attention.md and tested against emulated kernels, not proven by WP"};
static const tp_statement at_dependence = {
    "attention_fwd.nonclaim.dependence", TP_NON_CLAIM,
    "the bound treats each term's rounding errors as independent and bounds them relative to sum_j P_j |V_j|: "
    "where the values cancel (O far below that), the admitted set is wide in ulps of O; with model final = "
    "\"reciprocal\" the common rescale of acc and l is also taken as independent"};
static const tp_statement at_vendor = {
    "attention_fwd.nonclaim.vendor_ulp", TP_NON_CLAIM,
    "the vendor's expf and logf ulp bounds are stated as measured by extensive but not exhaustive tests, not "
    "guaranteed; expf(0) = 1 and expf(-inf) = 0 are its documented special values"};
static const tp_statement *const at_statements[] = {&at_exact, &at_bound, &at_unproven, &at_dependence, &at_vendor,
                                                    NULL};

static void at_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)model, (void)c;
    tp_say_all(out, at_statements);
}

/* Refuses before launch what the model cannot bound (a score or sum that
 * may overflow binary32, no documented bound for the backend). */
static int at_check_case(const tp_value *model, const tp_case *c, char *err, size_t errlen)
{
    attn_setup s;
    return setup(model, c, &s, err, errlen);
}

const tp_op tp_op_attention_fwd = {
    "attention_fwd", "O = softmax(scale Q K^T + mask) V per batch and head, lse = log sum exp(scale Q K^T + mask)",
    attn_model_check, at_reference, at_say, at_statements,
    TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_F32), attn_model_keys,
    TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_F32), NULL /* values compared */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, at_check_case, NULL, NULL,
    NULL /* reference by ranges: none */, NULL, NULL};
