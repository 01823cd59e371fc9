/* The testcases of runs for CI reports: what a JUnit file (tp_junit.c)
 * and GitHub workflow annotations (tp_ghfmt.c) say, computed once from the
 * same results.json objects the JSON and TAP writers print, so that the
 * formats cannot disagree with each other or with the exit status.
 *
 * One testcase per output of a case with a verdict ("CASE/OUTPUT"), one
 * per case without outputs ("CASE": refused or in error), and one per
 * case of the plan left out of a run of selected cases. A testcase passes
 * when its case has its expected outcome (harness/tp_expect.h): an
 * expected refusal or violation is a passing testcase whose note says so.
 * A violation or a pass against the expectation is a failure, a refusal
 * or an error against it is an error (the exit status 2 of a harness), a
 * case not run is skipped. */
#ifndef TP_CI_H
#define TP_CI_H
#include "core/tp_plan.h"

#include <jansson.h>

/* One run (one contract's results) as one test suite. */
typedef struct {
    const char *name;           /* the suite and classname: the contract, or a bundle's run name */
    const json_t *results;      /* a results.json object ("contract", "cases", maybe "selected_cases") */
    const tp_plan *plan;        /* expectations and the cases not selected; NULL: every case expects a pass */
    const tp_plan *fallback;    /* expectations of runs recorded before plans had them (--expect-from), or NULL */
    const char *file;           /* the file annotations point at (results.json), or NULL */
    const char *only;           /* only this case (replay --case), or NULL */
    const char *problem;        /* a failure of the whole run (a replay disagreement), or NULL */
    const char *problem_title;  /* its testcase name ("replay") */
} tp_ci_suite;

typedef enum { TP_CI_PASS, TP_CI_FAILURE, TP_CI_ERROR, TP_CI_SKIPPED } tp_ci_status;

/* The testcases of a suite, in case order, each an object
 *   {"name": "CASE/OUTPUT", "status": tp_ci_status, "type": "violated" ...,
 *    "message": one line, "details": lines or "", "note": expectation or "",
 *    "file": path or absent}
 * The caller frees the array. */
json_t *tp_ci_testcases(const tp_ci_suite *s);

/* Counts of a testcase array by status (tests = all). */
typedef struct {
    int tests, failures, errors, skipped;
} tp_ci_counts;
void tp_ci_count(const json_t *testcases, tp_ci_counts *c);

/* The results object of a single checked case (`tolproof check`):
 * {"contract": contract, "cases": [case_result with "case": case_name]}
 * (case_result is copied). */
json_t *tp_ci_single_case_results(const char *contract, const char *case_name, const json_t *case_result);
#endif
