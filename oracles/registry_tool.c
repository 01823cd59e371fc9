/* build/tp_registry: what the C core and the op registry know, for the
 * generator (gen/), which keeps no list of ops, dtypes or limits and no
 * parser of shape expressions or fills of its own.
 *
 *   tp_registry json OUT.json
 *       writes the registry (ninja: build/gen/registry.json): the ops
 *       (name, summary, tensor dtypes, [model] keys), the dtypes (name,
 *       size, harness C type, NumPy descr), the limits (the array sizes of
 *       core/tp_op.h), the functions of shape expressions and the fill
 *       forms. OUT is left untouched when its content would not change.
 *
 *   tp_registry check  < REQUEST.json  > ANSWER.json
 *       checks a whole contract's expressions, fills and names in one
 *       process (gen/registry.py writes the request):
 *         {"dims": ["M", ...], "items": [ITEM, ...]}
 *       ITEM is one of
 *         {"kind": "value" | "condition", "text": "ceil_div(N, 16)"}
 *         {"kind": "fill", "text": "normal(0, 1)", "dtype": "f16", "rank": 2}
 *         {"kind": "dim_name" | "tensor_name", "text": "M"}
 *         {"kind": "ew_expr", "text": "a * b", "inputs": ["a", "b"], "op": "elementwise"}
 *           (the generic ops' expressions; the answer adds "fns", the
 *           device functions it uses, "reads", how many INPUT[INDEX] and
 *           index() it has, and "index_on", the coordinate each
 *           index(INDEX) depends on: "row", "col" or "none"; op rowwise
 *           refuses INPUT[INDEX])
 *       and the answer has one result per item, in order:
 *         {"results": [{"ok": true, "c": "tp_ceil_div(N, 16)"},
 *                      {"ok": false, "what": "...", "expected": "..."}, ...]}
 *       ("c": the C rendering plans carry, for value and condition).
 *       A value or condition item may carry "values": [N, ...], one per
 *       dim: the answer then also has "value" (the expression evaluated
 *       with those dims, one case of the contract) or "error" (why it has
 *       none: division by zero, integer overflow). A text holding a NUL
 *       character is refused by name.
 *
 * Exit status: 0, or 2 with one line on stderr for a bad command line or
 * request (an invalid contract is an answer, not an error). */
#include "core/tp_dtype.h"
#include "core/tp_expr.h"
#include "oracles/generic/ew_prog.h"
#include "core/tp_op.h"
#include "core/tp_rng.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *dtype_set(unsigned set)
{
    json_t *a = json_array();
    for (int t = 0; t < TP_NDTYPES; t++)
        if (set & TP_DTYPE_BIT(t))
            json_array_append_new(a, json_string(tp_dtype_name((tp_dtype)t)));
    return a;
}

/* "mu, sigma" -> ["mu", "sigma"] */
static json_t *arg_names(const char *args)
{
    json_t *a = json_array();
    for (const char *s = args; s && *s;) {
        size_t n = strcspn(s, ",");
        json_array_append_new(a, json_stringn(s, n));
        s += n;
        while (*s == ',' || *s == ' ')
            s++;
    }
    return a;
}

static json_t *registry(void)
{
    json_t *r = json_object();
    json_object_set_new(r, "tolproof_registry", json_integer(1));
    json_object_set_new(r, "written_by", json_string("build/tp_registry json (oracles/registry_tool.c)"));

    json_t *ops = json_array();
    for (const char *const *n = tp_op_names(); *n; n++) {
        const tp_op *op = tp_op_find(*n);
        json_t *o = json_object(), *keys = json_array();
        json_object_set_new(o, "name", json_string(op->name));
        json_object_set_new(o, "summary", json_string(op->summary));
        json_object_set_new(o, "dtypes", dtype_set(op->dtypes));
        for (const tp_model_key *k = op->model_keys; k && k->key; k++) {
            json_t *kj = json_object();
            json_object_set_new(kj, "key", json_string(k->key));
            if (k->values) {
                json_t *v = json_array();
                for (const char *const *s = k->values; *s; s++)
                    json_array_append_new(v, json_string(*s));
                json_object_set_new(kj, "values", v);
            } else
                json_object_set_new(kj, "what", json_string(k->what));
            json_array_append_new(keys, kj);
        }
        json_object_set_new(o, "model", keys);
        json_array_append_new(ops, o);
    }
    json_object_set_new(r, "ops", ops);

    json_t *dts = json_array();
    for (int t = 0; t < TP_NDTYPES; t++) {
        const tp_dtype_info *d = tp_dtype_get((tp_dtype)t);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(d->name));
        json_object_set_new(o, "size", json_integer((json_int_t)d->size));
        json_object_set_new(o, "c_type", json_string(d->c_type));
        json_object_set_new(o, "npy_descr", json_string(d->npy_descr));
        json_object_set_new(o, "index", json_boolean(d->index));
        json_array_append_new(dts, o);
    }
    json_object_set_new(r, "dtypes", dts);

    json_t *lim = json_object();
    json_object_set_new(lim, "max_dims", json_integer(TP_MAX_DIMS));
    json_object_set_new(lim, "max_tensors", json_integer(TP_MAX_TENSORS));
    json_object_set_new(lim, "max_rank", json_integer(TP_MAX_RANK));
    json_object_set_new(r, "limits", lim);

    json_t *fns = json_array();
    for (const tp_expr_function *f = tp_expr_functions(); f->name; f++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(f->name));
        json_object_set_new(o, "arity", json_integer(f->arity));
        json_object_set_new(o, "args", arg_names(f->args));
        json_object_set_new(o, "c_name", json_string(f->c_name));
        json_array_append_new(fns, o);
    }
    json_object_set_new(r, "expression_functions", fns);

    json_t *fills = json_array();
    for (const tp_fill_form *f = tp_fill_forms(); f->name; f++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(f->name));
        json_object_set_new(o, "arity", json_integer(f->arity));
        json_object_set_new(o, "args", arg_names(f->args));
        json_object_set_new(o, "dtypes", dtype_set(f->dtypes));
        if (f->note)
            json_object_set_new(o, "values", json_string(f->note));
        json_array_append_new(fills, o);
    }
    json_object_set_new(r, "fill_forms", fills);
    return r;
}

static int write_json(const char *out)
{
    json_t *r = registry();
    char *text = json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(r);
    size_t n = strlen(text);
    /* unchanged: keep the file and its time, so ninja rebuilds nothing (restat) */
    FILE *f = fopen(out, "rb");
    if (f) {
        char *old = malloc(n + 2);
        size_t got = fread(old, 1, n + 2, f);
        fclose(f);
        int same = got == n + 1 && memcmp(old, text, n) == 0 && old[n] == '\n';
        free(old);
        if (same) {
            free(text);
            return 0;
        }
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    f = fopen(tmp, "wb");
    int ok = f && fwrite(text, 1, n, f) == n && fputc('\n', f) == '\n';
    if (f && fclose(f) != 0)
        ok = 0;
    free(text);
    if (!ok || rename(tmp, out) != 0) {
        fprintf(stderr, "tp_registry: cannot write %s\n", out);
        remove(tmp);
        return 2;
    }
    return 0;
}

static json_t *failure(const tp_grammar_error *e)
{
    return json_pack("{s:b, s:s, s:s}", "ok", 0, "what", e->what, "expected", e->expected);
}

/* A text with a NUL character: C sees only the part before it, so the
 * whole is refused by name (with what the grammar would have expected). */
static json_t *nul_failure(const json_t *item, tp_grammar_error *e)
{
    const char *text = json_string_value(json_object_get(item, "text"));
    size_t n = json_string_length(json_object_get(item, "text")), at = strlen(text);
    char q[200];
    e->what[0] = 0;
    tp_grammar_quote(text, n > 150 ? 150 : n, q, sizeof q);
    tp_grammar_fail(e, "%s holds a NUL character (byte %zu)", q, at);
    return failure(e);
}

/* "values": [N, ...] on a value or condition item: the expression is also
 * evaluated with the dims set to these values (one case of the contract),
 * and the answer carries "value", or "error" with why it has none
 * (division by zero, integer overflow). */
static json_t *evaluate(json_t *answer, const char *c, const json_t *values, int ndims, const char *const *dims)
{
    int64_t v[64], value;
    if (!json_is_array(values) || json_array_size(values) != (size_t)ndims || ndims > 64)
        return json_decref(answer), NULL;
    for (int k = 0; k < ndims; k++) {
        if (!json_is_integer(json_array_get(values, (size_t)k)))
            return json_decref(answer), NULL;
        v[k] = json_integer_value(json_array_get(values, (size_t)k));
    }
    char err[400];
    if (tp_expr_eval(c, ndims, dims, v, &value, err, sizeof err) != 0)
        json_object_set_new(answer, "error", json_string(err));
    else
        json_object_set_new(answer, "value", json_integer(value));
    return answer;
}

static json_t *check_item(const json_t *item, int ndims, const char *const *dims)
{
    const char *kind = json_string_value(json_object_get(item, "kind"));
    const char *text = json_string_value(json_object_get(item, "text"));
    tp_grammar_error e;
    memset(&e, 0, sizeof e);
    if (!kind)
        kind = "";
    if (!text)
        return NULL;
    int has_nul = strlen(text) != json_string_length(json_object_get(item, "text"));
    if (strcmp(kind, "value") == 0 || strcmp(kind, "condition") == 0) {
        char c[2048];
        if (tp_expr_check(text, kind[0] == 'v' ? TP_EXPR_VALUE : TP_EXPR_CONDITION, ndims, dims, c, sizeof c, &e) != 0 ||
            has_nul)
            return has_nul ? nul_failure(item, &e) : failure(&e);
        json_t *answer = json_pack("{s:b, s:s}", "ok", 1, "c", c);
        const json_t *values = json_object_get(item, "values");
        return values ? evaluate(answer, c, values, ndims, dims) : answer;
    }
    if (strcmp(kind, "fill") == 0) {
        tp_dtype dt;
        const char *dname = json_string_value(json_object_get(item, "dtype"));
        json_t *rank = json_object_get(item, "rank");
        if (!dname || tp_dtype_parse(dname, &dt) != 0)
            return NULL;
        if (tp_fill_check(text, dt, json_is_integer(rank) ? (int)json_integer_value(rank) : -1, &e) != 0 || has_nul)
            return has_nul ? nul_failure(item, &e) : failure(&e);
        return json_pack("{s:b}", "ok", 1);
    }
    if (strcmp(kind, "ew_expr") == 0) { /* op elementwise's model.expr entries */
        const json_t *ins = json_object_get(item, "inputs");
        const char *names[EW_MAX_INPUTS];
        size_t n = json_array_size(ins);
        if (!json_is_array(ins) || n > EW_MAX_INPUTS)
            return NULL;
        for (size_t k = 0; k < n; k++)
            if (!(names[k] = json_string_value(json_array_get(ins, k))))
                return NULL;
        ew_prog *p = malloc(sizeof *p);
        if (!p)
            return NULL;
        if (ew_parse(text, (int)n, names, p, &e) != 0 || has_nul) {
            free(p);
            return has_nul ? nul_failure(item, &e) : failure(&e);
        }
        const char *op = json_string_value(json_object_get(item, "op"));
        const int rowwise = op && strcmp(op, "rowwise") == 0;
        json_t *index_on = json_array();
        for (int k = 0; k < p->nreads; k++) { /* INPUT[INDEX]: a shape expression over the dims, row and col */
            char c[1024];
            int axis;
            if (rowwise && p->read[k].tensor >= 0) {
                snprintf(e.what, sizeof e.what, "%.60s[%.111s]: an indexed read of an input is op elementwise's",
                         names[p->read[k].tensor], p->read[k].index);
                snprintf(e.expected, sizeof e.expected, "the inputs by name, and index(INDEX) for a column or row "
                         "number");
                free(p);
                json_decref(index_on);
                return failure(&e);
            }
            if (ew_read_check(p->read[k].index, ndims, dims, c, sizeof c, &axis, &e) != 0) {
                char what[sizeof e.what];
                snprintf(what, sizeof what, "%.60s[%.111s]: %.320s", p->read[k].tensor >= 0 ? names[p->read[k].tensor] : "index",
                         p->read[k].index, e.what);
                snprintf(e.what, sizeof e.what, "%s", what);
                free(p);
                json_decref(index_on);
                return failure(&e);
            }
            if (p->read[k].tensor < 0)
                json_array_append_new(index_on, json_string(axis == EW_ON_COL ? "col" : axis == EW_ON_ROW ? "row"
                                                                                                           : "none"));
        }
        json_t *fns = json_array();
        for (int k = 0; k < EW_NFNS; k++)
            if (p->fns_used >> k & 1u)
                json_array_append_new(fns, json_string(ew_fn_name(k)));
        const int nreads = p->nreads;
        free(p);
        return json_pack("{s:b, s:o, s:i, s:o}", "ok", 1, "fns", fns, "reads", nreads, "index_on", index_on);
    }
    if (strcmp(kind, "dim_name") == 0 || strcmp(kind, "tensor_name") == 0) {
        if (tp_expr_check_name(text, kind[0] == 'd', &e) != 0 || has_nul)
            return has_nul ? nul_failure(item, &e) : failure(&e);
        return json_pack("{s:b}", "ok", 1);
    }
    return NULL;
}

static int check(void)
{
    json_error_t jerr;
    /* NUL characters are let through, to be refused by name per item */
    json_t *req = json_loadf(stdin, JSON_ALLOW_NUL, &jerr);
    json_t *dims = json_object_get(req, "dims"), *items = json_object_get(req, "items");
    if (!req || !json_is_array(dims) || !json_is_array(items)) {
        fprintf(stderr, "tp_registry check: the request is not {\"dims\": [...], \"items\": [...]} (%s)\n",
                req ? "wrong shape" : jerr.text);
        json_decref(req);
        return 2;
    }
    size_t nd = json_array_size(dims);
    const char **names = calloc(nd + 1, sizeof *names);
    for (size_t i = 0; i < nd; i++)
        names[i] = json_string_value(json_array_get(dims, i)) ? json_string_value(json_array_get(dims, i)) : "";
    json_t *results = json_array(), *item;
    size_t i;
    json_array_foreach(items, i, item)
    {
        json_t *r = check_item(item, (int)nd, names);
        if (!r) {
            char *s = json_dumps(item, JSON_COMPACT);
            fprintf(stderr, "tp_registry check: item %zu (%s) is not one the protocol knows\n", i, s);
            free(s);
            free(names);
            json_decref(results);
            json_decref(req);
            return 2;
        }
        json_array_append_new(results, r);
    }
    json_t *answer = json_pack("{s:o}", "results", results);
    json_dumpf(answer, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(answer);
    json_decref(req);
    free(names);
    return fflush(stdout) == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "json") == 0)
        return write_json(argv[2]);
    if (argc == 2 && strcmp(argv[1], "check") == 0)
        return check();
    fprintf(stderr, "usage: tp_registry json OUT.json | tp_registry check < REQUEST.json\n");
    return 2;
}
