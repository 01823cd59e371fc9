/* The CI reports of `tolproof replay` (--junit FILE, --format github):
 * one tp_ci_suite per run directory, read back from its results.json and
 * plan.json with the expectations `replay` compares against (its own
 * plan, else --expect-from), plus the replay's own verdict on the run. */
#ifndef TP_CI_RUNS_H
#define TP_CI_RUNS_H
#include "harness/tp_ci.h"

#include <stdio.h>

typedef struct {
    tp_ci_suite *v;
    int n, cap;
} tp_ci_runs;

/* Adds run directory dir: replay_status is tp_replay_dir's (0, 1 a
 * disagreement, first its text; 2 the run cannot be read), only its
 * --case. A run that does not re-derive gets a failing testcase "replay". */
void tp_ci_runs_add(tp_ci_runs *ci, const char *dir, const char *expect_from, const char *only, int replay_status,
                    const char *first);
int tp_ci_runs_junit(const tp_ci_runs *ci, const char *path);
void tp_ci_runs_github(const tp_ci_runs *ci, FILE *f);
void tp_ci_runs_free(tp_ci_runs *ci);
#endif
