/* The verdict tally of one run's results.json: what `tolproof summary`
 * prints as one row and the bundle's summary.md and summary.tex print per
 * run, counted by this one function so that the two always agree.
 *
 * Claim categories count cases, once each: a case is "too strict" when some
 * output has an element the claimed tolerance rejects although the model
 * admits it, "too loose" when some output has an element the tolerance
 * accepts although the model rules it out, "both" when it is both (possibly
 * through two different outputs), and "implied" when neither. Cases
 * without outputs (refused, error) have no claim category. */
#ifndef TP_TALLY_H
#define TP_TALLY_H
#include <jansson.h>
#include <stddef.h>

#include "harness/tp_report.h" /* tp_claim_class, tp_case_claim: the harness classifies, the tally counts */

typedef struct {
    int cases;
    /* by verdict; `other` is a verdict that is none of the four (or none
     * at all), which a harness never writes */
    int pass, fail, refused, error, other;
    /* cases with at least one output, by claim category */
    int implied, strict, loose, both;
    /* refusals by the plan, which replay re-derives; errors by "fault"
     * or "timeout" (a kernel that faulted or hung: the GPU's word, which
     * replay accepts as such); cases that are none of these nor pass or
     * fail (other errors, refusals by the harness or for an --input file,
     * a missing or unknown verdict): no replay can stand behind them */
    int plan_refused, gpu_errors, unverified;
    /* cases whose inputs came from .npy files (--input: "inputs_from"),
     * not from the seeds */
    int from_files;
    /* 1 when the run was of some cases only ("selected_cases") */
    int selected;
    /* the largest max_err_over_bound of an output of a passing case;
     * meaningful only when pass > 0 */
    double max_ratio_passing;
    /* "CASE/OUTPUT[i,j]: got Y, exact E, admitted [LO, HI]" for the first
     * recorded violation (cases in order, outputs in file order); "" when
     * none */
    char first_violation[256];
    /* violations more accurate than the declared model admits
     * (results.json "more_accurate"), elements over all cases, and the
     * cases that have some */
    long long more_accurate;
    int more_accurate_cases;
} tp_tally;

/* Tallies the "cases" of a results.json object. Missing or mistyped fields
 * count as absent; never fails. */
void tp_tally_results(const json_t *results, tp_tally *t);

/* Cases without a pass or fail verdict: what the tables call "refused"
 * (refused before launch, or an error). */
int tp_tally_unjudged(const tp_tally *t);

/* The "contract" cell of a run: "**violated**" when a case fails;
 * "**not met**: N case(s) in error ..." when a kernel faulted or hung on
 * a case (never "met": that case has no verdict); "**not shown**: WHY"
 * when no case was judged or a case has no verdict replay can stand
 * behind (an error by the harness, say): an all-error run is not "met";
 * else "met", followed by what it rests on when that is less than the
 * seeds of every case of the contract ("on the selected cases", "N
 * case(s) on supplied inputs"); and, where some violations are more accurate
 * than the model admits, " (N elements in C cases more accurate than the
 * model admits)" after it. */
void tp_tally_contract(const tp_tally *t, char *out, size_t len);

#endif
