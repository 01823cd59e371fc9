#define _POSIX_C_SOURCE 200809L
#include "cli/tp_proofs.h"

#include "cli/tp_files.h"
#include "harness/tp_report.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_goal(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "goal")),
                  json_string_value(json_object_get(*(json_t *const *)b, "goal")));
}

/* Each goal's prover and status from a Frama-C log, without the times
 * (they live in timing.json) and without "(cached)", which says where the
 * answer came from, not what it was. Sorted by goal: with -wp-par the
 * log's order is not stable. */
static json_t *goal_results(const char *log)
{
    size_t len;
    char *text = tp_read_all(log, &len);
    if (!text)
        return NULL;
    json_t **v = NULL;
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "[wp] [", 6) != 0)
            continue;
        char *end = strstr(line, "] Goal ");
        if (!end)
            continue;
        *end = 0;
        char *prover = line + 6, *goal = end + 7;
        char *cached = strstr(prover, " (cached)");
        if (cached)
            *cached = 0;
        char *colon = strstr(goal, " : ");
        const char *status = prover;
        if (colon) {
            *colon = 0;
            status = colon + 3;
            char *paren = strstr(colon + 3, " (");
            if (paren)
                *paren = 0;
        }
        v = realloc(v, (n + 1) * sizeof *v);
        v[n++] = json_pack("{s:s,s:s,s:s}", "goal", goal, "prover", prover, "status", status);
    }
    free(text);
    if (n)
        qsort(v, n, sizeof *v, by_goal);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, v[i]);
    free(v);
    return a;
}

/* ORACLE.json files; build/prove/summary.json (the table of all proofs) is not a report. */
static int json_name(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 5 && strcmp(e->d_name + n - 5, ".json") == 0 && strcmp(e->d_name, "summary.json") != 0;
}

int tp_proofs_import(const char *from, const char *dir, json_t *timing, char *err, size_t errlen)
{
    struct dirent **ents;
    int n = scandir(from, &ents, json_name, tp_by_name);
    if (n < 0)
        return 0; /* no proofs run yet: the bundle says so by having none */
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4200], log[4200], to[4200];
        snprintf(path, sizeof path, "%s/%s", from, ents[i]->d_name);
        json_error_t je;
        json_t *p = rc ? NULL : json_load_file(path, 0, &je);
        if (!rc && (!p || !json_is_string(json_object_get(p, "oracle")))) {
            snprintf(err, errlen, "%s: not a proof report (%s)", path, p ? "no \"oracle\"" : je.text);
            rc = -1;
        }
        if (p && !rc) {
            const char *oracle = json_string_value(json_object_get(p, "oracle"));
            json_t *secs = json_object_get(p, "seconds");
            if (secs)
                json_object_set_new(timing, oracle, json_pack("{s:O}", "seconds", secs));
            json_object_del(p, "seconds");
            snprintf(log, sizeof log, "%s/%.*s.log", from, (int)strlen(ents[i]->d_name) - 5, ents[i]->d_name);
            json_t *goals = goal_results(log);
            if (goals)
                json_object_set_new(p, "goal_results", goals);
            snprintf(to, sizeof to, "%s/proofs", dir);
            int made = tp_mkdirs(to);
            snprintf(to, sizeof to, "%s/proofs/%s", dir, ents[i]->d_name);
            if (made != 0 || tp_write_json(to, p) != 0) {
                snprintf(err, errlen, "%s: cannot write", to);
                rc = -1;
            }
        }
        json_decref(p);
        free(ents[i]);
    }
    free(ents);
    return rc;
}

json_t *tp_proofs_load(const char *root, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/proofs", root);
    json_t *all = json_array();
    struct dirent **ents;
    int n = scandir(dir, &ents, json_name, tp_by_name);
    for (int i = 0; i < n; i++) {
        char path[4200];
        json_error_t je;
        int fits = tp_path_of(path, sizeof path, "%s/%s", dir, ents[i]->d_name) == 0;
        if (all && !fits) {
            snprintf(err, errlen, "proofs/%s: the path is longer than %zu bytes", ents[i]->d_name, sizeof path - 1);
            json_decref(all);
            all = NULL;
        }
        json_t *p = all ? json_load_file(path, JSON_REJECT_DUPLICATES, &je) : NULL;
        if (all && !p) {
            snprintf(err, errlen, "proofs/%s:%d: %s", ents[i]->d_name, je.line, je.text);
            json_decref(all);
            all = NULL;
        }
        if (p)
            json_array_append_new(all, p);
        free(ents[i]);
    }
    if (n > 0)
        free(ents);
    return all;
}
