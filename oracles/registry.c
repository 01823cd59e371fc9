#include "core/tp_op.h"

#include "core/tp_format.h"
#include "core/tp_ieee.h"
#include "core/tp_npy.h"

#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ./configure writes TP_OPS(X) with one X(name) for every oracles/op_NAME.c
 * (op_common.c aside), each of which defines tp_op_NAME: adding an op is
 * adding its file. */
#include "build/gen/tp_ops_list.h"

#define TP_DECLARE(name) extern const tp_op tp_op_##name;
TP_OPS(TP_DECLARE)

#define TP_ENTRY(name) &tp_op_##name,
static const tp_op *const ops[] = {TP_OPS(TP_ENTRY)};

const tp_op *tp_op_find(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i]->name, name) == 0)
            return ops[i];
    return NULL;
}

const char *const *tp_op_names(void)
{
    static const char *names[sizeof ops / sizeof ops[0] + 1];
    size_t n = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        names[n++] = ops[i]->name;
    names[n] = NULL;
    return names;
}

/* "binary16 (f16)" for a float dtype, the dtype's name for the others. */
static const char *dtype_words(tp_dtype dt, char *buf, size_t len)
{
    const tp_format *f = tp_format_of(dt);
    if (f)
        snprintf(buf, len, "%s (%s)", f->name, tp_dtype_name(dt));
    else
        snprintf(buf, len, "%s", tp_dtype_name(dt));
    return buf;
}

int tp_op_check_model_keys(const tp_op *op, const tp_value *model, char *err, size_t errlen)
{
    for (int i = 0; tp_value_is_table(model) && i < model->n; i++) {
        const char *key = model->keys[i];
        const tp_model_key *k = op->model_keys;
        while (k && k->key && strcmp(k->key, key) != 0)
            k++;
        if (k && k->key)
            continue;
        char keys[300] = "";
        size_t n = 0;
        for (k = op->model_keys; k && k->key && n < sizeof keys; k++)
            n += (size_t)snprintf(keys + n, sizeof keys - n, "%s%s", n ? ", " : "", k->key);
        snprintf(err, errlen, "model key %s is not one op %s reads (its keys: %s)", key, op->name, n ? keys : "none");
        return -1;
    }
    return 0;
}

/* "3, 5": the row-major multi-index of flat element e of t. */
static void index_text(const tp_tensor *t, int64_t e, char *out, size_t len)
{
    int64_t idx[TP_MAX_RANK];
    for (int d = t->rank - 1; d >= 0; d--) {
        idx[d] = t->shape[d] > 0 ? e % t->shape[d] : 0;
        e = t->shape[d] > 0 ? e / t->shape[d] : 0;
    }
    size_t n = 0;
    out[0] = 0;
    for (int d = 0; d < t->rank && n < len; d++)
        n += (size_t)snprintf(out + n, len - n, "%s%lld", d ? ", " : "", (long long)idx[d]);
}

int tp_op_check_input_finite(const tp_op *op, const tp_tensor *t, char *err, size_t errlen)
{
    const tp_format *f = tp_format_of(t->dtype);
    if (op->nonfinite_inputs || t->initial || !f || !t->data)
        return 0;
    /* the first non-finite element, found in parallel (a minimum: the
     * same element whatever the threads), from the patterns: all exponent
     * bits set is an infinity or a NaN (decoding each element through
     * the format's functions was 0.05 s of a 4096^3 check on the GPU host) */
    int64_t first = t->numel;
    const uint32_t inf = tp_ieee_inf_bits(f->exp_bits, f->frac_bits);
    if (f->size == 2) {
        const uint16_t *h = t->data;
#pragma omp parallel for reduction(min : first) schedule(static)
        for (int64_t e = 0; e < t->numel; e++)
            if (e < first && (h[e] & inf) == inf)
                first = e;
    } else {
        const uint32_t *h = t->data;
#pragma omp parallel for reduction(min : first) schedule(static)
        for (int64_t e = 0; e < t->numel; e++)
            if (e < first && (h[e] & inf) == inf)
                first = e;
    }
    if (first == t->numel)
        return 0;
    double v = tp_format_load(f, t->data, first);
    char at[100];
    index_text(t, first, at, sizeof at);
    snprintf(err, errlen,
             "%s[%s] = %s: op %s's model covers finite inputs only (a non-finite input has no exact "
             "result to bound the outputs by)",
             t->name, at, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf", op->name);
    return -1;
}

int tp_op_check_inputs_finite(const tp_op *op, const tp_case *c, char *err, size_t errlen)
{
    for (int i = 0; i < c->ntensors; i++)
        if (tp_op_check_input_finite(op, &c->tensors[i], err, errlen) != 0)
            return -1;
    return 0;
}

int tp_op_check_outputs(const tp_op *op, const tp_case *c, char *err, size_t errlen)
{
    for (int i = 0; i < c->ntensors; i++) {
        const tp_tensor *t = &c->tensors[i];
        if (!t->initial || (op->outputs & TP_DTYPE_BIT(t->dtype)))
            continue;
        char have[40], list[200] = "";
        size_t n = 0;
        for (const tp_format *const *f = tp_formats(); *f; f++)
            if (op->outputs & TP_DTYPE_BIT((*f)->dtype)) {
                char w[40];
                n += (size_t)snprintf(list + n, n < sizeof list ? sizeof list - n : 0, "%s%s", n ? " or " : "",
                                      dtype_words((*f)->dtype, w, sizeof w));
            }
        snprintf(err, errlen, "op %s cannot check output %s in %s: its outputs are %s only", op->name, t->name,
                 dtype_words(t->dtype, have, sizeof have), n ? list : "(none declared)");
        return -1;
    }
    return 0;
}

int tp_op_reference(const tp_op *op, const tp_value *model, const tp_case *c, const char *output, tp_ref *ref,
                    char *err, size_t errlen)
{
    /* Some references save the caller's mode and return to it for their
     * last steps (an enclosure's midpoint, RN16 of an end): measured by
     * tests/rounding_modes.t, their `exact` then moves by an ulp. */
    const int saved = fegetround();
    fesetround(FE_TONEAREST);
    int rc = op->reference(model, c, output, ref, err, errlen);
    fesetround(saved);
    return rc;
}

int tp_op_reference_prepare(const tp_op *op, const tp_value *model, const tp_case *c, const char *output,
                            void **state, char *err, size_t errlen)
{
    *state = NULL;
    if (!op->reference_prepare)
        return 0;
    const int saved = fegetround();
    fesetround(FE_TONEAREST);
    int rc = op->reference_prepare(model, c, output, state, err, errlen);
    fesetround(saved);
    return rc;
}
