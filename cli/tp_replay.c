/* `tolproof replay`'s per-directory logic, moved out of the command so the
 * bundle and the audit rebuild cases with exactly the code that replays
 * them. */
#define _POSIX_C_SOURCE 200809L
#include "cli/tp_replay.h"

#include "harness/tp_check.h"
#include "core/tp_case.h"
#include "core/tp_npy.h"
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

static int load_outputs(const char *dir, const tp_plan *plan, tp_case *c, char *err, size_t errlen)
{
    for (int t = 0; t < c->ntensors; t++) {
        if (plan->tensors[t].role != TP_ROLE_OUTPUT)
            continue;
        tp_tensor *tt = &c->tensors[t];
        char path[4200], inner[600];
        snprintf(path, sizeof path, "%s/outputs/%s/%s.npy", dir, c->name, tt->name);
        tp_dtype dt;
        int rank;
        int64_t shape[4];
        void *data;
        if (tp_npy_read(path, &dt, &rank, shape, &data, inner, sizeof inner) != 0) {
            snprintf(err, errlen, "%s", inner);
            return -1;
        }
        int same = dt == tt->dtype && rank == tt->rank;
        for (int d = 0; same && d < rank; d++)
            same = shape[d] == tt->shape[d];
        if (!same) {
            free(data);
            snprintf(err, errlen, "%s: dtype or shape differs from the plan's tensor %s", path, tt->name);
            return -1;
        }
        free(tt->data);
        tt->data = data;
    }
    return 0;
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

tp_case *tp_replay_load_case(const char *dir, const tp_plan *plan, const char *backend, const json_t *rec,
                             json_t **from, char *err, size_t errlen)
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
    tp_case *c = tp_case_build(plan, idx, backend, err, errlen);
    if (!c)
        return NULL;
    if (load_inputs(dir, plan, rec, c, &f, err, errlen) != 0 || load_outputs(dir, plan, c, err, errlen) != 0) {
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

static void note_first(tp_replay_opts *opts, const char *dir, size_t index, const char *what, const char *name)
{
    if (opts && !opts->first[0])
        snprintf(opts->first, sizeof opts->first, "%s/results.json: first disagreement at .cases[%zu]%s (case %s)",
                 dir, index, what, name ? name : "(unnamed)");
}

static int replay_case(const char *dir, const tp_plan *plan, const char *backend, const json_t *rec, int quiet,
                       size_t index, tp_replay_opts *opts)
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
    tp_case *c = tp_case_build(plan, idx, backend, err, sizeof err);
    if (strcmp(verdict, "refused") == 0 || strcmp(verdict, "error") == 0) {
        const char *by = json_string_value(json_object_get(rec, "by"));
        const char *reason = json_string_value(json_object_get(rec, "reason"));
        int plan_refusal = by && strcmp(by, "plan") == 0;
        int same = !by || !reason ? 0 : plan_refusal ? !c && strcmp(err, reason) == 0 : 1;
        tp_case_free(c);
        printf("%s - %s/%s: recorded %s (%s)%s\n", same ? "ok" : "not ok", dir, name, verdict, reason ? reason : "",
               same ? (plan_refusal                 ? ", refusal re-derived"
                       : strcmp(by, "input") == 0 ? ", refused for its --input file, which a refused case does not keep"
                                                  : ", not re-derivable without the GPU")
                    : ", but the plan does not refuse it now");
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
    if (load_inputs(dir, plan, rec, c, &from, err, sizeof err) != 0 || load_outputs(dir, plan, c, err, sizeof err) != 0) {
        tp_case_free(c);
        json_decref(from);
        printf("not ok - %s/%s: %s\n", dir, name, err);
        note_first(opts, dir, index, ".outputs", name);
        return 1;
    }
    json_t *now = tp_check_case(plan, c, err, sizeof err);
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
    int differs = tp_json_first_difference(rec, now, path, sizeof path);
    char line[600];
    tp_case_line(line, sizeof line, now);
    if (differs) {
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

int tp_replay_dir(const char *dir, int quiet, const char *only, int *ncases, tp_replay_opts *opts)
{
    char path[4200], err[600];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    tp_plan *plan = tp_plan_load(path, err, sizeof err);
    if (!plan) {
        printf("not ok - %s\n", err);
        if (opts && !opts->first[0])
            snprintf(opts->first, sizeof opts->first, "%s", err);
        return 2;
    }
    snprintf(path, sizeof path, "%s/results.json", dir);
    json_error_t je;
    json_t *res = json_load_file(path, 0, &je);
    if (!res) {
        printf("not ok - %s:%d: %s\n", path, je.line, je.text);
        if (opts && !opts->first[0])
            snprintf(opts->first, sizeof opts->first, "%s:%d: %s", path, je.line, je.text);
        tp_plan_free(plan);
        return 2;
    }
    const char *backend = json_string_value(json_object_get(res, "backend"));
    int bad = 0;
    size_t i;
    json_t *rec;
    json_array_foreach(json_object_get(res, "cases"), i, rec)
    {
        const char *name = json_string_value(json_object_get(rec, "case"));
        if (only && (!name || strcmp(only, name) != 0))
            continue;
        bad |= replay_case(dir, plan, backend ? backend : "cuda", rec, quiet, i, opts);
        (*ncases)++;
    }
    json_decref(res);
    tp_plan_free(plan);
    return bad;
}
