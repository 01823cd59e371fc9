/* Expected outcomes of cases (see tp_expect.h). */
#include "harness/tp_expect.h"

#include <string.h>

const char *tp_outcome_of_verdict(const char *verdict)
{
    static const char *const words[][2] = {
        {"pass", "pass"}, {"fail", "violated"}, {"refused", "refused"}, {"error", "error"}};
    for (size_t i = 0; verdict && i < sizeof words / sizeof words[0]; i++)
        if (strcmp(verdict, words[i][0]) == 0)
            return words[i][1];
    return "no verdict";
}

/* The stated expectation of case `name` in plan, or UNSTATED. */
static tp_expected stated(const tp_plan *plan, const char *name)
{
    int i = plan && name ? tp_plan_case_index(plan, name) : -1;
    return i < 0 ? TP_EXPECT_UNSTATED : plan->cases[i].expect;
}

tp_expected tp_expect_of(const tp_plan *plan, const tp_plan *fallback, const char *name)
{
    tp_expected e = stated(plan, name);
    if (e == TP_EXPECT_UNSTATED)
        e = stated(fallback, name);
    return e == TP_EXPECT_UNSTATED ? TP_EXPECT_PASS : e;
}

/* A variant whose kernel is meant to be caught (plan.json "variant":
 * {"expect": "wrong"}). */
static int wrong_variant(const tp_plan *plan)
{
    return plan && plan->variant.expect && strcmp(plan->variant.expect, "wrong") == 0;
}

int tp_expect_met(const tp_plan *plan, const char *want, const char *got)
{
    if (strcmp(want, got) == 0)
        return 1;
    /* a wrong kernel is caught by a violation or by an error (a crash
     * shows under any test), and may pass some of the cases a correct
     * one passes */
    return wrong_variant(plan) && strcmp(want, "pass") == 0 &&
           (strcmp(got, "pass") == 0 || strcmp(got, "violated") == 0 || strcmp(got, "error") == 0);
}

int tp_expect_variant_uncaught(const tp_plan *plan, const json_t *cases)
{
    if (!wrong_variant(plan))
        return 0;
    int judged = 0, caught = 0;
    size_t i;
    json_t *rec;
    json_array_foreach((json_t *)cases, i, rec)
    {
        const char *got = tp_outcome_of_verdict(json_string_value(json_object_get(rec, "verdict")));
        int catch = strcmp(got, "violated") == 0 || strcmp(got, "error") == 0;
        judged += catch || strcmp(got, "pass") == 0;
        caught += catch;
    }
    return judged && !caught;
}

void tp_expect_compare(const tp_plan *plan, const tp_plan *fallback, const json_t *cases, const char *only,
                       FILE *f, const char *lead, const char *where, tp_expect_tally *t)
{
    const int wrong = wrong_variant(plan);
    const char *sep = where && where[0] ? "/" : "";
    where = where ? where : "";
    lead = lead ? lead : "";
    int judged = 0, caught = 0;
    size_t i;
    json_t *rec;
    json_array_foreach((json_t *)cases, i, rec)
    {
        const char *name = json_string_value(json_object_get(rec, "case"));
        if (only && (!name || strcmp(only, name) != 0))
            continue;
        const char *want = tp_expected_word(tp_expect_of(plan, fallback, name));
        const char *got = tp_outcome_of_verdict(json_string_value(json_object_get(rec, "verdict")));
        int pass_or_violated = strcmp(got, "pass") == 0 || strcmp(got, "violated") == 0;
        int catch = strcmp(got, "violated") == 0 || strcmp(got, "error") == 0;
        judged += pass_or_violated || catch;
        caught += catch;
        t->cases++;
        if (tp_expect_met(plan, want, got)) {
            t->expected_refused += strcmp(got, "refused") == 0;
            t->expected_violated += strcmp(got, "violated") == 0;
            continue;
        }
        t->unexpected++;
        t->unexpected_hard += !pass_or_violated;
        if (f)
            fprintf(f, "%s%s%s%s: expected %s, got %s\n", lead, where, sep, name ? name : "(unnamed case)", want,
                    got);
    }
    if (wrong && judged && !caught) {
        t->unexpected++;
        if (f)
            fprintf(f, "%s%s: expected a violation on some case (a wrong variant), got none in %d judged case(s)\n",
                    lead, where[0] ? where : "this run", judged);
    }
}

int tp_expect_exit_status(const tp_expect_tally *t) { return t->unexpected_hard ? 2 : t->unexpected ? 1 : 0; }

void tp_expect_words(const tp_expect_tally *t, char *out, size_t len)
{
    if (t->unexpected)
        snprintf(out, len, "%d unexpected", t->unexpected);
    else if (t->expected_violated && t->expected_refused)
        snprintf(out, len, "as expected (%d violated, %d refused)", t->expected_violated, t->expected_refused);
    else if (t->expected_violated || t->expected_refused)
        snprintf(out, len, "as expected (%d %s)", t->expected_violated ? t->expected_violated : t->expected_refused,
                 t->expected_violated ? "violated" : "refused");
    else
        snprintf(out, len, "as expected");
}

int tp_expect_run_status(const tp_plan *plan, const json_t *cases, FILE *f)
{
    tp_expect_tally t = {0};
    tp_expect_compare(plan, NULL, cases, NULL, f, "unexpected outcome: ", plan->contract, &t);
    char words[96];
    tp_expect_words(&t, words, sizeof words);
    fprintf(f, "%s: %d case(s), %s%s\n", plan->contract, t.cases, words,
            t.unexpected ? " (named above; expectations: expect = ... in the contract's cases)" : "");
    return tp_expect_exit_status(&t);
}
