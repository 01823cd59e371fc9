#define _POSIX_C_SOURCE 200809L
#include "cli/tp_record_checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    size_t index; /* in results.json's cases, or in the plan */
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

static int problem(const char *dir, char *first, size_t firstlen, const char *fmt, ...)
{
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    printf("not ok - %s/results.json: %s\n", dir, what);
    if (first && !first[0])
        snprintf(first, firstlen, "%s/results.json: %s", dir, what);
    return 1;
}

/* Sorted names (sorting makes a results.json of a million records cost
 * n log n, not n squared); NULL names are left out. */
static named *sorted(const char *const *names, size_t n, size_t *out)
{
    named *v = malloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < n; i++)
        if (names[i])
            v[k++] = (named){names[i], i};
    if (v)
        qsort(v, k, sizeof *v, by_name);
    *out = k;
    return v;
}

static int in(const named *v, size_t n, const char *name)
{
    named key = {name, 0};
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v[mid].name, key.name);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

int tp_check_coverage(const char *dir, const char *const *plan_cases, size_t nplan, const json_t *results,
                      char *first, size_t firstlen)
{
    const json_t *cases = json_object_get(results, "cases");
    if (!json_is_object(results) || !json_is_array(cases)) {
        problem(dir, first, firstlen, "not a run's results (an object with a \"cases\" array)");
        return 2;
    }
    size_t nrec = json_array_size(cases), np = 0, ns = 0, nr = 0;
    const json_t *sel = json_object_get(results, "selected_cases");
    const char **want = NULL, **rec = malloc((nrec ? nrec : 1) * sizeof *rec);
    size_t nwant = nplan;
    named *plan = sorted(plan_cases, nplan, &np), *selv = NULL, *recs = NULL;
    int bad = 0;
    if (!rec || !plan) {
        bad = 2;
        problem(dir, first, firstlen, "out of memory checking its cases");
        goto done;
    }
    if (sel) {
        /* a harness run with --case wrote it: distinct plan cases, at least one */
        nwant = json_array_size(sel);
        want = malloc((nwant ? nwant : 1) * sizeof *want);
        int ok = json_is_array(sel) && nwant > 0 && want;
        for (size_t i = 0; ok && i < nwant; i++)
            ok = (want[i] = json_string_value(json_array_get(sel, i))) && in(plan, np, want[i]);
        selv = ok ? sorted(want, nwant, &ns) : NULL;
        for (size_t i = 1; selv && i < ns; i++)
            ok &= strcmp(selv[i - 1].name, selv[i].name) != 0;
        if (!ok) {
            bad = 2;
            problem(dir, first, firstlen, "\"selected_cases\" is not a list of distinct case names of plan.json");
            goto done;
        }
    } else {
        selv = sorted(plan_cases, nplan, &ns);
    }
    if (ns == 0) {
        bad = problem(dir, first, firstlen, "the plan has no cases: a run of no cases shows nothing");
        goto done;
    }
    for (size_t i = 0; i < nrec; i++)
        rec[i] = json_string_value(json_object_get(json_array_get(cases, i), "case"));
    recs = sorted(rec, nrec, &nr);
    for (size_t i = 0; recs && i < nr; i++) {
        if (i > 0 && strcmp(recs[i - 1].name, recs[i].name) == 0)
            bad = problem(dir, first, firstlen, "case %s is recorded twice (.cases[%zu] and .cases[%zu])", recs[i].name,
                          recs[i - 1].index, recs[i].index);
        else if (in(plan, np, recs[i].name) && !in(selv, ns, recs[i].name))
            bad = problem(dir, first, firstlen, "case %s is recorded but is not among \"selected_cases\"",
                          recs[i].name);
    }
    for (size_t i = 0; recs && i < ns; i++)
        if (!in(recs, nr, selv[i].name))
            bad = problem(dir, first, firstlen, "case %s of the %s has no record: every case run must have its result",
                          selv[i].name, sel ? "selected cases" : "plan");
done:
    free(want);
    free(rec);
    free(plan);
    free(selv);
    free(recs);
    return bad;
}

int tp_check_coverage_plan(const char *dir, const tp_plan *plan, const json_t *results, char *first, size_t firstlen)
{
    const char **names = malloc((plan->ncases > 0 ? (size_t)plan->ncases : 1) * sizeof *names);
    if (!names)
        return problem(dir, first, firstlen, "out of memory checking its cases") + 1;
    for (int i = 0; i < plan->ncases; i++)
        names[i] = plan->cases[i].name;
    int rc = tp_check_coverage(dir, names, (size_t)plan->ncases, results, first, firstlen);
    free(names);
    return rc;
}

/* What a harness writes for a case without outputs (harness/tp_run.c):
 * refused by plan, input or harness; error by harness, checker or input,
 * and, from the device work, by device (a CUDA/HIP call failed), fault
 * (the context was lost, or the process died) or timeout. */
static int written_by_harness(const char *verdict, const char *by)
{
    static const char *const refused[] = {"plan", "input", "harness", NULL},
                             *const error[] = {"harness", "checker", "input", "device", "fault", "timeout", NULL};
    for (const char *const *ok = strcmp(verdict, "refused") == 0 ? refused : error; *ok; ok++)
        if (strcmp(by, *ok) == 0)
            return 1;
    return 0;
}

int tp_record_is_gpu_error(const json_t *record)
{
    const char *verdict = json_string_value(json_object_get(record, "verdict"));
    const char *by = json_string_value(json_object_get(record, "by"));
    return verdict && by && strcmp(verdict, "error") == 0 && (strcmp(by, "device") == 0 || strcmp(by, "fault") == 0 || strcmp(by, "timeout") == 0);
}

tp_unjudged tp_check_unjudged(const json_t *record, char *why, size_t whylen)
{
    const char *verdict = json_string_value(json_object_get(record, "verdict"));
    const char *by = json_string_value(json_object_get(record, "by"));
    const char *reason = json_string_value(json_object_get(record, "reason"));
    const char *article = strcmp(verdict, "error") == 0 ? "an" : "a";
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)record, key, v)
    {
        if (strcmp(key, "case") != 0 && strcmp(key, "verdict") != 0 && strcmp(key, "by") != 0 &&
            strcmp(key, "reason") != 0) {
            snprintf(why, whylen, "%s %s record with key \"%.100s\", which no harness writes there", article, verdict,
                     key);
            return TP_UNJUDGED_REFUSED;
        }
    }
    if (!by || !written_by_harness(verdict, by) || !reason || !reason[0]) {
        snprintf(why, whylen, "%s %s record with %s%.100s%s and %s, which no harness writes (a reason, and \"by\" %s)",
                 article, verdict, by ? "\"by\": \"" : "no \"by\"", by ? by : "", by ? "\"" : "",
                 reason && reason[0] ? "a reason" : "no reason",
                 strcmp(verdict, "refused") == 0 ? "plan, input or harness"
                                                 : "harness, checker, input, device, fault or timeout");
        return TP_UNJUDGED_REFUSED;
    }
    if (strcmp(verdict, "refused") == 0 && strcmp(by, "plan") == 0)
        return TP_UNJUDGED_PLAN_REFUSAL;
    /* device work that failed, faulted or hung has no outputs to re-derive: the
     * record is the GPU's word, accepted as that and never as "met" */
    if (tp_record_is_gpu_error(record))
        return TP_UNJUDGED_GPU_WORD;
    snprintf(why, whylen, "recorded %s by %s (%.300s): %s, so replay does not accept it", verdict, by, reason,
             strcmp(by, "input") == 0     ? "the --input file was not kept and nothing in the run re-derives it"
             : strcmp(by, "checker") == 0 ? "replay does not re-derive a failure of the checker"
             : strcmp(verdict, "error") == 0
                 ? "it is the harness's word (only an error by device, fault or timeout is taken as the GPU's word) and "
                   "nothing in the run re-derives it"
                 : "it is the harness's word and nothing in the run re-derives it");
    return TP_UNJUDGED_REFUSED;
}
