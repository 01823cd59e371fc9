/* The CI reports of `tolproof replay` (see tp_ci_runs.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "cli/tp_ci_runs.h"

#include "cli/tp_expect_dir.h"
#include "harness/tp_ghfmt.h"
#include "harness/tp_junit.h"

#include <stdlib.h>
#include <string.h>

void tp_ci_runs_add(tp_ci_runs *ci, const char *dir, const char *expect_from, const char *only, int replay_status,
                    const char *first)
{
    if (ci->n == ci->cap) {
        ci->cap = ci->cap ? 2 * ci->cap : 8;
        ci->v = realloc(ci->v, (size_t)ci->cap * sizeof *ci->v);
    }
    tp_ci_suite *s = &ci->v[ci->n++];
    memset(s, 0, sizeof *s);
    char path[4200], err[1200] = "";
    snprintf(path, sizeof path, "%s/results.json", dir);
    json_error_t je;
    json_t *res = json_load_file(path, 0, &je);
    s->file = strdup(path);
    snprintf(path, sizeof path, "%s/plan.json", dir);
    tp_plan *plan = res ? tp_plan_load(path, err, sizeof err) : NULL;
    s->plan = plan;
    s->fallback = plan ? tp_expect_fallback(expect_from, plan, NULL, NULL) : NULL;
    const char *name = plan && plan->variant.name ? plan->variant.name : json_string_value(json_object_get(res, "contract"));
    s->name = strdup(name ? name : dir);
    s->results = res ? res : json_pack("{s:[]}", "cases");
    s->only = only;
    s->problem_title = "replay";
    if (replay_status) {
        /* "DIR/results.json: first disagreement ..." or why DIR cannot be read */
        char why[4800];
        if (replay_status == 2 || !first || !first[0])
            snprintf(why, sizeof why, "%s: %s", dir,
                     replay_status == 2 ? "the run directory cannot be read (tolproof replay says why)"
                                        : "does not re-derive");
        else
            snprintf(why, sizeof why, "does not re-derive: %s", first);
        s->problem = strdup(why);
    }
}

int tp_ci_runs_junit(const tp_ci_runs *ci, const char *path) { return tp_junit_write_file(path, ci->v, ci->n); }

void tp_ci_runs_github(const tp_ci_runs *ci, FILE *f) { tp_ghfmt_write(f, ci->v, ci->n); }

void tp_ci_runs_free(tp_ci_runs *ci)
{
    for (int i = 0; i < ci->n; i++) {
        tp_ci_suite *s = &ci->v[i];
        json_decref((json_t *)s->results);
        tp_plan_free((tp_plan *)s->plan);
        tp_plan_free((tp_plan *)s->fallback);
        free((char *)s->name);
        free((char *)s->file);
        free((char *)s->problem);
    }
    free(ci->v);
    memset(ci, 0, sizeof *ci);
}
