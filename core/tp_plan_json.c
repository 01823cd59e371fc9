/* The plan reader: JSON (as gen/tpgen.py plan writes it, and as every run
 * directory records it) into a tp_plan, once. Every field is checked for
 * presence and type here, so the code that uses a plan never meets a NULL
 * string or a number where it expected a string; the first bad field is
 * reported as one line naming it ("plan: tensors[1].dtype is ..."). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "core/tp_plan_json.h"

#include "core/tp_jsonfile.h"
#include "core/tp_npy.h"
#include "core/tp_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *err;
    size_t errlen;
    int failed;
} reader;

/* Records the first problem only: later ones are usually its echoes. */
static void bad(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
}

static const char *json_kind(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "unknown";
}

/* The name of a field for messages: "PATH.KEY", or "KEY" at the top. */
static void field_name(char *out, size_t len, const char *path, const char *key)
{
    snprintf(out, len, "%s%s%s", path, path[0] ? "." : "", key);
}

/* Member `key` of object `obj` (at `path`), which must be of JSON type
 * `type`; NULL (after reporting it) when it is missing or of another type,
 * or NULL silently when optional and missing. */
static const json_t *member(reader *r, const json_t *obj, const char *path, const char *key, json_type type,
                            const char *expected, int required)
{
    char name[200];
    field_name(name, sizeof name, path, key);
    const json_t *j = json_object_get(obj, key);
    if (!j) {
        if (required)
            bad(r, "plan: %s is missing (expected %s, as gen/tpgen.py plan writes it)", name, expected);
        return NULL;
    }
    int ok = json_typeof(j) == type || (type == JSON_REAL && json_is_number(j)) ||
             (type == JSON_TRUE && json_is_boolean(j));
    if (!ok) {
        bad(r, "plan: %s is %s; expected %s", name, json_kind(j), expected);
        return NULL;
    }
    return j;
}

static char *dup_or_fail(reader *r, const char *s)
{
    char *d = strdup(s);
    if (!d)
        bad(r, "plan: out of memory");
    return d;
}

static char *string_of(reader *r, const json_t *obj, const char *path, const char *key, int required)
{
    const json_t *j = member(r, obj, path, key, JSON_STRING, "a string", required);
    return j ? dup_or_fail(r, json_string_value(j)) : NULL;
}

/* An array of between lo and hi strings into out[]; its length, or -1. */
static int strings_of(reader *r, const json_t *obj, const char *path, const char *key, int lo, int hi, char **out)
{
    char name[200];
    field_name(name, sizeof name, path, key);
    const json_t *a = member(r, obj, path, key, JSON_ARRAY, "an array of strings", 1);
    if (!a)
        return -1;
    int n = (int)json_array_size(a);
    if (n < lo || n > hi) {
        bad(r, "plan: %s has %d entries; expected %d to %d", name, n, lo, hi);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const json_t *s = json_array_get(a, (size_t)i);
        if (!json_is_string(s)) {
            bad(r, "plan: %s[%d] is %s; expected a string", name, i, json_kind(s));
            return -1;
        }
        if (!(out[i] = dup_or_fail(r, json_string_value(s))))
            return -1;
    }
    return n;
}

/* ------------------------------------------------------------ value tree */

static int value_into(tp_value *out, const json_t *j, const char *what, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    switch (json_typeof(j)) {
    case JSON_STRING:
        out->kind = TP_VALUE_STRING;
        out->string = strdup(json_string_value(j));
        if (!out->string)
            break;
        return 0;
    case JSON_INTEGER:
        out->kind = TP_VALUE_INTEGER;
        out->integer = json_integer_value(j);
        return 0;
    case JSON_REAL:
        out->kind = TP_VALUE_REAL;
        out->real = json_real_value(j);
        return 0;
    case JSON_TRUE:
    case JSON_FALSE:
        out->kind = TP_VALUE_BOOL;
        out->integer = json_is_true(j);
        return 0;
    case JSON_NULL:
        snprintf(err, errlen, "%s is null; expected a string, a number, a boolean, a table or an array", what);
        return -1;
    case JSON_OBJECT:
    case JSON_ARRAY: {
        int table = json_is_object(j);
        size_t n = table ? json_object_size(j) : json_array_size(j);
        out->kind = table ? TP_VALUE_TABLE : TP_VALUE_ARRAY;
        if (n == 0)
            return 0;
        out->items = calloc(n, sizeof *out->items);
        out->keys = table ? calloc(n, sizeof *out->keys) : NULL;
        if (!out->items || (table && !out->keys))
            break;
        /* entries in their JSON order: a table prints back as it was read */
        void *it = table ? json_object_iter((json_t *)j) : NULL;
        for (size_t i = 0; i < n; i++) {
            char sub[400];
            const json_t *v = table ? json_object_iter_value(it) : json_array_get(j, i);
            out->n++;
            if (table) {
                snprintf(sub, sizeof sub, "%s.%s", what, json_object_iter_key(it));
                if (!(out->keys[i] = strdup(json_object_iter_key(it)))) {
                    snprintf(err, errlen, "%s: out of memory", what);
                    tp_value_clear(out);
                    return -1;
                }
                it = json_object_iter_next((json_t *)j, it);
            } else
                snprintf(sub, sizeof sub, "%s[%zu]", what, i);
            if (value_into(&out->items[i], v, sub, err, errlen) != 0) {
                tp_value_clear(out);
                return -1;
            }
        }
        return 0;
    }
    }
    snprintf(err, errlen, "%s: out of memory", what);
    tp_value_clear(out);
    return -1;
}

tp_value *tp_value_from_json(const json_t *j, const char *what, char *err, size_t errlen)
{
    tp_value *v = malloc(sizeof *v);
    if (!v) {
        snprintf(err, errlen, "%s: out of memory", what);
        return NULL;
    }
    if (value_into(v, j, what, err, errlen) != 0) {
        free(v);
        return NULL;
    }
    return v;
}

json_t *tp_value_to_json(const tp_value *v)
{
    json_t *j = NULL;
    switch (v->kind) {
    case TP_VALUE_STRING:
        return json_string(v->string);
    case TP_VALUE_INTEGER:
        return json_integer(v->integer);
    case TP_VALUE_REAL:
        return json_real(v->real);
    case TP_VALUE_BOOL:
        return json_boolean(v->integer);
    case TP_VALUE_TABLE:
        j = json_object();
        for (int i = 0; j && i < v->n; i++)
            if (json_object_set_new(j, v->keys[i], tp_value_to_json(&v->items[i])) != 0) {
                json_decref(j);
                return NULL;
            }
        return j;
    case TP_VALUE_ARRAY:
        j = json_array();
        for (int i = 0; j && i < v->n; i++)
            if (json_array_append_new(j, tp_value_to_json(&v->items[i])) != 0) {
                json_decref(j);
                return NULL;
            }
        return j;
    }
    return NULL;
}

/* ------------------------------------------------------------------ plan */

static void read_kernel(reader *r, tp_plan *p, const json_t *root)
{
    const json_t *k = member(r, root, "", "kernel", JSON_OBJECT, "an object {source, entry, sha256, args}", 1);
    if (!k)
        return;
    p->kernel.source = string_of(r, k, "kernel", "source", 1);
    p->kernel.entry = string_of(r, k, "kernel", "entry", 1);
    p->kernel.sha256 = string_of(r, k, "kernel", "sha256", 1);
    const json_t *args = json_object_get(k, "args");
    size_t n = json_is_array(args) ? json_array_size(args) : 0;
    p->kernel.args = calloc(n ? n : 1, sizeof *p->kernel.args);
    if (!p->kernel.args) {
        bad(r, "plan: out of memory");
        return;
    }
    p->kernel.nargs = (int)n; /* entries stay NULL until read, so a failed read frees cleanly */
    strings_of(r, k, "kernel", "args", 1, 64, p->kernel.args);
}

static void read_tensor(reader *r, tp_plan_tensor *t, const json_t *tj, const char *path)
{
    t->name = string_of(r, tj, path, "name", 1);
    char *role = string_of(r, tj, path, "role", 1);
    if (role && strcmp(role, "input") != 0 && strcmp(role, "output") != 0)
        bad(r, "plan: %s.role is \"%s\"; expected \"input\" or \"output\"", path, role);
    t->role = role && strcmp(role, "output") == 0 ? TP_ROLE_OUTPUT : TP_ROLE_INPUT;
    free(role);
    char *dtype = string_of(r, tj, path, "dtype", 1);
    if (dtype && tp_dtype_parse(dtype, &t->dtype) != 0) {
        char names[128];
        bad(r, "plan: %s.dtype is \"%s\"; expected %s", path, dtype, tp_dtype_list(0, names, sizeof names));
    }
    free(dtype);
    int rank = strings_of(r, tj, path, "shape", 1, TP_MAX_RANK, t->shape);
    t->rank = rank > 0 ? rank : 0;
    t->init = string_of(r, tj, path, "init", 0);
    if (json_object_get(tj, "values"))
        strings_of(r, tj, path, "values", 2, 2, t->values);
}

static void read_case(reader *r, const tp_plan *p, tp_plan_case *c, const json_t *cj, const char *path)
{
    char sub[200 + 16]; /* the case's path (under 200 bytes, from read_plan) and a suffix */
    c->name = string_of(r, cj, path, "name", 1);
    const json_t *seed = member(r, cj, path, "seed", JSON_INTEGER, "an integer from 0 to 2^63-1", 1);
    if (seed && json_integer_value(seed) < 0)
        bad(r, "plan: %s.seed is %lld; expected an integer from 0 to 2^63-1", path,
            (long long)json_integer_value(seed));
    c->seed = seed ? (uint64_t)json_integer_value(seed) : 0;
    snprintf(sub, sizeof sub, "%s.dims", path);
    const json_t *dims = member(r, cj, path, "dims", JSON_OBJECT, "an object {DIM: integer}", 1);
    for (int d = 0; dims && d < p->ndims; d++) {
        const json_t *v = member(r, dims, sub, p->dims[d], JSON_INTEGER, "an integer", 1);
        c->dims[d] = v ? json_integer_value(v) : 0;
    }
    const char *k;
    json_t *v;
    if (dims)
        json_object_foreach((json_t *)dims, k, v)
        {
            int known = 0;
            for (int d = 0; d < p->ndims; d++)
                known |= strcmp(p->dims[d], k) == 0;
            if (!known) {
                bad(r, "plan: %s.%s: %s is not a dim of the plan", sub, k, k);
                break;
            }
        }
    snprintf(sub, sizeof sub, "%s.fill", path);
    const json_t *fill = member(r, cj, path, "fill", JSON_OBJECT, "an object {INPUT: fill}", 1);
    if (fill)
        json_object_foreach((json_t *)fill, k, v)
        {
            int t = tp_plan_tensor_index(p, k);
            if (t < 0 || p->tensors[t].role != TP_ROLE_INPUT)
                bad(r, "plan: %s.%s: %s is not an input tensor of the plan", sub, k, k);
            else if (!json_is_string(v))
                bad(r, "plan: %s.%s is %s; expected a string", sub, k, json_kind(v));
            else
                c->fill[t] = dup_or_fail(r, json_string_value(v));
            if (r->failed)
                break;
        }
    c->note = string_of(r, cj, path, "note", 0);
    if (!c->note && !r->failed)
        c->note = dup_or_fail(r, "");
    /* optional: the plans of runs recorded before cases carried it */
    const json_t *e = member(r, cj, path, "expect", JSON_STRING, "\"pass\", \"refused\" or \"violated\"", 0);
    const char *word = e ? json_string_value(e) : NULL;
    c->expect = !word                           ? TP_EXPECT_UNSTATED
                : strcmp(word, "pass") == 0     ? TP_EXPECT_PASS
                : strcmp(word, "refused") == 0  ? TP_EXPECT_REFUSED
                : strcmp(word, "violated") == 0 ? TP_EXPECT_VIOLATED
                                                : TP_EXPECT_UNSTATED;
    if (word && c->expect == TP_EXPECT_UNSTATED)
        bad(r, "plan: %s.expect is \"%s\"; expected \"pass\", \"refused\" or \"violated\"", path, word);
    const json_t *limit = member(r, cj, path, "timeout_s", JSON_REAL, "a number of seconds in (0, 86400]", 0);
    c->timeout_s = limit ? json_number_value(limit) : 0;
    if (limit && !(c->timeout_s > 0 && c->timeout_s <= 86400))
        bad(r, "plan: %s.timeout_s is %g; expected a number of seconds in (0, 86400]", path, c->timeout_s);
}

static void read_launch(reader *r, tp_plan *p, const json_t *root)
{
    const json_t *l = member(r, root, "", "launch", JSON_OBJECT, "an object {block, grid, shared_bytes}", 1);
    if (!l)
        return;
    int n = strings_of(r, l, "launch", "block", 1, 3, p->launch.block);
    p->launch.nblock = n > 0 ? n : 0;
    n = strings_of(r, l, "launch", "grid", 1, 3, p->launch.grid);
    p->launch.ngrid = n > 0 ? n : 0;
    p->launch.shared_bytes = string_of(r, l, "launch", "shared_bytes", 1);
}

static void read_claim(reader *r, tp_plan *p, const json_t *root)
{
    const json_t *c = member(r, root, "", "claim", JSON_OBJECT, "an object {source, atol, rtol}", 1);
    if (!c)
        return;
    p->claim.source = string_of(r, c, "claim", "source", 1);
    const char *keys[2] = {"atol", "rtol"};
    double *out[2] = {&p->claim.atol, &p->claim.rtol};
    for (int i = 0; i < 2; i++) {
        const json_t *v = member(r, c, "claim", keys[i], JSON_REAL, "a number", 0);
        *out[i] = v ? json_number_value(v) : 0.0;
    }
}

static void read_variant(reader *r, tp_plan *p, const json_t *root)
{
    const json_t *v = member(r, root, "", "variant", JSON_OBJECT, "an object {name, expect, contract, what}", 0);
    if (!v)
        return;
    p->variant.name = string_of(r, v, "variant", "name", 1);
    p->variant.expect = string_of(r, v, "variant", "expect", 1);
    p->variant.contract = string_of(r, v, "variant", "contract", 1);
    p->variant.what = string_of(r, v, "variant", "what", 1);
}

static void read_plan(reader *r, tp_plan *p, const json_t *root)
{
    p->contract = string_of(r, root, "", "contract", 1);
    p->contract_file = string_of(r, root, "", "contract_file", 1);
    p->contract_sha256 = string_of(r, root, "", "contract_sha256", 1);
    p->op = string_of(r, root, "", "op", 1);
    p->summary = string_of(r, root, "", "summary", 1);
    read_kernel(r, p, root);
    int n = strings_of(r, root, "", "dims", 1, TP_MAX_DIMS, p->dims);
    p->ndims = n > 0 ? n : 0;

    char path[200];
    const json_t *tensors = member(r, root, "", "tensors", JSON_ARRAY, "an array of tensor objects", 1);
    if (tensors && (json_array_size(tensors) < 1 || json_array_size(tensors) > TP_MAX_TENSORS))
        bad(r, "plan: tensors has %zu entries; expected 1 to %d", json_array_size(tensors), TP_MAX_TENSORS);
    for (size_t i = 0; !r->failed && tensors && i < json_array_size(tensors); i++) {
        const json_t *tj = json_array_get(tensors, i);
        snprintf(path, sizeof path, "tensors[%zu]", i);
        if (!json_is_object(tj)) {
            bad(r, "plan: %s is %s; expected an object", path, json_kind(tj));
            break;
        }
        read_tensor(r, &p->tensors[p->ntensors++], tj, path);
    }

    const json_t *reqs = member(r, root, "", "requires", JSON_ARRAY, "an array of {expr, message}", 1);
    size_t nreq = reqs ? json_array_size(reqs) : 0;
    p->requirements = calloc(nreq ? nreq : 1, sizeof *p->requirements);
    if (!p->requirements)
        bad(r, "plan: out of memory");
    for (size_t i = 0; !r->failed && i < nreq; i++) {
        const json_t *q = json_array_get(reqs, i);
        snprintf(path, sizeof path, "requires[%zu]", i);
        if (!json_is_object(q)) {
            bad(r, "plan: %s is %s; expected an object {expr, message}", path, json_kind(q));
            break;
        }
        tp_plan_require *req = &p->requirements[p->nrequirements++];
        req->expr = string_of(r, q, path, "expr", 1);
        req->message = string_of(r, q, path, "message", 1);
    }

    const json_t *cases = member(r, root, "", "cases", JSON_ARRAY, "an array of case objects", 1);
    size_t ncases = cases ? json_array_size(cases) : 0;
    p->cases = calloc(ncases ? ncases : 1, sizeof *p->cases);
    if (!p->cases)
        bad(r, "plan: out of memory");
    for (size_t i = 0; !r->failed && i < ncases; i++) {
        const json_t *cj = json_array_get(cases, i);
        snprintf(path, sizeof path, "cases[%zu]", i);
        if (!json_is_object(cj)) {
            bad(r, "plan: %s is %s; expected an object", path, json_kind(cj));
            break;
        }
        read_case(r, p, &p->cases[p->ncases++], cj, path);
    }

    read_claim(r, p, root);
    read_launch(r, p, root);
    const json_t *model = member(r, root, "", "model", JSON_OBJECT, "an object (the contract's [model] table)", 1);
    if (model && !r->failed) {
        char inner[400];
        p->model = tp_value_from_json(model, "model", inner, sizeof inner);
        if (!p->model)
            bad(r, "plan: %s", inner);
    }
    read_variant(r, p, root);
}

tp_plan *tp_plan_parse(const char *text, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    if (!root) {
        snprintf(err, errlen, "plan line %d: %s", je.line, je.text);
        return NULL;
    }
    reader r = {err, errlen, 0};
    tp_plan *p = calloc(1, sizeof *p);
    if (!p)
        bad(&r, "plan: out of memory");
    else if (!json_is_object(root))
        bad(&r, "plan is %s; expected an object (a plan written by gen/tpgen.py)", json_kind(root));
    else if (!json_is_integer(json_object_get(root, "tolproof_plan")) ||
             json_integer_value(json_object_get(root, "tolproof_plan")) != 1)
        bad(&r, "plan format is not tolproof_plan 1");
    else
        read_plan(&r, p, root);
    json_decref(root);
    if (r.failed) {
        tp_plan_free(p);
        return NULL;
    }
    return p;
}

tp_plan *tp_plan_load(const char *path, char *err, size_t errlen)
{
    size_t n;
    /* a directory, an empty stream or an unreadable path is named as such
     * (core/tp_jsonfile.h), not reported as a JSON syntax error */
    char *text = tp_file_text(path, TP_JSON_FILE_MAX, &n, err, errlen);
    if (!text)
        return NULL;
    char inner[400];
    tp_plan *plan = tp_plan_parse(text, inner, sizeof inner);
    free(text);
    if (!plan)
        snprintf(err, errlen, "%s: %s", path, inner);
    return plan;
}
