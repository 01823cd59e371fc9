/* Expected outcomes of a contract's cases, and the exit status they give.
 *
 * A case of a contract may say what a kernel that meets the contract does
 * with it: `expect = "pass"` (the default), "refused" (the contract itself
 * rules the case out before any launch) or "violated" (a pilot contract
 * whose model the kernel is known not to follow). gen/contract.py writes
 * the word into every case of the plan (tp_plan_case.expect). A harness,
 * `ninja run`, `tolproof replay` and `tolproof verdicts` exit 0 when every
 * case has its expected outcome and name every case that does not, one
 * line each.
 *
 * Runs recorded before plans carried expectations have none in their
 * plan.json (TP_EXPECT_UNSTATED): the expectation of such a case comes
 * from `fallback`, the current contract's plan (the `--expect-from DIR` of
 * the commands, which reads DIR/CONTRACT.plan.json), by case name, else it
 * is a pass.
 *
 * A variant plan (kernels/variants/, plan.json "variant") whose kernel is
 * `expect: wrong` is expected to be caught: its cases expected to pass may
 * pass, be violated or end in an error (a crash, a fault, a timeout), and
 * at least one must be violated or in error. */
#ifndef TP_EXPECT_H
#define TP_EXPECT_H
#include "core/tp_plan.h"

#include <jansson.h>
#include <stdio.h>

/* The outcome word of a results.json verdict: pass -> "pass", fail ->
 * "violated", refused -> "refused", error -> "error"; "no verdict" for
 * anything else (a harness never writes that). */
const char *tp_outcome_of_verdict(const char *verdict);

/* The expected outcome of case `name`: its expect in plan when stated,
 * else in fallback (may be NULL), else a pass. */
tp_expected tp_expect_of(const tp_plan *plan, const tp_plan *fallback, const char *name);

typedef struct {
    int cases;             /* case records compared */
    int expected_refused;  /* refused as expected */
    int expected_violated; /* violated as expected (wrong variants: any violation) */
    int unexpected;        /* lines printed: cases without their expected outcome (and a wrong variant not caught) */
    int unexpected_hard;   /* of those, cases refused or in error against their expectation */
} tp_expect_tally;

/* Compares each case record of `cases` (results.json "cases": "case" and
 * "verdict"; records of other cases than `only`, when not NULL, are
 * skipped) with its expectation. For each case without its expected
 * outcome prints "LEAD WHERE/CASE: expected E, got G" and a newline to f
 * (when f is not NULL). Adds to *t (which the caller zeroes). */
void tp_expect_compare(const tp_plan *plan, const tp_plan *fallback, const json_t *cases, const char *only,
                       FILE *f, const char *lead, const char *where, tp_expect_tally *t);

/* 1 when a case of plan whose outcome is `got` (tp_outcome_of_verdict)
 * has its expected outcome `want` (tp_expected_word): the same word, or,
 * in a wrong variant, a pass, a violation or an error where a pass was
 * expected. */
int tp_expect_met(const tp_plan *plan, const char *want, const char *got);

/* 1 when plan is a wrong variant and none of its judged case records
 * (`cases`, results.json "cases") was violated or in error: the one
 * expectation that belongs to the run, not to a case. */
int tp_expect_variant_uncaught(const tp_plan *plan, const json_t *cases);

/* A harness's exit status from the tally: 0 every case has its expected
 * outcome, 2 a case refused or in error against its expectation, else 1
 * (a verdict, pass or violated, other than the expected one). */
int tp_expect_exit_status(const tp_expect_tally *t);

/* What a harness does at the end of its run (harness/tp_main.c): compares
 * the case records `cases` with the expectations of its plan, prints each
 * case without its expected outcome as "unexpected outcome:
 * CONTRACT/CASE: expected E, got G" and one closing line to f, and
 * returns tp_expect_exit_status. */
int tp_expect_run_status(const tp_plan *plan, const json_t *cases, FILE *f);

/* "as expected", "as expected (7 violated, 1 refused)", or "N unexpected":
 * what a harness and `tolproof summary` say of a run. */
void tp_expect_words(const tp_expect_tally *t, char *out, size_t len);
#endif
