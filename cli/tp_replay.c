/* `tolproof replay`'s per-directory logic, moved out of the command so the
 * bundle and the audit rebuild cases with exactly the code that replays
 * them. */
#define _POSIX_C_SOURCE 200809L
#include "cli/tp_replay.h"

#include "cli/tp_packed_output.h"
#include "cli/tp_record_checks.h"
#include "harness/tp_check.h"
#include "core/tp_case.h"
#include "core/tp_jsonfile.h"
#include "harness/tp_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tp_json_first_difference(const json_t *a, const json_t *b, char *path, size_t len)
{
    if (json_equal((json_t *)a, (json_t *)b))
        return 0;
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v)
        {
            size_t n = strlen(path);
            snprintf(path + n, len - n, ".%s", k);
            if (tp_json_first_difference(v, json_object_get(b, k), path, len))
                return 1;
            path[n] = 0;
        }
        json_object_foreach((json_t *)b, k, v) if (!json_object_get(a, k))
        {
            size_t n = strlen(path);
            snprintf(path + n, len - n, ".%s (only in the recomputation)", k);
            return 1;
        }
    }
    if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
        for (size_t i = 0; i < json_array_size(a); i++) {
            size_t n = strlen(path);
            snprintf(path + n, len - n, "[%zu]", i);
            if (tp_json_first_difference(json_array_get(a, i), json_array_get(b, i), path, len))
                return 1;
            path[n] = 0;
        }
    }
    return 1;
}

static int named(const char *key, const char *const *keys)
{
    for (int i = 0; keys[i]; i++)
        if (strcmp(keys[i], key) == 0)
            return 1;
    return 0;
}

int tp_json_differs_only_under(const json_t *a, const json_t *b, const char *const *keys)
{
    if (json_equal((json_t *)a, (json_t *)b))
        return 1;
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v)
        {
            const json_t *w = json_object_get(b, k);
            if (!named(k, keys) && !(w && tp_json_differs_only_under(v, w, keys)))
                return 0;
        }
        json_object_foreach((json_t *)b, k, v) if (!json_object_get(a, k) && !named(k, keys)) return 0;
        return 1;
    }
    if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!tp_json_differs_only_under(json_array_get(a, i), json_array_get(b, i), keys))
                return 0;
        return 1;
    }
    return 0;
}

/* The index of the statement with this id in list, or -1. */
static int statement_index(const json_t *list, const char *id)
{
    size_t i;
    json_t *st;
    json_array_foreach(list, i, st)
    {
        const char *sid = json_string_value(json_object_get(st, "id"));
        if (sid && strcmp(sid, id) == 0)
            return (int)i;
    }
    return -1;
}

int tp_statements_first_difference(const json_t *rec, const json_t *now, const char *key, char *path, size_t len)
{
    const json_t *a = json_object_get(rec, key), *b = json_object_get(now, key);
    size_t n = strlen(path);
    if (json_equal((json_t *)a, (json_t *)b))
        return 0;
    if (!a || !b) {
        snprintf(path + n, len - n, ".%s (only in the %s)", key, a ? "record" : "recomputation");
        return 1;
    }
    size_t na = json_array_size(a), nb = json_array_size(b);
    for (size_t i = 0; i < na || i < nb; i++) {
        const json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
        const char *xid = json_string_value(json_object_get(x, "id")), *yid = json_string_value(json_object_get(y, "id"));
        if (x && !xid) {
            snprintf(path + n, len - n,
                     ".%s[%zu] (not an {id, text} statement: results.json from before structured Evidence and "
                     "Non-claims, see recorded/MIGRATIONS.md)",
                     key, i);
            return 1;
        }
        if (!x || !y) {
            snprintf(path + n, len - n, ".%s[%zu] (id %s: %s)", key, i, x ? xid : yid,
                     x ? "recorded, not re-derived" : "re-derived, not recorded");
            return 1;
        }
        if (strcmp(xid, yid) != 0) {
            if (statement_index(b, xid) < 0)
                snprintf(path + n, len - n, ".%s[%zu] (id %s: recorded, not re-derived)", key, i, xid);
            else if (statement_index(a, yid) < 0)
                snprintf(path + n, len - n, ".%s[%zu] (id %s: re-derived, not recorded)", key, i, yid);
            else
                snprintf(path + n, len - n, ".%s[%zu] (id %s: recorded in another place)", key, i, xid);
            return 1;
        }
        if (!json_equal(json_object_get(x, "text"), json_object_get(y, "text"))) {
            snprintf(path + n, len - n, ".%s[%zu].text (id %s)", key, i, xid);
            return 1;
        }
        if (!json_equal((json_t *)x, (json_t *)y)) {
            snprintf(path + n, len - n, ".%s[%zu] (id %s)", key, i, xid);
            return 1;
        }
    }
    return 0;
}

/* The outputs as the GPU wrote them: outputs/CASE/NAME.npy, or the .tpr
 * that encodes it (cli/tp_packed_output.h), decoded against this case's
 * exact reference and checked against its SHA-256. */
static int load_outputs(const char *dir, const tp_plan *plan, tp_case *c, tp_ref **refs, char *err, size_t errlen)
{
    for (int t = 0; t < c->ntensors; t++)
        if (plan->tensors[t].role == TP_ROLE_OUTPUT &&
            tp_run_output_load(dir, plan, c, t, refs ? &refs[t] : NULL, err, errlen) != 0)
            return -1;
    return 0;
}

static void free_refs(tp_ref **refs)
{
    for (int t = 0; t < TP_MAX_TENSORS; t++)
        free(refs[t]);
}

/* Cases run with --input NAME=FILE record the file's SHA-256; the harness
 * copied it to outputs/CASE/input_NAME.npy, and the case is re-derived from
 * that copy (checked like the original) instead of from the seed. The
 * recomputed "inputs_from" holds the copies' checksums, so a copy that is
 * not the file the run used shows as a disagreement. */
static int load_inputs(const char *dir, const tp_plan *plan, const json_t *rec, tp_case *c, json_t **from,
                       char *err, size_t errlen)
{
    const json_t *want = json_object_get(rec, "inputs_from");
    *from = NULL;
    if (!want)
        return 0;
    if (!json_is_object(want)) {
        snprintf(err, errlen, "results.json: inputs_from is not an object");
        return -1;
    }
    *from = json_object();
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)want, name, v)
    {
        char path[4200], sha[65];
        snprintf(path, sizeof path, "%s/outputs/%s/input_%s.npy", dir, c->name, name);
        if (tp_case_load_input(plan, c, name, path, sha, err, errlen) != 0)
            return -1;
        json_object_set_new(*from, name, json_string(sha));
    }
    return 0;
}

static tp_case *load_case(const char *dir, const tp_plan *plan, const char *backend, const json_t *rec,
                          json_t **from, int with_outputs, char *err, size_t errlen)
{
    const char *name = json_string_value(json_object_get(rec, "case"));
    const char *verdict = json_string_value(json_object_get(rec, "verdict"));
    json_t *f = NULL;
    if (from)
        *from = NULL;
    err[0] = 0;
    if (!verdict || strcmp(verdict, "refused") == 0 || strcmp(verdict, "error") == 0)
        return NULL;
    int idx = name ? tp_plan_case_index(plan, name) : -1;
    if (idx < 0) {
        snprintf(err, errlen, "case %s is not in plan.json", name ? name : "(unnamed)");
        return NULL;
    }
    tp_case *c = tp_check_case_build(plan, idx, backend, err, errlen);
    if (!c)
        return NULL;
    if (load_inputs(dir, plan, rec, c, &f, err, errlen) != 0 ||
        (with_outputs && load_outputs(dir, plan, c, NULL, err, errlen) != 0)) {
        tp_case_free(c);
        json_decref(f);
        return NULL;
    }
    if (from)
        *from = f;
    else
        json_decref(f);
    return c;
}

tp_case *tp_replay_load_case(const char *dir, const tp_plan *plan, const char *backend, const json_t *rec,
                             json_t **from, char *err, size_t errlen)
{
    return load_case(dir, plan, backend, rec, from, 1, err, errlen);
}

tp_case *tp_replay_load_inputs(const char *dir, const tp_plan *plan, const char *backend, const json_t *rec,
                               char *err, size_t errlen)
{
    return load_case(dir, plan, backend, rec, NULL, 0, err, errlen);
}

static void note_first(tp_replay_opts *opts, const char *dir, size_t index, const char *what, const char *name)
{
    if (opts && !opts->first[0])
        snprintf(opts->first, sizeof opts->first, "%s/results.json: first disagreement at .cases[%zu]%s (case %s)",
                 dir, index, what, name ? name : "(unnamed)");
}

/* The first difference between a recorded case and its recomputation:
 * every field but the statement lists first (a verdict matters more than
 * a sentence), then the Evidence and Non-claims statement by statement.
 * *only_statements is set when the statement lists are all that differs. */
static int case_difference(const json_t *rec, const json_t *now, char *path, size_t len, int *only_statements)
{
    json_t *a = json_copy((json_t *)rec), *b = json_copy((json_t *)now);
    /* "exact_provider": the record says a GPU computed the exact sums (its
     * sample cross-checked there against the CPU path). The replay
     * computes every element on the CPU, so what it re-derives checks the
     * provider's values in full; the field itself is the device's word. */
    json_object_del(a, "exact_provider");
    static const char *const keys[] = {"evidence", "non_claims"};
    for (int k = 0; k < 2; k++) {
        json_object_del(a, keys[k]);
        json_object_del(b, keys[k]);
    }
    int differs = tp_json_first_difference(a, b, path, len);
    json_decref(a);
    json_decref(b);
    *only_statements = 0;
    if (differs)
        return 1;
    for (int k = 0; k < 2; k++)
        if (tp_statements_first_difference(rec, now, keys[k], path, len)) {
            *only_statements = 1;
            return 1;
        }
    return 0;
}

static int replay_case(const char *dir, const tp_plan *plan, const char *backend, json_t *rec, int quiet,
                       size_t index, tp_replay_opts *opts, int *rewritten)
{
    const char *name = json_string_value(json_object_get(rec, "case"));
    const char *verdict = json_string_value(json_object_get(rec, "verdict"));
    int idx = name ? tp_plan_case_index(plan, name) : -1;
    if (idx < 0) {
        printf("not ok - %s: case %s is not in plan.json\n", dir, name ? name : "(unnamed)");
        note_first(opts, dir, index, ".case", name);
        return 1;
    }
    if (!verdict) {
        printf("not ok - %s/%s: results.json records no verdict\n", dir, name);
        note_first(opts, dir, index, ".verdict", name);
        return 1;
    }
    char err[800];
    tp_case *c = tp_check_case_build(plan, idx, backend, err, sizeof err);
    if (strcmp(verdict, "refused") == 0 || strcmp(verdict, "error") == 0) {
        char why[600];
        const char *by = json_string_value(json_object_get(rec, "by"));
        const char *reason = json_string_value(json_object_get(rec, "reason"));
        tp_unjudged kind = tp_check_unjudged(rec, why, sizeof why);
        int refused_now = c == NULL;
        tp_case_free(c);
        if (kind == TP_UNJUDGED_REFUSED) {
            printf("not ok - %s/%s: %s\n", dir, name, why);
            note_first(opts, dir, index, ".verdict", name);
            return 1;
        }
        if (kind == TP_UNJUDGED_GPU_WORD) {
            /* a case the plan refuses is never launched, so it cannot fault */
            if (refused_now) {
                printf("not ok - %s/%s: recorded error by %s (%s), but the plan refuses the case (%s): it was never "
                       "launched\n",
                       dir, name, by, reason, err);
                note_first(opts, dir, index, ".by", name);
                return 1;
            }
            printf("ok - %s/%s: recorded error by %s (%s): the GPU's word, not re-derived (a case without "
                   "outputs)\n",
                   dir, name, by, reason);
            if (opts)
                opts->gpu_errors++;
            return 0;
        }
        /* a refusal by the plan: the plan must refuse it now, saying the same */
        int same = refused_now && strcmp(err, reason) == 0;
        printf("%s - %s/%s: recorded %s (%s)%s\n", same ? "ok" : "not ok", dir, name, verdict, reason,
               same ? ", refusal re-derived" : ", but the plan does not refuse it now");
        if (!same)
            note_first(opts, dir, index, ".reason", name);
        return !same;
    }
    if (!c) {
        printf("not ok - %s/%s: the plan refuses the case now: %s\n", dir, name, err);
        note_first(opts, dir, index, ".verdict", name);
        return 1;
    }
    json_t *from = NULL;
    /* the references computed to decode .tpr outputs, checked against once */
    tp_ref *refs[TP_MAX_TENSORS] = {0};
    if (load_inputs(dir, plan, rec, c, &from, err, sizeof err) != 0 ||
        load_outputs(dir, plan, c, refs, err, sizeof err) != 0) {
        free_refs(refs);
        tp_case_free(c);
        json_decref(from);
        printf("not ok - %s/%s: %s\n", dir, name, err);
        note_first(opts, dir, index, ".outputs", name);
        return 1;
    }
    /* Inputs from --input files are read from the copies the harness
     * kept, as it said; the copies' checksums are what the case cites. */
    tp_case_source src = {0};
    char copies[TP_SOURCE_MAX][TP_SOURCE_PATH];
    tp_case_source_copies(&src, c, from, copies);
    json_t *now = tp_check_case_given(plan, c, &src, refs, err, sizeof err);
    free_refs(refs);
    if (now && from)
        json_object_set(now, "inputs_from", from);
    json_decref(from);
    if (!now) {
        tp_case_free(c);
        printf("not ok - %s/%s: %s\n", dir, name, err);
        note_first(opts, dir, index, "", name);
        return 1;
    }
    char path[1024] = "";
    int only_statements;
    int differs = case_difference(rec, now, path, sizeof path, &only_statements);
    char line[600];
    tp_case_line(line, sizeof line, now);
    if (differs && only_statements && opts && opts->rewrite_statements) {
        json_object_set(rec, "evidence", json_object_get(now, "evidence"));
        json_object_set(rec, "non_claims", json_object_get(now, "non_claims"));
        printf("ok - %s/%s: re-derived apart from the Evidence and Non-claims (first at %s), which are "
               "re-generated\n",
               dir, name, path);
        (*rewritten)++;
        differs = 0;
    } else if (differs && opts && opts->rewrite_keys && tp_json_differs_only_under(rec, now, opts->rewrite_keys)) {
        /* before rec is cleared: name is rec's own string */
        printf("ok - %s/%s: re-derived apart from the fields named for re-generation (first at %s), which are "
               "re-generated\n",
               dir, name, path);
        json_object_clear(rec);
        json_object_update(rec, now);
        (*rewritten)++;
        differs = 0;
    } else if (differs) {
        printf("not ok - %s/%s: results.json disagrees with the recomputation at %s\n", dir, name, path);
        note_first(opts, dir, index, path, name);
    } else if (!quiet)
        printf("ok - %s/%s: re-derived: %s\n", dir, name, line);
    else
        printf("ok - %s/%s\n", dir, name);
    if (opts && opts->on_case)
        opts->on_case(opts->ctx, dir, plan, rec, c);
    tp_case_free(c);
    json_decref(now);
    return differs;
}

/* Through a temporary file, so that a failed write leaves the record. */
static int write_results(const char *path, const json_t *res)
{
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (tp_write_json(tmp, res) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int tp_replay_dir(const char *dir, int quiet, const char *only, int *ncases, tp_replay_opts *opts)
{
    char path[4200], err[4400];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    tp_plan *plan = tp_plan_load(path, err, sizeof err);
    if (!plan) {
        printf("not ok - %s\n", err);
        if (opts && !opts->first[0])
            snprintf(opts->first, sizeof opts->first, "%s", err);
        return 2;
    }
    snprintf(path, sizeof path, "%s/results.json", dir);
    json_t *res = tp_json_file_load(path, 0, err, sizeof err);
    if (!res) {
        printf("not ok - %s\n", err);
        if (opts && !opts->first[0])
            snprintf(opts->first, sizeof opts->first, "%s", err);
        tp_plan_free(plan);
        return 2;
    }
    /* every case of the plan exactly once, before any case is re-derived */
    char first[1400] = "";
    int bad = tp_check_coverage_plan(dir, plan, res, first, sizeof first);
    if (opts && !opts->first[0])
        snprintf(opts->first, sizeof opts->first, "%s", first);
    if (bad == 2) {
        json_decref(res);
        tp_plan_free(plan);
        return 2;
    }
    const char *backend = json_string_value(json_object_get(res, "backend"));
    int rewritten = 0;
    size_t i;
    json_t *rec;
    json_array_foreach(json_object_get(res, "cases"), i, rec)
    {
        const char *name = json_string_value(json_object_get(rec, "case"));
        if (only && (!name || strcmp(only, name) != 0))
            continue;
        bad |= replay_case(dir, plan, backend ? backend : "cuda", rec, quiet, i, opts, &rewritten);
        (*ncases)++;
    }
    if (rewritten && bad)
        printf("# %s/results.json not rewritten: a case disagrees in more than the fields to re-generate\n", dir);
    else if (rewritten && write_results(path, res) != 0) {
        printf("not ok - %s: cannot rewrite it\n", path);
        bad = 2;
    } else if (rewritten)
        printf("# %s: %d case(s) with re-generated %s\n", path, rewritten,
               opts->rewrite_keys ? "fields" : "Evidence and Non-claims");
    json_decref(res);
    tp_plan_free(plan);
    return bad;
}
