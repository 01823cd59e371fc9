/* Checks tp_tally, the one verdict tally behind `tolproof summary` and the
 * bundle's summary.md/summary.tex, on a hand-written results.json: every
 * verdict counted (an unknown or missing one too, without a crash); a case
 * whose claim is both too strict and too loose counted once, as both,
 * whether one output is both or two outputs are one each; cases without
 * outputs in no claim category; the largest err/bound over passing cases
 * only; the first violation in case order. Violations more accurate than
 * the model admits ("more_accurate"): counted apart, said in the contract
 * cell and the first violation, and in the bundle's summary.md, summary.tex
 * and TAP logs; absent from every text where there are none. */
#include "tests/tap.h"
#include "cli/tp_bundle_reports.h"
#include "cli/tp_tally.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char results[] =
    "{\"cases\": ["
    " {\"case\": \"one_output_both\", \"verdict\": \"pass\", \"outputs\": {"
    "   \"C\": {\"max_err_over_bound\": 0.5, \"claim\": {\"strict_elements\": 3, \"loose_elements\": 2}}}},"
    " {\"case\": \"two_outputs_both\", \"verdict\": \"pass\", \"outputs\": {"
    "   \"x\": {\"max_err_over_bound\": 0.75, \"claim\": {\"strict_elements\": 1, \"loose_elements\": 0}},"
    "   \"y\": {\"max_err_over_bound\": 0.25, \"claim\": {\"strict_elements\": 0, \"loose_elements\": 4}}}},"
    " {\"case\": \"failing\", \"verdict\": \"fail\", \"outputs\": {"
    "   \"z\": {\"max_err_over_bound\": 3.0, \"claim\": {\"strict_elements\": 0, \"loose_elements\": 0},"
    "         \"first_violations\": [{\"index\": [1, 2], \"got\": 1.5, \"exact\": 1.0, \"allowed\": [0.875, 1.125]}]}}},"
    " {\"case\": \"refused\", \"verdict\": \"refused\", \"reason\": \"too big\"},"
    " {\"case\": \"crashed\", \"verdict\": \"error\", \"reason\": \"launch failed\"},"
    " {\"case\": \"strict_only\", \"verdict\": \"pass\", \"outputs\": {"
    "   \"C\": {\"max_err_over_bound\": 0.125, \"claim\": {\"strict_elements\": 5, \"loose_elements\": 0}}}},"
    " {\"case\": \"loose_only\", \"verdict\": \"pass\", \"outputs\": {"
    "   \"C\": {\"max_err_over_bound\": 0.125, \"claim\": {\"strict_elements\": 0, \"loose_elements\": 7}}}},"
    " {\"case\": \"no_verdict\"}"
    "]}";

/* Two failing cases, one with 5 of its 7 violations more accurate than the
 * model admits (admitted under intermediate = fp32), one with none. */
static const char results_more[] =
    "{\"contract\": \"softmax_fwd\", \"device\": {\"name\": \"GPU\", \"arch\": \"sm_90\"}, \"cases\": ["
    " {\"case\": \"cr\", \"seed\": 1, \"dims\": {}, \"verdict\": \"fail\", \"outputs\": {"
    "   \"y\": {\"elements\": 100, \"violations\": 7, \"more_accurate\": 5, \"max_err_over_bound\": 2.0,"
    "         \"admitted_by\": [{\"key\": \"intermediate\", \"value\": \"fp32\", \"elements\": 5}],"
    "         \"claim\": {\"strict_elements\": 0, \"loose_elements\": 0},"
    "         \"first_violations\": [{\"index\": [0, 3], \"got\": 0, \"exact\": 2.95e-08,"
    "                                \"allowed\": [5.96e-08, 5.96e-08], \"more_accurate\": true}]}}},"
    " {\"case\": \"off\", \"seed\": 2, \"dims\": {}, \"verdict\": \"fail\", \"outputs\": {"
    "   \"y\": {\"elements\": 100, \"violations\": 1, \"max_err_over_bound\": 9.0,"
    "         \"claim\": {\"strict_elements\": 0, \"loose_elements\": 0}}}}"
    "]}";

/* The bundle file at path, NUL-terminated in its buffer, or "". */
static const char *bfile(const tp_bfiles *fs, const char *path)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->v[i].path, path) == 0)
            return fs->v[i].data;
    return "";
}

static void test_more_accurate(void)
{
    json_t *res = json_loads(results_more, 0, NULL);
    tp_tally t;
    tp_tally_results(res, &t);
    tap_ok(t.fail == 2 && t.more_accurate == 5 && t.more_accurate_cases == 1,
           "more-accurate violations counted apart: %lld elements in %d case", t.more_accurate, t.more_accurate_cases);
    char contract[200];
    tp_tally_contract(&t, contract, sizeof contract);
    if (!tap_ok(strcmp(contract, "**violated** (5 elements in 1 case more accurate than the model admits)") == 0,
                "the contract cell says so"))
        tap_diag("got \"%s\"", contract);
    const char *want = "cr/y[0,3]: got 0, exact 2.95e-08, admitted [5.96e-08, 5.96e-08] (more accurate than the model admits)";
    if (!tap_ok(strcmp(t.first_violation, want) == 0, "so does the first violation"))
        tap_diag("got \"%s\"", t.first_violation);
    /* the bundle's reports (open_memstream ends each file's data with a NUL) */
    json_t *runs = json_pack("[{s:s,s:O}]", "run", "softmax_fwd", "results", res);
    tp_bfiles fs = {0};
    tp_bundle_reports(&fs, runs, json_array());
    const char *md = bfile(&fs, "summary.md"), *tex = bfile(&fs, "summary.tex"), *tap = bfile(&fs, "results.tap");
    tap_ok(strstr(md, "| **violated** (5 elements in 1 case more accurate than the model admits) |") &&
               strstr(md, "| **fail** | 7 (5 more accurate) | 100 |") && strstr(md, "| **fail** | 1 | 100 |"),
           "summary.md: in the run's contract cell and the case's violations cell, only where there are some");
    tap_ok(strstr(tex, " & 2 (5 more accurate) & ") != NULL, "summary.tex: in the Fail cell");
    tap_ok(strstr(tap, "7 of 100 elements outside the bound (5 more accurate than the declared model admits; "
                       "--model intermediate=fp32 would admit them)") != NULL &&
               strstr(tap, "1 of 100 elements outside the bound, max") != NULL,
           "results.tap: in the case's line, with the model that would admit them");
    tp_bfiles_free(&fs);
    json_decref(runs);
    json_decref(res);
}

int main(void)
{
    test_more_accurate();
    json_error_t je;
    json_t *res = json_loads(results, 0, &je);
    if (!tap_ok(res != NULL, "the test's results.json parses")) {
        tap_diag("line %d: %s", je.line, je.text);
        return tap_done();
    }
    tp_tally t;
    tp_tally_results(res, &t);
    tap_ok(t.cases == 8, "every case counted (%d)", t.cases);
    tap_ok(t.pass == 4 && t.fail == 1 && t.refused == 1 && t.error == 1 && t.other == 1,
           "by verdict: pass %d, fail %d, refused %d, error %d, other %d", t.pass, t.fail, t.refused, t.error,
           t.other);
    tap_ok(tp_tally_unjudged(&t) == 3, "refused, error and a missing verdict are the unjudged cases (%d)",
           tp_tally_unjudged(&t));
    tap_ok(t.both == 2, "a case too strict and too loose counts as both, through one output or two (%d)", t.both);
    tap_ok(t.strict == 1 && t.loose == 1 && t.implied == 1,
           "and not as too strict or too loose: implied %d, too strict %d, too loose %d", t.implied, t.strict,
           t.loose);
    tap_ok(t.implied + t.strict + t.loose + t.both == 5, "each case with outputs is in exactly one claim category");
    tap_ok(t.max_ratio_passing == 0.75, "max err/bound over passing cases only (%g)", t.max_ratio_passing);
    char contract[200];
    tp_tally_contract(&t, contract, sizeof contract);
    tap_ok(t.more_accurate == 0 && strcmp(contract, "**violated**") == 0,
           "no more-accurate violations: the contract cell is as it was (%s)", contract);
    const char *want = "failing/z[1,2]: got 1.5, exact 1, admitted [0.875, 1.125]";
    if (!tap_ok(strcmp(t.first_violation, want) == 0, "the first violation names case, output and index"))
        tap_diag("got \"%s\"", t.first_violation);

    json_t *cases = json_object_get(res, "cases");
    tap_ok(tp_case_claim(json_array_get(cases, 0)) == TP_CLAIM_BOTH &&
               tp_case_claim(json_array_get(cases, 1)) == TP_CLAIM_BOTH &&
               tp_case_claim(json_array_get(cases, 3)) == TP_CLAIM_NONE,
           "tp_case_claim: both for either kind of case, none without outputs");
    tap_ok(strcmp(tp_claim_word(TP_CLAIM_BOTH), "too strict and too loose") == 0 &&
               strcmp(tp_claim_word(TP_CLAIM_NONE), "-") == 0 &&
               strcmp(tp_claim_word(TP_CLAIM_IMPLIED), "implied") == 0,
           "claim words are results.json's");

    tp_tally empty;
    tp_tally_results(json_object_get(res, "missing"), &empty);
    tap_ok(empty.cases == 0 && empty.first_violation[0] == 0, "no results: an empty tally, no crash");
    json_decref(res);
    return tap_done();
}
