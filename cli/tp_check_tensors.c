/* The one code path of `tolproof check` and of the C API (api/tolproof.h):
 * see cli/tp_check_tensors.h. A tensor is a .npy file or memory; both end
 * as the same tp_given (dtype, shape, data, SHA-256), and from there on
 * nothing tells them apart but the names the result and the Evidence give
 * them (a path, or what the caller calls the array). */
#define _DEFAULT_SOURCE /* scandir, alphasort */
#include "cli/tp_check_tensors.h"
#include "core/tp_big_alloc.h"

#include "core/tp_case.h"
#include "core/tp_npy.h"
#include "core/tp_plan_json.h"
#include "core/tp_sha256.h"
#include "core/tp_timings.h"
#include "harness/tp_check.h"
#include "harness/tp_diagnose.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tp_check_refuse(tp_check_request *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->err, sizeof a->err, fmt, ap);
    va_end(ap);
    return 2;
}

/* What messages call a given tensor: its file, or what its caller calls it. */
static const char *where(const tp_given *g) { return g->path ? g->path : g->origin ? g->origin : "array"; }
static const char *npy_descr(tp_dtype t) { return tp_dtype_get(t)->npy_descr; }

static void shape_text(char *out, size_t len, int rank, const int64_t *shape)
{
    size_t n = (size_t)snprintf(out, len, "[");
    for (int d = 0; d < rank && n < len; d++)
        n += (size_t)snprintf(out + n, len - n, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (n < len)
        snprintf(out + n, len - n, "]");
}

static void expr_text(char *out, size_t len, const tp_plan_tensor *t)
{
    size_t n = (size_t)snprintf(out, len, "[");
    for (int d = 0; d < t->rank && n < len; d++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", d ? ", " : "", t->shape[d]);
    if (n < len)
        snprintf(out + n, len - n, "]");
}

static const tp_plan_tensor *plan_tensor(const tp_plan *plan, const char *name)
{
    int t = tp_plan_tensor_index(plan, name);
    return t < 0 ? NULL : &plan->tensors[t];
}

static int is_output(const tp_plan_tensor *t) { return t->role == TP_ROLE_OUTPUT; }

/* "A, B" for the inputs (want_output 0) or the outputs of the plan. */
static void tensor_list(char *out, size_t len, const tp_plan *plan, int want_output)
{
    size_t n = 0;
    out[0] = 0;
    for (int t = 0; t < plan->ntensors; t++)
        if (is_output(&plan->tensors[t]) == want_output && n < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "", plan->tensors[t].name);
}

static tp_tensor *case_tensor(tp_case *c, const char *name)
{
    for (int i = 0; i < c->ntensors; i++)
        if (strcmp(c->tensors[i].name, name) == 0)
            return &c->tensors[i];
    return NULL;
}

static int case_tensor_index(const tp_case *c, const char *name)
{
    for (int i = 0; i < c->ntensors; i++)
        if (strcmp(c->tensors[i].name, name) == 0)
            return i;
    return -1;
}


/* A contract name is looked up next to the binary (build/tolproof reads
 * build/gen/), so the command works from any directory. */
static tp_plan *load_contract(tp_check_request *a)
{
    char path[4200], dir[4096];
    size_t len = strlen(a->contract);
    if (strchr(a->contract, '/') || (len > 5 && strcmp(a->contract + len - 5, ".json") == 0))
        snprintf(path, sizeof path, "%s", a->contract);
    else {
        snprintf(dir, sizeof dir, "%s", a->plans_dir ? a->plans_dir : "build/gen");
        snprintf(path, sizeof path, "%s/%s.plan.json", dir, a->contract);
        struct stat st;
        if (stat(path, &st) != 0) {
            char known[1000] = "";
            size_t n = 0;
            struct dirent **ents = NULL;
            int ne = scandir(dir, &ents, NULL, alphasort);
            for (int i = 0; i < ne; i++) {
                size_t l = strlen(ents[i]->d_name);
                if (l > 10 && strcmp(ents[i]->d_name + l - 10, ".plan.json") == 0 && n < sizeof known)
                    n += (size_t)snprintf(known + n, sizeof known - n, "%s%.*s", n ? ", " : "", (int)(l - 10),
                                          ents[i]->d_name);
                free(ents[i]);
            }
            free(ents);
            tp_check_refuse(a,
                   "contract %s: %s does not exist; build the plans with `ninja plans` (or `ninja`) in the "
                   "repository, or pass the path of a plan JSON%s%s",
                   a->contract, path, n ? " (plans there: " : "", n ? known : "");
            if (n)
                strncat(a->err, ")", sizeof a->err - strlen(a->err) - 1);
            return NULL;
        }
    }
    char inner[800];
    tp_plan *plan = tp_plan_load(path, inner, sizeof inner);
    if (!plan)
        tp_check_refuse(a, "contract %s: %s", a->contract, inner);
    return plan;
}

/* --model KEY=VALUE on the working plan's model. A top-level key must be
 * one the contract declares, so that a misspelt key is refused instead of
 * silently ignored by the op; nested keys (tanhf_ulp.hip) may be new.
 * VALUE is read as JSON (so 2, true and "x" have their types), else taken
 * as a string; `overrides` records each as JSON for the result. */
static int apply_models(tp_check_request *a, tp_value *model, json_t *overrides)
{
    for (int i = 0; i < a->nmodels; i++) {
        const char *kv = a->models[i], *eq = strchr(kv, '=');
        if (!eq || eq == kv)
            return tp_check_refuse(a, "--model %s: expected KEY=VALUE", kv);
        char key[200], whole[200];
        snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
        snprintf(whole, sizeof whole, "%s", key);
        json_error_t je;
        json_t *v = json_loads(eq + 1, JSON_DECODE_ANY, &je);
        if (!v)
            v = json_string(eq + 1);
        char inner[400];
        tp_value *tv = tp_value_from_json(v, whole, inner, sizeof inner);
        if (!tv) {
            json_decref(v);
            return tp_check_refuse(a, "--model %s: %s", kv, inner);
        }
        tp_value *obj = model;
        char *part = key, *dot;
        int top = 1;
        while ((dot = strchr(part, '.')) != NULL) {
            *dot = 0;
            tp_value *child = (tp_value *)tp_value_get(obj, part);
            if (!tp_value_is_table(child)) {
                json_decref(v);
                tp_value_free(tv);
                return tp_check_refuse(a, "--model %s: model.%s is %s", kv, part, child ? "not a table" : "not a key of the contract's [model]");
            }
            obj = child;
            part = dot + 1;
            top = 0;
        }
        if (top && !tp_value_get(model, part)) {
            char keys[600] = "";
            size_t n = 0;
            for (int k = 0; k < model->n && n < sizeof keys; k++)
                n += (size_t)snprintf(keys + n, sizeof keys - n, "%s%s", n ? ", " : "", model->keys[k]);
            json_decref(v);
            tp_value_free(tv);
            return tp_check_refuse(a, "--model %s: the contract's [model] has no key %s (its keys: %s)", kv, part, keys);
        }
        json_object_set_new(overrides, whole, v);
        if (tp_value_set(obj, part, tv) != 0)
            return tp_check_refuse(a, "--model %s: out of memory", kv);
    }
    return 0;
}

/* The given tensors' SHA-256 in the background, a thread per tensor (the
 * hash of one is sequential; several run side by side): a file's bytes,
 * or for an array the .npy file np.save would write for it (header, then
 * the caller's memory, which stays put for the whole call). Hashed inline,
 * the three arrays of a 4096^3 GEMM took a tenth of a second of
 * tolproof.check on the GPU host. */
typedef struct {
    int given; /* index in a->g */
    const char *path;
    const void *mem; /* path NULL: the array, after the header hdr */
    size_t bytes, hl;
    char hdr[256];
    char *sha; /* a->g[given].sha */
    int rc, started;
    pthread_t thread;
} hash_job;

typedef struct {
    hash_job job[TP_CHECK_MAX_GIVEN];
    int n, waited;
} hashes;

static void *hash_run(void *arg)
{
    hash_job *j = arg;
    if (j->path)
        j->rc = tp_sha256_file(j->path, j->sha);
    else
        tp_sha256_hex2(j->hdr, j->hl, j->mem, j->bytes, j->sha);
    return NULL;
}

static void hash_start(hash_job *j)
{
    j->started = pthread_create(&j->thread, NULL, hash_run, j) == 0;
    if (!j->started)
        hash_run(j); /* no thread: hashed now, same result */
}

static void hashes_start(hashes *h, int given, const char *path, char *sha)
{
    hash_job *j = &h->job[h->n++];
    j->given = given;
    j->path = path;
    j->sha = sha;
    hash_start(j);
}

/* Reads one file and matches it to its tensor's dtype and rank; index
 * files are converted between i32 and i64 when every value fits, because
 * PyTorch writes int64 indices and the kernels here take int32. */
static int read_given(tp_check_request *a, tp_given *g, const tp_plan_tensor *t, hashes *h)
{
    char inner[800], want[200];
    tp_dtype pd = t->dtype;
    expr_text(want, sizeof want, t);
    int64_t numel = 1;
    if (g->path) {
        if (tp_npy_read(g->path, &g->dt, &g->rank, g->shape, &g->data, inner, sizeof inner) != 0)
            return tp_check_refuse(a, "%s %s: %s; the contract's %s is %s with shape %s", g->kind, g->name, inner, g->name,
                          npy_descr(pd), want);
        for (int d = 0; d < g->rank; d++)
            numel *= g->shape[d];
    } else {
        /* memory: the same dtype words as a file's header, then a copy (the
         * check narrows indices in place and hands the data to the case) */
        int dt = tp_npy_descr_dtype(g->descr ? g->descr : "", where(g), inner, sizeof inner);
        if (dt < 0)
            return tp_check_refuse(a, "%s %s: %s; the contract's %s is %s with shape %s", g->kind, g->name, inner, g->name,
                          npy_descr(pd), want);
        g->dt = (tp_dtype)dt;
        for (int d = 0; d < g->rank; d++)
            numel *= g->shape[d]; /* the C API checked each extent and the product */
        size_t bytes = (size_t)numel * tp_dtype_size(g->dt);
        g->data = tp_big_dup(g->mem, bytes);
        if (!g->data)
            return tp_check_refuse(a, "%s %s: %s: cannot allocate %zu bytes for a copy", g->kind, g->name, where(g), bytes);
        /* the SHA-256 of the .npy file np.save would write for it, so that
         * the array and its saved file have one fingerprint */
        hash_job *j = &h->job[h->n++];
        j->given = (int)(g - a->g);
        j->mem = g->mem;
        j->bytes = bytes;
        j->hl = tp_npy_header_bytes(g->dt, g->rank, g->shape, j->hdr, sizeof j->hdr);
        j->sha = g->sha;
        hash_start(j);
    }
    if (g->dt != pd && (pd == TP_I32 || pd == TP_I64) && (g->dt == TP_I32 || g->dt == TP_I64)) {
        void *conv = malloc((size_t)(numel ? numel : 1) * tp_dtype_size(pd));
        if (!conv)
            return tp_check_refuse(a, "%s %s: out of memory", g->kind, g->name);
        for (int64_t e = 0; e < numel; e++) {
            if (pd == TP_I64)
                ((int64_t *)conv)[e] = ((int32_t *)g->data)[e];
            else {
                int64_t v = ((int64_t *)g->data)[e];
                if (v < INT32_MIN || v > INT32_MAX) {
                    free(conv);
                    return tp_check_refuse(a, "%s %s: %s: element %lld is %lld, which does not fit the contract's i32 (<i4) tensor %s",
                                  g->kind, g->name, where(g), (long long)e, (long long)v, g->name);
                }
                ((int32_t *)conv)[e] = (int32_t)v;
            }
        }
        g->converted = pd == TP_I32 ? "<i8 narrowed to i32 (every value fits)" : "<i4 widened to i64";
        free(g->data);
        g->data = conv;
        g->dt = pd;
    }
    char got[200];
    shape_text(got, sizeof got, g->rank, g->shape);
    if (g->dt != pd)
        return tp_check_refuse(a, "%s %s: %s holds %s (%s); the contract's tensor %s is %s (%s)", g->kind, g->name, where(g),
                      npy_descr(g->dt), tp_dtype_name(g->dt), g->name, npy_descr(pd), tp_dtype_name(pd));
    if (g->rank != t->rank)
        return tp_check_refuse(a, "shape mismatch: %s %s: %s has shape %s (%d dimensions); the contract's tensor %s is %s",
                      g->kind, g->name, where(g), got, g->rank, g->name, want);
    return 0;
}

/* Each shape entry that is a bare dim name binds that dim; --dim binds
 * first. Two tensors that disagree are refused with both named. */
static int bind_dims(tp_check_request *a, const tp_plan *plan, int64_t *dims_out)
{
    int nd = plan->ndims;
    int64_t val[TP_MAX_DIMS];
    char from[TP_MAX_DIMS][400];
    int bound[TP_MAX_DIMS] = {0};
    char names[200] = "";
    for (int k = 0, n = 0; k < nd && n < (int)sizeof names; k++)
        n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", k ? ", " : "", plan->dims[k]);
    for (int i = 0; i < a->ndimargs; i++) {
        const char *kv = a->dimargs[i], *eq = strchr(kv, '=');
        char *end;
        errno = 0;
        long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
        /* refused, not clamped: strtoll saturates 99999999999999999999 at
         * 2^63-1; a contract's dims are below 2^31 (the kernels index with int) */
        if (!eq || end == eq + 1 || *end || v <= 0 || errno == ERANGE || v > INT32_MAX)
            return tp_check_refuse(a, "--dim %s: expected NAME=N with N a positive integer below 2^31", kv);
        int k;
        for (k = 0; k < nd; k++)
            if (strlen(plan->dims[k]) == (size_t)(eq - kv) && strncmp(plan->dims[k], kv, (size_t)(eq - kv)) == 0)
                break;
        if (k == nd)
            return tp_check_refuse(a, "--dim %s: the contract has no dim %.*s (its dims: %s)", kv, (int)(eq - kv), kv, names);
        bound[k] = 1;
        val[k] = v;
        snprintf(from[k], sizeof from[k], "--dim %s", kv);
    }
    for (int i = 0; i < a->ng; i++) {
        const tp_given *g = &a->g[i];
        const tp_plan_tensor *t = plan_tensor(plan, g->name);
        for (int d = 0; d < g->rank; d++) {
            const char *e = t->shape[d];
            for (int k = 0; k < nd; k++) {
                if (strcmp(e, plan->dims[k]) != 0)
                    continue;
                char here[400], got[120];
                shape_text(got, sizeof got, g->rank, g->shape);
                snprintf(here, sizeof here, "%s %s (%s, shape %s)", g->kind, g->name, where(g), got);
                if (!bound[k]) {
                    bound[k] = 1;
                    val[k] = g->shape[d];
                    snprintf(from[k], sizeof from[k], "%s", here);
                } else if (val[k] != g->shape[d])
                    return tp_check_refuse(a, "shape mismatch: %s has %s = %lld but %s has %s = %lld", from[k], e,
                                  (long long)val[k], here, e, (long long)g->shape[d]);
            }
        }
    }
    for (int k = 0; k < nd; k++) {
        const char *name = plan->dims[k];
        if (!bound[k])
            return tp_check_refuse(a, "dim %s: no given tensor has it as an extent, so it cannot be inferred; pass --dim %s=N",
                          name, name);
        dims_out[k] = val[k];
    }
    return 0;
}

static void dims_text(char *out, size_t len, const tp_plan *plan, const int64_t *dims)
{
    size_t n = 0;
    out[0] = 0;
    for (int d = 0; d < plan->ndims; d++)
        if (n < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s=%lld", n ? " " : "", plan->dims[d], (long long)dims[d]);
}

/* Where the case's tensors came from, for its Evidence and Non-claims:
 * every input and output from the given files, nothing launched. */
static void describe_source(tp_case_source *src, const tp_check_request *a, const json_t *overrides, const json_t *skipped)
{
    src->outputs_from_files = 1;
    for (int k = 0; k < a->ng; k++) {
        const tp_given *g = &a->g[k];
        tp_source_file f = {g->name, where(g), g->sha, g->converted, !g->path};
        if (strcmp(g->kind, "input") == 0 && src->ninputs < TP_SOURCE_MAX)
            src->inputs[src->ninputs++] = f;
        else if (strcmp(g->kind, "output") == 0 && src->noutputs < TP_SOURCE_MAX)
            src->outputs[src->noutputs++] = f;
        else if (strcmp(g->kind, "initial") == 0 && src->ninitial < TP_SOURCE_MAX)
            src->initial[src->ninitial++] = f;
    }
    src->model_overrides = overrides;
    size_t i;
    json_t *l;
    json_array_foreach((json_t *)skipped, i, l)
    {
        if (src->nskipped < TP_SOURCE_MAX)
            src->skipped[src->nskipped++] = json_string_value(l);
    }
}

static void print_elem(FILE *f, const char *what, const char *name, const json_t *e)
{
    fprintf(f, "  %s %s[", what, name);
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(e, "index"), i, d) fprintf(f, "%s%lld", i ? ", " : "", (long long)json_integer_value(d));
    const json_t *al = json_object_get(e, "allowed");
    double v[4];
    const json_t *src[4] = {json_object_get(e, "got"), json_object_get(e, "exact"), json_array_get(al, 0), json_array_get(al, 1)};
    for (int k = 0; k < 4; k++) {
        const char *s = json_string_value(src[k]);
        v[k] = s ? (strcmp(s, "nan") == 0 ? NAN : strcmp(s, "inf") == 0 ? INFINITY : -INFINITY) : json_number_value(src[k]);
    }
    const char *got_bits = json_string_value(json_object_get(e, "got_bits"));
    const char *admitted_bits = json_string_value(json_object_get(e, "admitted_bits"));
    if (got_bits && admitted_bits) /* a bit-exact op: the values alone would not show the difference */
        fprintf(f, "] = %.9g (bits %s): exact %.9g, admitted the bit pattern %s only", v[0], got_bits, v[1], admitted_bits);
    else
        fprintf(f, "] = %.9g: exact %.9g, admitted [%.9g, %.9g]", v[0], v[1], v[2], v[3]);
    fprintf(f, "%s\n", json_is_true(json_object_get(e, "more_accurate")) ? " (more accurate than the declared model admits)"
                                                                    : "");
}

/* The diagnosis of an output whose violations include more-accurate ones:
 * which alternative of the op's model would admit them. */
static void print_more_accurate(FILE *f, const json_t *o)
{
    long long n = (long long)json_integer_value(json_object_get(o, "more_accurate"));
    if (n <= 0)
        return;
    char which[600];
    tp_admitted_by_text(which, sizeof which, json_object_get(o, "admitted_by"), n);
    fprintf(f, "  diagnosis: %lld of the violations %s more accurate than the declared model admits (closer to the exact "
           "value than any value it admits); the verdict is for the declared model%s%s\n",
           n, n == 1 ? "is" : "are", which[0] ? which : "; no other value of the op's model keys admits ",
           which[0] ? "" : n == 1 ? "it" : "them");
}

static double stat_of(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    const char *s = json_string_value(v);
    return s ? (strcmp(s, "nan") == 0 ? NAN : strcmp(s, "-inf") == 0 ? -INFINITY : INFINITY) : json_number_value(v);
}

static void print_summary(FILE *f, const json_t *res, const tp_plan *plan, const tp_plan *work, const json_t *skipped)
{
    char dims[300];
    dims_text(dims, sizeof dims, plan, work->cases[0].dims);
    fprintf(f, "contract %s (op %s), %s\n", plan->contract, plan->op, dims);
    fprintf(f, "model:");
    for (int m = 0; m < work->model->n; m++) {
        if (tp_value_is_table(&work->model->items[m]))
            continue;
        json_t *jv = tp_value_to_json(&work->model->items[m]);
        char *dv = jv ? json_dumps(jv, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        fprintf(f, " %s=%s", work->model->keys[m], dv ? dv : "?");
        free(dv);
        json_decref(jv);
    }
    fprintf(f, "\n");
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(res, "outputs"), k, v)
    {
        const json_t *claim = json_object_get(v, "claim");
        fprintf(f, "output %s (%s): %s, %lld of %lld elements outside the bound, max err/bound %.3g, max err %.3g (%.3g ulp); "
               "claim |err| <= %g: %s\n",
               k, json_string_value(json_object_get(v, json_object_get(v, "file") ? "file" : "array")), json_string_value(json_object_get(v, "verdict")),
               (long long)json_integer_value(json_object_get(v, "violations")),
               (long long)json_integer_value(json_object_get(v, "elements")), stat_of(v, "max_err_over_bound"),
               stat_of(v, "max_abs_err"), stat_of(v, "max_ulp_err"), stat_of(claim, "atol"),
               json_string_value(json_object_get(claim, "verdict")));
        print_more_accurate(f, v);
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(v, "first_violations"), i, e) print_elem(f, "violation", k, e);
        if (json_array_size(json_object_get(v, "first_violations")) == 0 && json_array_size(json_object_get(v, "worst")))
            print_elem(f, "worst", k, json_array_get(json_object_get(v, "worst"), 0));
    }
    size_t i;
    json_t *s;
    json_array_foreach((json_t *)skipped, i, s) fprintf(f, "output %s: not given, not checked\n", json_string_value(s));
    /* --device: who computed the exact sums, and the sample cross-check */
    json_object_foreach(json_object_get(res, "exact_provider"), k, v)
    {
        const json_t *cc = json_object_get(v, "cross_check");
        const char *suffix = ".element_check";
        size_t kl = strlen(k), sl = strlen(suffix);
        int elem = kl > sl && strcmp(k + kl - sl, suffix) == 0;
        fprintf(f, "%s%.*s: %s on %s in %.3f s; %lld of %lld elements (seed %s) cross-checked against the CPU %s: %lld "
                   "disagreements\n",
                elem ? "element check of " : "exact sums of ", (int)(elem ? kl - sl : kl), k, json_string_value(json_object_get(v, "provider")), json_string_value(json_object_get(v, "device")),
                json_number_value(json_object_get(v, "seconds")), (long long)json_integer_value(json_object_get(cc, "sampled")),
                (long long)json_integer_value(json_object_get(v, "elements")), json_string_value(json_object_get(cc, "seed")),
                elem ? "element check" : "exact path", (long long)json_integer_value(json_object_get(cc, "disagreements")));
    }
    fprintf(f, "verdict: %s\n", json_string_value(json_object_get(res, "verdict")));
}

static void hashes_wait(void *arg)
{
    hashes *h = arg;
    if (h->waited)
        return;
    double t = tp_timing_start();
    for (int i = 0; i < h->n; i++)
        if (h->job[i].started)
            pthread_join(h->job[i].thread, NULL);
    h->waited = 1;
    if (h->n)
        tp_timing_end(t, "waited for the files' SHA-256 (computed in the background)");
}

int tp_check_tensors(tp_check_request *a, json_t **result)
{
    tp_plan *plan = load_contract(a);
    if (!plan)
        return 2;
    int rc = 2;
    hashes hj;
    memset(&hj, 0, sizeof hj);
    tp_case *c = NULL;
    /* The working plan: the contract's, with the model overridden, only
     * the outputs that were given and one case, "check", with the inferred
     * dims and every input given (built without data, then the files'
     * installed; the fill "const(0)" only names the fill a plan needs). It
     * shares the plan's strings and owns only its model. */
    tp_plan work = *plan;
    tp_plan_case one;
    char one_name[] = "check", zeros[] = "const(0)";
    memset(&one, 0, sizeof one);
    one.name = one_name;
    one.note = one_name;
    work.cases = &one;
    work.ncases = 1;
    work.model = tp_value_copy(plan->model);
    json_t *overrides = json_object(), *skipped = json_array();
    const char *contract = plan->contract;
    const char *opname = plan->op;
    const tp_op *op = tp_op_find(opname);
    char inner[1200], list[400];
    if (!work.model) {
        tp_check_refuse(a, "contract %s: out of memory", contract);
        goto out;
    }
    if (!op) {
        tp_check_refuse(a, "contract %s: unknown op \"%s\"", contract, opname);
        goto out;
    }
    tp_value *model = work.model;
    if (apply_models(a, model, overrides) != 0)
        goto out;
    if (tp_op_check_model_keys(op, model, inner, sizeof inner) != 0 ||
        op->check_model(model, inner, sizeof inner) != 0) {
        tp_check_refuse(a, "%s%s (op %s)", a->nmodels ? "--model: " : "", inner, opname);
        goto out;
    }
    /* names and roles before any file is read */
    for (int i = 0; i < a->ng; i++) {
        tp_given *g = &a->g[i];
        const tp_plan_tensor *t = plan_tensor(plan, g->name);
        int want_output = strcmp(g->kind, "input") != 0;
        tensor_list(list, sizeof list, plan, want_output);
        if (!t) {
            tp_check_refuse(a, "%s %s: contract %s has no tensor %s (its %ss: %s)", g->kind, g->name, contract, g->name,
                   want_output ? "output" : "input", list);
            goto out;
        }
        if (is_output(t) != want_output) {
            tp_check_refuse(a, "%s %s: %s is an %s of contract %s, not an %s (its %ss: %s)", g->kind, g->name, g->name,
                   want_output ? "input" : "output", contract, want_output ? "output" : "input",
                   want_output ? "output" : "input", list);
            goto out;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(a->g[j].kind, g->kind) == 0 && strcmp(a->g[j].name, g->name) == 0) {
                tp_check_refuse(a, "%s %s is given twice", g->kind, g->name);
                goto out;
            }
        if (strcmp(g->kind, "initial") == 0) {
            int has = 0;
            for (int j = 0; j < a->ng; j++)
                has |= strcmp(a->g[j].kind, "output") == 0 && strcmp(a->g[j].name, g->name) == 0;
            if (!has) {
                tp_check_refuse(a, "initial %s: %s is not given with --output, so its initial content has no use", g->name, g->name);
                goto out;
            }
        }
    }
    {
        char missing[400] = "";
        size_t n = 0;
        int nout = 0;
        for (int ti = 0; ti < plan->ntensors; ti++) {
            const tp_plan_tensor *t = &plan->tensors[ti];
            const char *name = t->name;
            int found = 0;
            for (int j = 0; j < a->ng; j++)
                found |= strcmp(a->g[j].name, name) == 0 && strcmp(a->g[j].kind, is_output(t) ? "output" : "input") == 0;
            if (is_output(t))
                nout += found;
            else if (!found && n < sizeof missing)
                n += (size_t)snprintf(missing + n, sizeof missing - n, "%s--input %s=FILE.npy", n ? ", " : "", name);
        }
        if (n) {
            tp_check_refuse(a, "contract %s needs every input: missing %s", contract, missing);
            goto out;
        }
        if (!nout) {
            tensor_list(list, sizeof list, plan, 1);
            tp_check_refuse(a, "no --output given: give at least one of contract %s's outputs (%s)", contract, list);
            goto out;
        }
    }
    /* Each file's SHA-256 is a second pass over it, needed only for the
     * record: computed in the background, a thread per file, while the
     * files are read and the references computed (serially before the
     * reads it was 0.05 s of a 0.66 s 4096^3 --device check on the GPU
     * host), and waited for before the statements name the files. */
    for (int i = 0; i < a->ng; i++)
        if (a->g[i].path)
            hashes_start(&hj, i, a->g[i].path, a->g[i].sha);
    for (int i = 0; i < a->ng; i++) {
        double t = tp_timing_start();
        if (read_given(a, &a->g[i], plan_tensor(plan, a->g[i].name), &hj) != 0)
            goto out;
        tp_timing_end(t, "%s %s read and converted", a->g[i].kind, a->g[i].name);
    }
    a->files_read_at = tp_timing_start();
    if (bind_dims(a, plan, one.dims) != 0)
        goto out;
    work.ntensors = 0;
    for (int ti = 0; ti < plan->ntensors; ti++) {
        const tp_plan_tensor *t = &plan->tensors[ti];
        int found = 0;
        for (int j = 0; j < a->ng; j++)
            found |= strcmp(a->g[j].kind, "output") == 0 && strcmp(a->g[j].name, t->name) == 0;
        if (is_output(t) && !found) {
            json_array_append_new(skipped, json_string(t->name));
            continue;
        }
        one.fill[work.ntensors] = is_output(t) ? NULL : zeros;
        work.tensors[work.ntensors++] = *t;
    }
    double t_case = tp_timing_start();
    c = tp_case_build_given(&work, 0, a->backend, inner, sizeof inner);
    if (!c) {
        char dt[300];
        dims_text(dt, sizeof dt, plan, one.dims);
        const char *msg = strncmp(inner, "case check: ", 12) == 0 ? inner + 12 : inner;
        tp_check_refuse(a, "contract %s refuses the given tensors (%s): %s", contract, dt, msg);
        goto out;
    }
    for (int i = 0; i < a->ng; i++) {
        tp_given *g = &a->g[i];
        tp_tensor *t = case_tensor(c, g->name);
        int same = g->rank == t->rank;
        for (int d = 0; same && d < g->rank; d++)
            same = g->shape[d] == t->shape[d];
        if (!same) {
            char got[120], want[120], expr[200], dt[300];
            shape_text(got, sizeof got, g->rank, g->shape);
            shape_text(want, sizeof want, t->rank, t->shape);
            expr_text(expr, sizeof expr, plan_tensor(plan, g->name));
            dims_text(dt, sizeof dt, plan, one.dims);
            tp_check_refuse(a, "shape mismatch: %s %s: %s has shape %s; the contract's %s is %s = %s with %s", g->kind, g->name,
                   where(g), got, g->name, expr, want, dt);
            goto out;
        }
        if (strcmp(g->kind, "initial") == 0) {
            free(t->initial);
            t->initial = g->data;
        } else {
            free(t->data);
            t->data = g->data;
        }
        g->data = NULL;
        if (strcmp(g->kind, "input") == 0) {
            int r = tp_case_check_values(&work, c, case_tensor_index(c, g->name), inner, sizeof inner);
            if (r == 0)
                r = tp_op_check_input_finite(op, t, inner, sizeof inner); /* bad input, not a violation; the
                                                                            * inputs replaced before passed */
            if (r != 0) {
                tp_check_refuse(a, "input %s: %s: %s", g->name, where(g), inner);
                goto out;
            }
        }
    }
    tp_timing_end(t_case, "case built, inputs' values and finiteness checked");
    if (a->ready && a->ready(a->ready_arg, inner, sizeof inner) != 0) {
        tp_check_refuse(a, "%s", inner);
        goto out;
    }
    tp_case_source src = {0};
    describe_source(&src, a, overrides, skipped);
    src.wait = hashes_wait;
    src.wait_arg = &hj;
    json_t *res = tp_check_case(&work, c, &src, inner, sizeof inner);
    if (!res) {
        tp_check_refuse(a, "contract %s: the reference cannot be computed for these tensors: %s", contract, inner);
        goto out;
    }
    hashes_wait(&hj);
    for (int i = 0; i < hj.n; i++)
        if (hj.job[i].rc != 0) {
            tp_given *g = &a->g[hj.job[i].given];
            tp_check_refuse(a, "%s %s: %s: cannot read it again for its checksum", g->kind, g->name, g->path);
            json_decref(res);
            goto out;
        }
    json_object_del(res, "seed");
    json_object_del(res, "fill");
    json_t *ins = json_object();
    for (int i = 0; i < a->ng; i++) {
        tp_given *g = &a->g[i];
        /* a file by its path; an array by what its caller calls it */
        const char *key = g->path ? "file" : "array";
        json_t *o = json_pack("{s:s,s:s}", key, where(g), "sha256", g->sha);
        if (g->converted)
            json_object_set_new(o, "converted", json_string(g->converted));
        if (strcmp(g->kind, "input") == 0)
            json_object_set_new(ins, g->name, o);
        else if (strcmp(g->kind, "output") == 0) {
            json_object_set_new(json_object_get(json_object_get(res, "outputs"), g->name), key, json_string(where(g)));
            json_decref(o);
        } else {
            json_object_set_new(json_object_get(json_object_get(res, "outputs"), g->name), "initial_from", o);
        }
    }
    json_object_set_new(res, "inputs", ins);
    json_object_set_new(res, "contract", json_string(contract));
    json_object_set_new(res, "op", json_string(opname));
    json_object_set_new(res, "backend", json_string(a->backend));
    json_object_set_new(res, "model", tp_value_to_json(work.model));
    json_object_set(res, "model_overrides", overrides);
    json_object_set(res, "outputs_not_given", skipped);
    if (a->summary)
        print_summary(a->summary, res, plan, &work, skipped);
    *result = res;
    rc = strcmp(json_string_value(json_object_get(res, "verdict")), "pass") == 0 ? 0 : 1;
out:
    hashes_wait(&hj); /* its threads write into a->g: done before anything is freed */
    tp_case_free(c);
    tp_value_free(work.model);
    json_decref(overrides);
    json_decref(skipped);
    tp_plan_free(plan);
    return rc;
}

json_t *tp_check_refusal(const tp_check_request *r)
{
    json_t *res = json_pack("{s:s,s:s}", "verdict", "refused", "reason", r->err);
    if (r->contract)
        json_object_set_new(res, "contract", json_string(r->contract));
    return res;
}

void tp_check_request_release(tp_check_request *r)
{
    for (int i = 0; i < r->ng; i++) {
        free(r->g[i].name);
        free(r->g[i].data);
        r->g[i].name = NULL;
        r->g[i].data = NULL;
    }
}
