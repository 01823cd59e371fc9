/* op "embedding_fwd": out[i, :] = W[idx[i], :] for 0 <= idx[i] < V; rows
 * whose index lies outside [0, V) keep their pre-launch content (the
 * contract's init). Tensors: idx (i32, n), W (f16, V x D), out (f16, n x D).
 *
 * Model (contract [model]): copy = "exact", out_of_range = "unchanged". The
 * admitted set of each element is one bit pattern: that of W[idx[i], d],
 * or of the element's initial value for an out-of-range row. The reference
 * is the proven gather of oracles/embedding/proven/embedding.c on the
 * 16-bit patterns; reference_bits hands the patterns to the checker, which
 * compares bits (a NaN passes only with its payload, a zero only with its
 * sign), and reference gives their values for the error statistics. */
#include "oracles/embedding/proven/embedding.h"
#include "oracles/common/op_common.h"
#include "core/tp_format.h"

#include <stdlib.h>

/* The [model] keys, as the registry publishes them (check_model below
 * stays the judge of a whole model). */
static const char *const m_copy[] = {"exact", NULL}, *const m_oor[] = {"unchanged", NULL};

static const tp_model_key model_keys[] = {
    {"copy", m_copy, NULL},
    {"out_of_range", m_oor, NULL},
    {NULL, NULL, NULL}};

static int embedding_fwd_check_model(const tp_value *model, char *err, size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "copy", m_copy, &v, err, errlen) ||
        tp_model_choice(model, "out_of_range", m_oor, &v, err, errlen))
        return -1;
    return 0;
}

/* The gathered patterns of `output` into g[0 .. n*D-1] (tp_embedding_gather,
 * proven), after checking the tensors' kinds and shapes. */
static int gather(const tp_case *c, const char *output, uint16_t **g, int64_t *numel, const tp_tensor **outp,
                  char *err, size_t errlen)
{
    const tp_tensor *idx = tp_case_tensor(c, "idx"), *W = tp_need_f16(c, "embedding_fwd", "W", err, errlen);
    const tp_tensor *out = W ? tp_need_f16(c, "embedding_fwd", output, err, errlen) : NULL;
    if (!W || !out)
        return -1;
    if (!idx || idx->dtype != TP_I32 || idx->rank != 1) {
        snprintf(err, errlen, "embedding_fwd needs an i32 vector named idx");
        return -1;
    }
    if (W->rank != 2 || out->rank != 2 || out->shape[0] != idx->shape[0] || out->shape[1] != W->shape[1] ||
        !out->initial) {
        snprintf(err, errlen, "embedding_fwd: %s must be n x D with n = len(idx), D = W's columns, and have an init",
                 output);
        return -1;
    }
    int64_t n = idx->shape[0], V = W->shape[0], D = W->shape[1];
    if (n * D > INT_MAX || V * D > INT_MAX) {
        snprintf(err, errlen, "embedding_fwd: n*D and V*D must stay below 2^31");
        return -1;
    }
    *g = malloc((size_t)(n * D > 0 ? n * D : 1) * sizeof **g);
    if (!*g) {
        snprintf(err, errlen, "embedding_fwd: out of memory");
        return -1;
    }
    tp_embedding_gather((int)n, (int)V, (int)D, idx->data, W->data, out->initial, *g);
    *numel = n * D;
    *outp = out;
    return 0;
}

static int embedding_fwd_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref,
                                   char *err, size_t errlen)
{
    (void)model;
    uint16_t *g;
    int64_t numel;
    const tp_tensor *out;
    if (gather(c, output, &g, &numel, &out, err, errlen) != 0)
        return -1;
    const tp_format *fo = tp_format_of(out->dtype);
    for (int64_t k = 0; k < numel; k++) {
        double v = fo->decode(g[k]);
        ref[k] = (tp_ref){v, v, v, v, v};
    }
    free(g);
    return 0;
}

static int embedding_fwd_reference_bits(const tp_value *model, const tp_case *c, const char *output, uint32_t *bits,
                                        char *err, size_t errlen)
{
    (void)model;
    uint16_t *g;
    int64_t numel;
    const tp_tensor *out;
    if (gather(c, output, &g, &numel, &out, err, errlen) != 0)
        return -1;
    for (int64_t k = 0; k < numel; k++)
        bits[k] = g[k];
    free(g);
    return 0;
}

static const tp_statement emb_fwd_exact = {
    "embedding_fwd.exact.gather", TP_EVIDENCE,
    "reference: the gather of 16-bit patterns in oracles/embedding/proven/embedding.c (WP-proven T1+T2 against "
    "oracles/embedding/proven/embedding.acsl), rows with an index outside [0, V) taken from the output's pre-launch "
    "content"};
static const tp_statement emb_fwd_bound = {"embedding_fwd.bound.bit_pattern", TP_EVIDENCE,
                                           "admitted set of each element: that single bit pattern"};
static const tp_statement emb_fwd_writes_outside = {
    "embedding_fwd.nonclaim.writes_outside", TP_NON_CLAIM,
    "only the output tensor is checked: a write outside it (e.g. through a wrapped index) is not observed"};
static const tp_statement *const embedding_fwd_statements[] = {&emb_fwd_exact, &emb_fwd_bound, &emb_fwd_writes_outside,
                                                               NULL};

/* One reference and one admitted set whatever the model: all of the above. */
static void embedding_fwd_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)model, (void)c;
    tp_say_all(out, embedding_fwd_statements);
}

const tp_op tp_op_embedding_fwd = {"embedding_fwd", "out[i,d] = W[idx[i],d] if 0 <= idx[i] < V, else unchanged",
                                   embedding_fwd_check_model, embedding_fwd_reference, embedding_fwd_say,
                                   embedding_fwd_statements, TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_I32),
                                   model_keys, TP_DTYPE_BIT(TP_F16), embedding_fwd_reference_bits,
    /* a copy: an infinite or NaN weight is itself the exact value of the
     * outputs that gather it */
    "a gather copies W's elements as they are: an infinite or NaN weight is the exact value of every output that "
    "reads it", NULL /* check_case */,
    NULL, NULL, NULL /* reference by ranges: none */, NULL, NULL};
