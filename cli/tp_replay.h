/* Re-deriving a recorded run directory (plan.json, results.json,
 * outputs/CASE/TENSOR.npy) without a GPU: shared by `tolproof replay`, which
 * checks a run, and `tolproof bundle` / `tolproof audit`, which need the
 * same cases rebuilt from the same bits. */
#ifndef TP_REPLAY_H
#define TP_REPLAY_H
#include "core/tp_plan.h"

#include <jansson.h>

typedef struct {
    /* Called for every case that re-derives (inputs and outputs loaded),
     * after the comparison; may be NULL. */
    void (*on_case)(void *ctx, const char *dir, const tp_plan *plan, const json_t *rec, const tp_case *c);
    void *ctx;
    /* Set to "DIR/results.json: first disagreement at PATH" by the first
     * case that does not re-derive, when still empty. */
    char first[4400]; /* holds a path of up to 4200 bytes and the JSON error */
    /* Re-generates the Evidence and Non-claims of results.json (the one
     * documented migration of recorded results, recorded/MIGRATIONS.md):
     * each case whose recomputation agrees with the record in every other
     * field gets the recomputed lists; the file is rewritten only when
     * every case of the run agrees so, and left alone otherwise. */
    int rewrite_statements;
    /* Incremented for every record accepted on the GPU's word: an error
     * by "fault" or "timeout" (cli/tp_record_checks.h), which has no
     * outputs to re-derive. */
    int gpu_errors;
} tp_replay_opts;

/* Replays every case of results.json (or only `only`), printing one TAP
 * line per case. 0 every case re-derives (or is an error by fault or
 * timeout, counted in opts->gpu_errors), 1 a disagreement, 2 the
 * directory cannot be read. opts may be NULL. */
int tp_replay_dir(const char *dir, int quiet, const char *only, int *ncases, tp_replay_opts *opts);

/* Rebuilds case `rec` of a run as the harness had it after the launch:
 * inputs from the seed (or the recorded input copies), outputs from the
 * .npy files. NULL with err set when that is impossible; refused and
 * error cases have no outputs and always give NULL with err "". When
 * `from` is not NULL it receives the checksums of the input copies (or
 * NULL). */
tp_case *tp_replay_load_case(const char *dir, const tp_plan *plan, const char *backend, const json_t *rec,
                             json_t **from, char *err, size_t errlen);

/* The first path at which two JSON values differ (appended to path);
 * 0 when they are equal. */
int tp_json_first_difference(const json_t *a, const json_t *b, char *path, size_t len);

/* The first difference between the statement lists rec[key] and now[key]
 * (key "evidence" or "non_claims"), statement by statement: the path
 * appended names the statement's index and id. 0 when they are equal. */
int tp_statements_first_difference(const json_t *rec, const json_t *now, const char *key, char *path, size_t len);
#endif
