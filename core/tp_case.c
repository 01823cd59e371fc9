#include "core/tp_case.h"
#include "core/tp_big_alloc.h"

#include "core/tp_expr.h"
#include "core/tp_format.h"
#include "core/tp_grammar.h"
#include "core/tp_npy.h"
#include "core/tp_rng.h"
#include "core/tp_sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_case_free(tp_case *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ntensors; i++) {
        free(c->tensors[i].data);
        free(c->tensors[i].initial);
    }
    free(c);
}

const tp_tensor *tp_case_tensor(const tp_case *c, const char *name)
{
    for (int i = 0; i < c->ntensors; i++)
        if (strcmp(c->tensors[i].name, name) == 0)
            return &c->tensors[i];
    return NULL;
}

int64_t tp_case_dim(const tp_case *c, const char *name)
{
    for (int i = 0; i < c->ndims; i++)
        if (strcmp(c->dim_names[i], name) == 0)
            return c->dims[i];
    return -1;
}

/* Tensors beyond 2^31 elements are refused: the kernels index with int. */
#define TP_MAX_NUMEL (((int64_t)1) << 31)

/* The dims of the case: each must be positive. 0 or -1 with err. */
static int set_dims(const tp_plan *plan, const tp_plan_case *pc, tp_case *c, char *err, size_t errlen)
{
    for (int d = 0; d < plan->ndims; d++) {
        if (pc->dims[d] <= 0) {
            snprintf(err, errlen, "case %s: dim %s is %lld (expected a positive integer)", c->name, plan->dims[d],
                     (long long)pc->dims[d]);
            return -1;
        }
        c->dim_names[c->ndims] = plan->dims[d];
        c->dims[c->ndims++] = pc->dims[d];
    }
    return 0;
}

static int check_requirements(const tp_plan *plan, const tp_case *c, char *err, size_t errlen)
{
    for (int i = 0; i < plan->nrequirements; i++) {
        const tp_plan_require *req = &plan->requirements[i];
        int64_t ok;
        char inner[200], ex[100];
        if (tp_expr_eval(req->expr, c->ndims, c->dim_names, c->dims, &ok, inner, sizeof inner) != 0) {
            snprintf(err, errlen, "case %s: requirement \"%s\": %s", c->name,
                     tp_grammar_excerpt(req->expr, ex, sizeof ex), inner);
            return -1;
        }
        if (!ok) {
            snprintf(err, errlen, "case %s: requirement \"%s\" does not hold: %s", c->name,
                     tp_grammar_excerpt(req->expr, ex, sizeof ex), req->message);
            return -1;
        }
    }
    return 0;
}

/* Extents and element count of tensor t from its shape expressions. */
static int set_shape(const tp_plan_tensor *pt, tp_tensor *t, const tp_case *c, char *err, size_t errlen)
{
    t->rank = pt->rank;
    t->numel = 1;
    for (int d = 0; d < t->rank; d++) {
        char inner[200], ex[100];
        const char *expr = pt->shape[d];
        if (tp_expr_eval(expr, c->ndims, c->dim_names, c->dims, &t->shape[d], inner, sizeof inner) != 0) {
            snprintf(err, errlen, "tensor %s: shape expression \"%s\": %s", t->name,
                     tp_grammar_excerpt(expr, ex, sizeof ex), inner);
            return -1;
        }
        if (t->shape[d] <= 0) {
            snprintf(err, errlen, "case %s: tensor %s: extent %d is %lld (expected a positive size from \"%s\")",
                     c->name, t->name, d, (long long)t->shape[d], tp_grammar_excerpt(expr, ex, sizeof ex));
            return -1;
        }
        if (t->numel > TP_MAX_NUMEL / t->shape[d]) {
            snprintf(err, errlen, "case %s: tensor %s has more than 2^31 elements", c->name, t->name);
            return -1;
        }
        t->numel *= t->shape[d];
    }
    return 0;
}

/* An output's contents before the launch: t->initial gets the output's
 * init and, unless given_data (the caller installs the output's data),
 * t->data a copy of it. */
static int init_output(const tp_plan_tensor *pt, tp_tensor *t, size_t bytes, uint64_t seed, int given_data,
                       char *err, size_t errlen)
{
    t->initial = tp_big_alloc(bytes);
    t->data = given_data ? NULL : tp_big_alloc(bytes);
    if (!t->initial || (!given_data && !t->data)) {
        snprintf(err, errlen, "tensor %s: cannot allocate %zu bytes", t->name, bytes);
        return -1;
    }
    /* poison by default: every bit set is NaN in both float formats, so
     * an element the kernel never writes cannot pass */
    const char *init = pt->init;
    if (!init || strcmp(init, "poison") == 0)
        tp_big_fill(t->initial, 0xff, bytes);
    else if (strcmp(init, "zeros") == 0)
        tp_big_fill(t->initial, 0, bytes);
    else {
        char inner[300], ex[100];
        if (t->dtype != TP_F16) {
            snprintf(err, errlen, "output %s: init \"%s\" is not usable for %s", t->name,
                     tp_grammar_excerpt(init, ex, sizeof ex), tp_dtype_name(t->dtype));
            return -1;
        }
        if (tp_fill_f16(t->initial, t->rank, t->shape, init, seed, t->name, inner, sizeof inner) != 0) {
            snprintf(err, errlen, "output %s: init: %s", t->name, inner);
            return -1;
        }
    }
    if (t->data)
        memcpy(t->data, t->initial, bytes);
    return 0;
}

static int fill_input(const tp_plan *plan, const tp_plan_case *pc, tp_case *c, int ti, char *err, size_t errlen)
{
    tp_tensor *t = &c->tensors[ti];
    const char *fill = pc->fill[ti];
    if (!fill) {
        snprintf(err, errlen, "case %s: input %s has no fill", c->name, t->name);
        return -1;
    }
    char inner[300];
    const tp_format *fmt = tp_format_of(t->dtype);
    int filled = fmt ? tp_fill_float(fmt, t->data, t->rank, t->shape, fill, c->seed, t->name, inner, sizeof inner)
                     : tp_fill_int(t->data, t->dtype == TP_I64, t->numel, fill, c->seed, t->name, inner, sizeof inner);
    if (filled != 0) {
        snprintf(err, errlen, "case %s: input %s: %s", c->name, t->name, inner);
        return -1;
    }
    int vr = tp_case_check_values(plan, c, ti, inner, sizeof inner);
    if (vr != 0) {
        if (vr < 0)
            snprintf(err, errlen, "%s", inner);
        else
            snprintf(err, errlen, "case %s: %s", c->name, inner);
        return -1;
    }
    return 0;
}

static tp_case *build(const tp_plan *plan, int index, const char *backend, int given, char *err,
                      size_t errlen)
{
    if (index < 0 || index >= plan->ncases) {
        snprintf(err, errlen, "no case %d in the plan", index);
        return NULL;
    }
    const tp_plan_case *pc = &plan->cases[index];
    tp_case *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "case %s: out of memory", pc->name);
        return NULL;
    }
    c->name = pc->name;
    c->seed = pc->seed;
    c->backend = backend;
    if (set_dims(plan, pc, c, err, errlen) != 0 || check_requirements(plan, c, err, errlen) != 0)
        goto fail;
    for (int ti = 0; ti < plan->ntensors; ti++) {
        const tp_plan_tensor *pt = &plan->tensors[ti];
        tp_tensor *t = &c->tensors[c->ntensors++];
        t->name = pt->name;
        t->dtype = pt->dtype;
        if (set_shape(pt, t, c, err, errlen) != 0)
            goto fail;
        size_t bytes = (size_t)t->numel * tp_dtype_size(t->dtype);
        if (pt->role == TP_ROLE_OUTPUT) {
            if (init_output(pt, t, bytes, c->seed, given, err, errlen) != 0)
                goto fail;
            continue;
        }
        if (given)
            continue;
        t->data = tp_big_alloc(bytes);
        if (!t->data) {
            snprintf(err, errlen, "tensor %s: cannot allocate %zu bytes", t->name, bytes);
            goto fail;
        }
        if (fill_input(plan, pc, c, ti, err, errlen) != 0)
            goto fail;
    }
    return c;
fail:
    tp_case_free(c);
    return NULL;
}

tp_case *tp_case_build(const tp_plan *plan, int index, const char *backend, char *err, size_t errlen)
{
    return build(plan, index, backend, 0, err, errlen);
}

tp_case *tp_case_build_given(const tp_plan *plan, int index, const char *backend, char *err, size_t errlen)
{
    return build(plan, index, backend, 1, err, errlen);
}

int tp_case_check_values(const tp_plan *plan, const tp_case *c, int t, char *err, size_t errlen)
{
    const tp_tensor *tt = &c->tensors[t];
    const tp_plan_tensor *pt = &plan->tensors[t];
    if (!pt->values[0] || (tt->dtype != TP_I32 && tt->dtype != TP_I64))
        return 0;
    int64_t lim[2];
    char inner[200];
    for (int k = 0; k < 2; k++)
        if (tp_expr_eval(pt->values[k], c->ndims, c->dim_names, c->dims, &lim[k], inner, sizeof inner) != 0) {
            snprintf(err, errlen, "tensor %s: values: %s", tt->name, inner);
            return -1;
        }
    for (int64_t e = 0; e < tt->numel; e++) {
        int64_t v = tt->dtype == TP_I32 ? ((int32_t *)tt->data)[e] : ((int64_t *)tt->data)[e];
        if (v < lim[0] || v >= lim[1]) {
            snprintf(err, errlen, "%s[%lld] = %lld is outside the vocabulary: expected %lld <= %s < %lld", tt->name,
                     (long long)e, (long long)v, (long long)lim[0], tt->name, (long long)lim[1]);
            return 1;
        }
    }
    return 0;
}

/* "[64, 32]": at most 4 extents of at most 20 digits fit in 100 bytes. */
static void shape_text(char *out, size_t len, int rank, const int64_t *shape)
{
    size_t n = 0;
    out[0] = 0;
    for (int d = 0; d <= rank; d++) {
        int w = d == rank ? snprintf(out + n, len - n, "%s]", rank ? "" : "[")
                          : snprintf(out + n, len - n, "%s%lld", d ? ", " : "[", (long long)shape[d]);
        if (w < 0 || (size_t)w >= len - n)
            return; /* cut short: still terminated */
        n += (size_t)w;
    }
}

int tp_case_load_input(const tp_plan *plan, tp_case *c, const char *name, const char *path, char sha[65],
                       char *err, size_t errlen)
{
    int t = -1;
    char inputs[300] = "";
    for (int k = 0; k < c->ntensors; k++) {
        int is_input = plan->tensors[k].role != TP_ROLE_OUTPUT;
        if (is_input) {
            size_t n = strlen(inputs);
            snprintf(inputs + n, sizeof inputs - n, "%s%s", n ? ", " : "", c->tensors[k].name);
        }
        if (strcmp(c->tensors[k].name, name) == 0)
            t = is_input ? k : -2;
    }
    if (t < 0) {
        if (t == -2)
            snprintf(err, errlen, "input %s: %s is an output of contract %s, not an input (its inputs: %s)", name,
                     name, plan->contract, inputs);
        else
            snprintf(err, errlen, "input %s: contract %s has no tensor %s (its inputs: %s)", name, plan->contract,
                     name, inputs);
        return -1;
    }
    tp_tensor *tt = &c->tensors[t];
    tp_dtype dt;
    int rank;
    int64_t shape[4];
    void *data;
    char inner[600], want[100], got[100];
    if (tp_npy_read(path, &dt, &rank, shape, &data, inner, sizeof inner) != 0) {
        shape_text(want, sizeof want, tt->rank, tt->shape);
        snprintf(err, errlen, "input %s: %s (expected %lld %s elements, shape %s)", name, inner,
                 (long long)tt->numel, tp_dtype_name(tt->dtype), want);
        return -1;
    }
    int64_t numel = 1;
    for (int d = 0; d < rank; d++)
        numel *= shape[d];
    shape_text(want, sizeof want, tt->rank, tt->shape);
    shape_text(got, sizeof got, rank, shape);
    int same = rank == tt->rank;
    for (int d = 0; same && d < rank; d++)
        same = shape[d] == tt->shape[d];
    if (dt != tt->dtype)
        snprintf(err, errlen, "input %s: %s holds %s; the contract's tensor %s is %s", name, path, tp_dtype_name(dt),
                 name, tp_dtype_name(tt->dtype));
    else if (numel != tt->numel)
        snprintf(err, errlen, "input %s: %s holds %lld elements; the case's shape %s needs %lld", name, path,
                 (long long)numel, want, (long long)tt->numel);
    else if (!same)
        snprintf(err, errlen, "input %s: %s has shape %s; the case's shape is %s", name, path, got, want);
    if (dt != tt->dtype || numel != tt->numel || !same) {
        free(data);
        return -1;
    }
    void *old = tt->data;
    tt->data = data;
    if (tp_case_check_values(plan, c, t, inner, sizeof inner) != 0) {
        tt->data = old;
        free(data);
        snprintf(err, errlen, "input %s: %s: %s", name, path, inner);
        return -1;
    }
    free(old);
    if (tp_sha256_file(path, sha) != 0) {
        snprintf(err, errlen, "input %s: %s: cannot read it again for its checksum", name, path);
        return -1;
    }
    return 0;
}
