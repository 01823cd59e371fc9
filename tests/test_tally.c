/* Checks tp_tally, the one verdict tally behind `tolproof summary` and the
 * bundle's summary.md/summary.tex, on a hand-written results.json: every
 * verdict counted (an unknown or missing one too, without a crash); a case
 * whose claim is both too strict and too loose counted once, as both,
 * whether one output is both or two outputs are one each; cases without
 * outputs in no claim category; the largest err/bound over passing cases
 * only; the first violation in case order. */
#include "tests/tap.h"
#include "cli/tp_tally.h"

#include <jansson.h>
#include <math.h>
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

int main(void)
{
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
