#include "oracles/generic/ct_setup.h"

#include "oracles/common/op_common.h"
#include "oracles/gemm/gemm_long.h"
#include "oracles/generic/ew_admit.h"
#include "oracles/generic/ew_model.h"

#include <stdio.h>
#include <string.h>

static const char *const m_acc[] = {"fp32", NULL}, *const m_order[] = {"any", NULL};

int ct_check_model(const tp_value *model, char *err, size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "accumulation", m_acc, &v, err, errlen) ||
        tp_model_choice(model, "order", m_order, &v, err, errlen) || ew_check_shared_keys(model, err, errlen))
        return -1;
    return tp_model_transposes(model, err, errlen);
}

/* The operands' and the output's shapes: 0, or -1 with a message. */
static int shapes(ct_setup *s, char *err, size_t errlen)
{
    const tp_tensor *A = s->A, *B = s->B, *O = s->O;
    const int r = O->rank;
    if (!(r == 2 || r == 3) || A->rank < 2 || A->rank > r || B->rank < 2 || B->rank > r) {
        snprintf(err, errlen, "contraction: %s has rank %d, %s %d, %s %d; expected an output of rank 2 (M x N) or 3 "
                 "(batch x M x N) and operands of rank 2 or of the output's rank", O->name, O->rank, A->name,
                 A->rank, B->name, B->rank);
        return -1;
    }
    const int64_t *as = A->shape + A->rank - 2, *bs = B->shape + B->rank - 2;
    s->batch = r == 3 ? O->shape[0] : 1;
    const int64_t M = as[s->ta ? 1 : 0], K = as[s->ta ? 0 : 1], N = bs[s->tb ? 0 : 1];
    const int a3 = A->rank == 3, b3 = B->rank == 3;
    if (bs[s->tb ? 1 : 0] != K || O->shape[r - 2] != M || O->shape[r - 1] != N || (a3 && A->shape[0] != s->batch) ||
        (b3 && B->shape[0] != s->batch)) {
        snprintf(err, errlen,
                 "contraction: %s%s (%s%lldx%lld) @ %s%s (%s%lldx%lld) does not give %s (%s%lldx%lld); expected "
                 "op(A) M x K, op(B) K x N and the output M x N, with the batch as the leading axis of every rank-3 "
                 "tensor", A->name, s->ta ? "^T" : "", a3 ? "batch x " : "", (long long)as[0], (long long)as[1],
                 B->name, s->tb ? "^T" : "", b3 ? "batch x " : "", (long long)bs[0], (long long)bs[1], O->name,
                 r == 3 ? "batch x " : "", (long long)O->shape[r - 2], (long long)O->shape[r - 1]);
        return -1;
    }
    if (K > TP_GEMM_K_MAX) {
        snprintf(err, errlen,
                 "contraction: K = %lld; the reference needs K <= %d (its exact sums run in chunks of 8192, and the "
                 "fp32 accumulation bound is proven for K <= %d)", (long long)K, TP_GEMM_K_MAX, TP_GEMM_K_MAX);
        return -1;
    }
    s->M = (int)M, s->N = (int)N, s->K = (int)K;
    s->a_stride = a3 ? M * K : 0;
    s->b_stride = b3 ? K * N : 0;
    return 0;
}

/* The epilogue's names: acc, the other inputs, the dims. */
static int names_of(const tp_case *c, ct_setup *s, const tp_tensor *const *extra, int nextra, const char **names,
                    char *err, size_t errlen)
{
    names[0] = "acc";
    for (int k = 0; k < nextra; k++) {
        const tp_tensor *T = extra[k];
        const int64_t N = s->N;
        ct_where w;
        if (!tp_format_of(T->dtype)) {
            snprintf(err, errlen, "contraction: input %s is %s; expected f16, bf16 or f32", T->name,
                     tp_dtype_name(T->dtype));
            return -1;
        }
        if (T->numel == s->O->numel && T->rank == s->O->rank)
            w = CT_AT_ELEMENT;
        else if (T->rank == 1 && T->numel == N)
            w = CT_AT_COLUMN;
        else if (T->numel == 1)
            w = CT_AT_SCALAR;
        else {
            snprintf(err, errlen, "contraction: input %s has %lld elements; expected the shape of %s, a vector of %lld "
                     "(one per column: a bias) or one element", T->name, (long long)T->numel, s->O->name,
                     (long long)N);
            return -1;
        }
        s->in[1 + k] = T;
        s->fmt[1 + k] = tp_format_of(T->dtype);
        s->where[1 + k] = w;
        names[1 + k] = T->name;
    }
    s->nin = nextra;
    s->ndims = c->ndims;
    for (int d = 0; d < c->ndims; d++) {
        names[1 + nextra + d] = c->dim_names[d];
        s->dim[d] = (float)c->dims[d];
    }
    s->nslots = 1 + nextra + c->ndims;
    for (int k = 1; k < s->nslots; k++)
        if (strcmp(names[k], "acc") == 0) {
            snprintf(err, errlen, "contraction: %s %s is named acc; expected another name (acc is the accumulator "
                     "in model.expr)", k <= nextra ? "input" : "dim", names[k]);
            return -1;
        }
    return 0;
}

int ct_setup_case(const tp_value *model, const tp_case *c, const char *output, ct_setup *s, char *err,
                  size_t errlen)
{
    if (ct_check_model(model, err, errlen) != 0)
        return -1;
    memset(s, 0, sizeof *s);
    const char *backend = c->backend ? c->backend : "cuda";
    if (ew_model_read(model, backend, "contraction", &s->m, err, errlen) != 0)
        return -1;
    s->O = tp_case_tensor(c, output);
    if (!s->O || !tp_format_of(s->O->dtype)) {
        snprintf(err, errlen, "contraction: output %s must be a floating-point tensor", output);
        return -1;
    }
    s->fo = tp_format_of(s->O->dtype);
    const tp_tensor *in[TP_MAX_TENSORS];
    int nin = 0;
    for (int t = 0; t < c->ntensors; t++)
        if (!c->tensors[t].initial)
            in[nin++] = &c->tensors[t];
    if (nin < 2 || in[0]->dtype != TP_F16 || in[1]->dtype != TP_F16) {
        snprintf(err, errlen, "contraction: its first two input tensors are the operands A and B; expected both f16 "
                 "(the exact sums are of binary16 products)");
        return -1;
    }
    s->A = in[0], s->B = in[1];
    s->ta = tp_value_is_true(tp_value_get(model, "transpose_a"));
    s->tb = tp_value_is_true(tp_value_get(model, "transpose_b"));
    const char *names[EW_MAX_INPUTS];
    if (shapes(s, err, errlen) != 0 || names_of(c, s, in + 2, nin - 2, names, err, errlen) != 0)
        return -1;
    char where[160];
    snprintf(where, sizeof where, "model.expr.%s", output);
    const char *text = tp_value_string(tp_value_get(tp_value_get(model, "expr"), output));
    tp_grammar_error e;
    if (!text) {
        snprintf(err, errlen, "contraction: model.expr has no expression for output %s; expected %s = \"acc\" or an "
                 "expression of acc", output, output);
        return -1;
    }
    if (ew_parse(text, s->nslots, names, &s->prog, &e) != 0) {
        snprintf(err, errlen, "contraction: %s: %s; expected %s", where, e.what, e.expected);
        return -1;
    }
    if (s->prog.nreads) {
        snprintf(err, errlen, "contraction: %s: %s[%s]: indexed reads and index() are op elementwise's; expected acc, "
                 "the inputs and the dims by name", where, s->prog.read[0].tensor >= 0 ?
                 names[s->prog.read[0].tensor] : "index", s->prog.read[0].index);
        return -1;
    }
    if (ew_prog_check(&s->prog, "contraction", where, err, errlen) != 0)
        return -1;
    for (int i = 0; i < s->prog.n; i++) {
        const int x = s->prog.node[i].input;
        if (s->prog.node[i].kind == EW_INPUT && x > s->nin && s->dim[x - 1 - s->nin] > 16777216.0f) {
            snprintf(err, errlen, "contraction: %s uses dim %s = %.0f, which binary32 does not hold exactly; expected "
                     "dims used in expressions to be at most 2^24", where, names[x], (double)s->dim[x - 1 - s->nin]);
            return -1;
        }
    }
    if (ew_check_declared_ulps(&s->prog, &s->m, "contraction", where, backend, err, errlen) != 0)
        return -1;
    s->identity = s->prog.n == 1 && s->prog.node[0].kind == EW_INPUT && s->prog.node[0].input == 0;
    return 0;
}

tp_tensor ct_operand(const ct_setup *s, const tp_tensor *T, int64_t b)
{
    tp_tensor v = *T;
    const int64_t stride = T == s->A ? s->a_stride : s->b_stride;
    v.rank = 2;
    v.shape[0] = T->shape[T->rank - 2];
    v.shape[1] = T->shape[T->rank - 1];
    v.numel = v.shape[0] * v.shape[1];
    v.data = (char *)T->data + (size_t)(b * stride) * 2; /* binary16 */
    return v;
}

void ct_load(const ct_setup *s, int64_t b, int64_t m, int64_t n, float *x, tp_ival32 *box)
{
    const int64_t at = (b * s->M + m) * s->N + n;
    for (int k = 1; k <= s->nin; k++) {
        const ct_where w = s->where[k];
        x[k] = (float)tp_format_load(s->fmt[k], s->in[k]->data, w == CT_AT_ELEMENT ? at : w == CT_AT_COLUMN ? n : 0);
        box[k].lo = box[k].hi = x[k];
    }
    for (int d = 0; d < s->ndims; d++) {
        const int k = 1 + s->nin + d;
        x[k] = s->dim[d];
        box[k].lo = box[k].hi = s->dim[d];
    }
}
