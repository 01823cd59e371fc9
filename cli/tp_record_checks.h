/* Checks of a run's results.json that come before re-deriving any case:
 * that it is a run's results at all, that every case of the plan has
 * exactly one record, and that a record without outputs (refused, error)
 * is one that replay can stand behind. Without them a results.json with
 * its failing cases deleted, duplicated, or rewritten as errors would
 * replay as "every verdict re-derived": replay re-derives what is there,
 * these checks make sure that what is there is the whole run. */
#ifndef TP_RECORD_CHECKS_H
#define TP_RECORD_CHECKS_H
#include "core/tp_plan.h"

#include <jansson.h>
#include <stddef.h>

/* Checks the records of `results` (results.json of run directory `dir`)
 * against the case names of its plan: results is an object with a
 * "cases" array; each case of the plan (or of "selected_cases", which a
 * harness run with --case writes: distinct names of the plan) has exactly
 * one record; no record names a plan case outside that selection. Records
 * naming no case of the plan are left to the per-case replay, which
 * reports them. Prints one "not ok" TAP line per problem and sets `first`
 * (when still empty) to "DIR/results.json: WHAT". 0 complete, 1 a case
 * missing, duplicated or extra, 2 not a run's results. */
int tp_check_coverage(const char *dir, const char *const *plan_cases, size_t nplan, const json_t *results,
                      char *first, size_t firstlen);

/* tp_check_coverage with the case names of a plan. */
int tp_check_coverage_plan(const char *dir, const tp_plan *plan, const json_t *results, char *first,
                           size_t firstlen);

/* What replay makes of a record without outputs (verdict "refused" or
 * "error"). */
typedef enum {
    /* a refusal by the plan: replay re-derives it */
    TP_UNJUDGED_PLAN_REFUSAL = 0,
    /* not accepted: `why` says why */
    TP_UNJUDGED_REFUSED = 1,
    /* an error by "fault" (the kernel faulted: the CUDA/HIP error text as
     * reason) or by "timeout" (the watchdog's limit as reason), as a
     * harness with fault isolation writes it: the GPU's word, which
     * nothing in the run can re-derive. Replay accepts it as such and
     * says so; summary, summary.md and the audit never call a contract
     * with such a case met. */
    TP_UNJUDGED_GPU_WORD = 2,
} tp_unjudged;

/* For a record whose verdict is "refused" or "error": a refusal by the
 * plan, an error by device, fault or timeout (the GPU's word), or refused, with
 * the reason replay does not accept it in `why`: the record is not one a
 * harness writes (keys other than case, verdict, by and reason, a "by" no
 * harness writes for that verdict, or no reason), or it is a claim that
 * nothing in the run can re-derive and that replay does not take on
 * trust (an error by the harness, the checker or for an --input file, or
 * a refusal by the harness or for an --input file). */
tp_unjudged tp_check_unjudged(const json_t *record, char *why, size_t whylen);

/* 1 when a results.json case record is an error by "device", "fault" or "timeout"
 * (tp_check_unjudged says whether it is well formed). */
int tp_record_is_gpu_error(const json_t *record);
#endif
