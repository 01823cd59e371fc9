#include "core/tp_plan.h"

#include "core/tp_expr.h"
#include "core/tp_format.h"
#include "core/tp_npy.h"
#include "core/tp_rng.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *tp_plan_parse(const char *text, char *err, size_t errlen)
{
    json_error_t je;
    json_t *plan = json_loads(text, 0, &je);
    if (!plan) {
        snprintf(err, errlen, "plan line %d: %s", je.line, je.text);
        return NULL;
    }
    const char *need[] = {"contract", "op", "tensors", "cases", "model", "claim", "kernel"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!json_object_get(plan, need[i])) {
            snprintf(err, errlen, "plan has no \"%s\" (expected a plan written by gen/tpgen.py)", need[i]);
            json_decref(plan);
            return NULL;
        }
    if (json_integer_value(json_object_get(plan, "tolproof_plan")) != 1) {
        snprintf(err, errlen, "plan format is not tolproof_plan 1");
        json_decref(plan);
        return NULL;
    }
    return plan;
}

json_t *tp_plan_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    fclose(f);
    text[got] = 0;
    char inner[400];
    json_t *plan = tp_plan_parse(text, inner, sizeof inner);
    free(text);
    if (!plan)
        snprintf(err, errlen, "%s: %s", path, inner);
    return plan;
}

int tp_plan_case_index(const json_t *plan, const char *name)
{
    json_t *cases = json_object_get(plan, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(cases, i), "name")), name) == 0)
            return (int)i;
    return -1;
}

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

tp_case *tp_case_build(const json_t *plan, int index, const char *backend, char *err, size_t errlen)
{
    json_t *cj = json_array_get(json_object_get(plan, "cases"), (size_t)index);
    if (!cj) {
        snprintf(err, errlen, "no case %d in the plan", index);
        return NULL;
    }
    tp_case *c = calloc(1, sizeof *c);
    c->name = json_string_value(json_object_get(cj, "name"));
    c->seed = (uint64_t)json_integer_value(json_object_get(cj, "seed"));
    c->backend = backend;
    json_t *dims = json_object_get(plan, "dims"), *cdims = json_object_get(cj, "dims");
    size_t di;
    json_t *dn;
    json_array_foreach(dims, di, dn)
    {
        if (di >= 8) {
            snprintf(err, errlen, "more than 8 dims");
            goto fail;
        }
        const char *name = json_string_value(dn);
        json_t *v = json_object_get(cdims, name);
        if (!json_is_integer(v) || json_integer_value(v) <= 0) {
            if (json_is_integer(v))
                snprintf(err, errlen, "case %s: dim %s is %lld (expected a positive integer)", c->name, name,
                         (long long)json_integer_value(v));
            else
                snprintf(err, errlen, "case %s: dim %s must be a positive integer", c->name, name);
            goto fail;
        }
        c->dim_names[c->ndims] = name;
        c->dims[c->ndims++] = json_integer_value(v);
    }
    json_t *req;
    size_t ri;
    json_array_foreach(json_object_get(plan, "requires"), ri, req)
    {
        int64_t ok;
        char inner[200];
        const char *expr = json_string_value(json_object_get(req, "expr"));
        if (tp_expr_eval(expr, c->ndims, c->dim_names, c->dims, &ok, inner, sizeof inner) != 0) {
            snprintf(err, errlen, "case %s: requirement \"%s\": %s", c->name, expr, inner);
            goto fail;
        }
        if (!ok) {
            snprintf(err, errlen, "case %s: requirement \"%s\" does not hold: %s", c->name, expr,
                     json_string_value(json_object_get(req, "message")));
            goto fail;
        }
    }
    json_t *tj;
    size_t ti;
    json_array_foreach(json_object_get(plan, "tensors"), ti, tj)
    {
        if (ti >= 8) {
            snprintf(err, errlen, "more than 8 tensors");
            goto fail;
        }
        tp_tensor *t = &c->tensors[c->ntensors++];
        t->name = json_string_value(json_object_get(tj, "name"));
        if (tp_dtype_parse(json_string_value(json_object_get(tj, "dtype")), &t->dtype) != 0) {
            snprintf(err, errlen, "tensor %s: unknown dtype", t->name);
            goto fail;
        }
        json_t *shape = json_object_get(tj, "shape");
        t->rank = (int)json_array_size(shape);
        if (t->rank > 4) {
            snprintf(err, errlen, "tensor %s: rank %d (at most 4)", t->name, t->rank);
            goto fail;
        }
        t->numel = 1;
        for (int d = 0; d < t->rank; d++) {
            char inner[200];
            const char *expr = json_string_value(json_array_get(shape, (size_t)d));
            if (tp_expr_eval(expr, c->ndims, c->dim_names, c->dims, &t->shape[d], inner, sizeof inner) != 0) {
                snprintf(err, errlen, "tensor %s: shape expression \"%s\": %s", t->name, expr, inner);
                goto fail;
            }
            if (t->shape[d] <= 0) {
                snprintf(err, errlen, "case %s: tensor %s: extent %d is %lld (expected a positive size from \"%s\")",
                         c->name, t->name, d, (long long)t->shape[d], expr);
                goto fail;
            }
            if (t->numel > TP_MAX_NUMEL / t->shape[d]) {
                snprintf(err, errlen, "case %s: tensor %s has more than 2^31 elements", c->name, t->name);
                goto fail;
            }
            t->numel *= t->shape[d];
        }
        size_t bytes = (size_t)t->numel * tp_dtype_size(t->dtype);
        t->data = malloc(bytes);
        if (!t->data) {
            snprintf(err, errlen, "tensor %s: cannot allocate %zu bytes", t->name, bytes);
            goto fail;
        }
        const char *role = json_string_value(json_object_get(tj, "role"));
        if (strcmp(role, "output") == 0) {
            /* poison by default: every bit set is NaN in both float formats,
             * so an element the kernel never writes cannot pass */
            const char *init = json_string_value(json_object_get(tj, "init"));
            if (!init || strcmp(init, "poison") == 0)
                memset(t->data, 0xff, bytes);
            else if (strcmp(init, "zeros") == 0)
                memset(t->data, 0, bytes);
            else {
                char inner[300];
                if (t->dtype != TP_F16 ||
                    tp_fill_f16(t->data, t->rank, t->shape, init, c->seed, t->name, inner, sizeof inner) != 0) {
                    snprintf(err, errlen, "output %s: init \"%s\" is not usable for %s", t->name, init,
                             tp_dtype_name(t->dtype));
                    goto fail;
                }
            }
            t->initial = malloc(bytes);
            if (!t->initial) {
                snprintf(err, errlen, "tensor %s: cannot allocate %zu bytes", t->name, bytes);
                goto fail;
            }
            memcpy(t->initial, t->data, bytes);
            continue;
        }
        const char *fill = json_string_value(json_object_get(json_object_get(cj, "fill"), t->name));
        if (!fill) {
            snprintf(err, errlen, "case %s: input %s has no fill", c->name, t->name);
            goto fail;
        }
        char inner[300];
        const tp_format *fmt = tp_format_of(t->dtype);
        int filled = fmt ? tp_fill_float(fmt, t->data, t->rank, t->shape, fill, c->seed, t->name, inner, sizeof inner)
                         : tp_fill_int(t->data, t->dtype == TP_I64, t->numel, fill, c->seed, t->name, inner,
                                       sizeof inner);
        if (filled != 0) {
            snprintf(err, errlen, "case %s: input %s: %s", c->name, t->name, inner);
            goto fail;
        }
        int vr = tp_case_check_values(plan, c, (int)ti, inner, sizeof inner);
        if (vr != 0) {
            if (vr < 0)
                snprintf(err, errlen, "%s", inner);
            else
                snprintf(err, errlen, "case %s: %s", c->name, inner);
            goto fail;
        }
    }
    return c;
fail:
    tp_case_free(c);
    return NULL;
}

void tp_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int tp_sha256_file(const char *path, char out[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        EVP_DigestUpdate(ctx, buf, n);
    fclose(f);
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return 0;
}

int tp_case_check_values(const json_t *plan, const tp_case *c, int t, char *err, size_t errlen)
{
    const tp_tensor *tt = &c->tensors[t];
    json_t *vals = json_object_get(json_array_get(json_object_get(plan, "tensors"), (size_t)t), "values");
    if (!vals || (tt->dtype != TP_I32 && tt->dtype != TP_I64))
        return 0;
    int64_t lim[2];
    char inner[200];
    for (int k = 0; k < 2; k++)
        if (tp_expr_eval(json_string_value(json_array_get(vals, (size_t)k)), c->ndims, c->dim_names, c->dims, &lim[k],
                         inner, sizeof inner) != 0) {
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

static void shape_text(char *out, size_t len, int rank, const int64_t *shape)
{
    size_t n = (size_t)snprintf(out, len, "[");
    for (int d = 0; d < rank && n < len; d++)
        n += (size_t)snprintf(out + n, len - n, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (n < len)
        snprintf(out + n, len - n, "]");
}

int tp_case_load_input(const json_t *plan, tp_case *c, const char *name, const char *path, char sha[65],
                       char *err, size_t errlen)
{
    json_t *tensors = json_object_get(plan, "tensors");
    int t = -1;
    char inputs[300] = "";
    for (int k = 0; k < c->ntensors; k++) {
        int is_input = strcmp(json_string_value(json_object_get(json_array_get(tensors, (size_t)k), "role")), "output") != 0;
        if (is_input) {
            size_t n = strlen(inputs);
            snprintf(inputs + n, sizeof inputs - n, "%s%s", n ? ", " : "", c->tensors[k].name);
        }
        if (strcmp(c->tensors[k].name, name) == 0)
            t = is_input ? k : -2;
    }
    if (t < 0) {
        const char *contract = json_string_value(json_object_get(plan, "contract"));
        if (t == -2)
            snprintf(err, errlen, "input %s: %s is an output of contract %s, not an input (its inputs: %s)", name,
                     name, contract, inputs);
        else
            snprintf(err, errlen, "input %s: contract %s has no tensor %s (its inputs: %s)", name, contract, name,
                     inputs);
        return -1;
    }
    tp_tensor *tt = &c->tensors[t];
    tp_dtype dt;
    int rank;
    int64_t shape[4];
    void *data;
    char inner[600], want[120], got[120];
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
