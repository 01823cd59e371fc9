/* Checks the expected outcomes of cases (harness/tp_expect.c), on plans
 * made in memory:
 *  - each case's outcome against its expect (stated, from the fallback
 *    plan, or a pass), the lines naming each surprise, and the exit status
 *    (0, 1 a verdict other than the expected one, 2 a refusal or error
 *    against it);
 *  - a wrong variant: its cases may pass, be violated or end in an error,
 *    and it is caught by a violation or by an error (a crash, a fault, a
 *    timeout), missed when every judged case passes;
 *  - the words a harness and `tolproof summary` print.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "tests/tap.h"
#include "harness/tp_expect.h"

#include <stdlib.h>
#include <string.h>

static char *names[3] = {"a", "b", "c"};

/* A plan of cases a, b, c with these expectations (variant: "wrong",
 * "correct" or NULL). */
static tp_plan plan_with(tp_expected a, tp_expected b, tp_expected c, const char *variant, tp_plan_case *store)
{
    tp_plan p;
    memset(&p, 0, sizeof p);
    p.contract = "k";
    tp_expected e[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        memset(&store[i], 0, sizeof store[i]);
        store[i].name = names[i];
        store[i].expect = e[i];
    }
    p.ncases = 3;
    p.cases = store;
    p.variant.expect = (char *)variant;
    return p;
}

/* Compares results verdicts (JSON array of [case, verdict]) with plan;
 * the printed lines into out. */
static tp_expect_tally compare(const tp_plan *plan, const tp_plan *fallback, const char *records, char *out,
                               size_t len)
{
    json_t *pairs = json_loads(records, 0, NULL), *cases = json_array();
    size_t i;
    json_t *pr;
    json_array_foreach(pairs, i, pr) json_array_append_new(
        cases, json_pack("{s:O,s:O}", "case", json_array_get(pr, 0), "verdict", json_array_get(pr, 1)));
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    tp_expect_tally t = {0};
    tp_expect_compare(plan, fallback, cases, NULL, f, "> ", "run", &t);
    fclose(f);
    snprintf(out, len, "%s", text ? text : "");
    free(text);
    json_decref(cases);
    json_decref(pairs);
    return t;
}

int main(void)
{
    char out[2000], words[96];
    tp_plan_case s1[3], s2[3];
    tp_plan p = plan_with(TP_EXPECT_PASS, TP_EXPECT_REFUSED, TP_EXPECT_VIOLATED, NULL, s1);
    tp_expect_tally t = compare(&p, NULL, "[[\"a\",\"pass\"],[\"b\",\"refused\"],[\"c\",\"fail\"]]", out, sizeof out);
    tp_expect_words(&t, words, sizeof words);
    tap_ok(t.cases == 3 && t.unexpected == 0 && tp_expect_exit_status(&t) == 0 && out[0] == 0 &&
               strcmp(words, "as expected (1 violated, 1 refused)") == 0,
           "every case with its expected outcome: exit 0, nothing named, %s", words);

    t = compare(&p, NULL, "[[\"a\",\"fail\"],[\"b\",\"pass\"],[\"c\",\"fail\"]]", out, sizeof out);
    tap_ok(t.unexpected == 2 && tp_expect_exit_status(&t) == 1 &&
               strcmp(out, "> run/a: expected pass, got violated\n> run/b: expected refused, got pass\n") == 0,
           "verdicts other than the expected ones: exit 1, each named");
    t = compare(&p, NULL, "[[\"a\",\"error\"],[\"b\",\"refused\"],[\"c\",\"refused\"]]", out, sizeof out);
    tap_ok(t.unexpected == 2 && t.unexpected_hard == 2 && tp_expect_exit_status(&t) == 2 &&
               strstr(out, "run/a: expected pass, got error") && strstr(out, "run/c: expected violated, got refused"),
           "an error and a refusal against the expectation: exit 2");

    /* a recorded plan (unstated) falls back on the current contract's */
    tp_plan old = plan_with(TP_EXPECT_UNSTATED, TP_EXPECT_UNSTATED, TP_EXPECT_PASS, NULL, s2);
    t = compare(&old, &p, "[[\"a\",\"pass\"],[\"b\",\"refused\"],[\"c\",\"pass\"]]", out, sizeof out);
    tap_ok(t.unexpected == 0 && tp_expect_of(&old, &p, "b") == TP_EXPECT_REFUSED &&
               tp_expect_of(&old, NULL, "b") == TP_EXPECT_PASS && tp_expect_of(&old, &p, "c") == TP_EXPECT_PASS &&
               tp_expect_of(&old, &p, "nope") == TP_EXPECT_PASS,
           "unstated expectations come from the fallback plan, a stated one wins, else a pass");

    /* wrong variants */
    tp_plan w = plan_with(TP_EXPECT_PASS, TP_EXPECT_PASS, TP_EXPECT_REFUSED, "wrong", s1);
    t = compare(&w, NULL, "[[\"a\",\"pass\"],[\"b\",\"fail\"],[\"c\",\"refused\"]]", out, sizeof out);
    tap_ok(t.unexpected == 0 && tp_expect_exit_status(&t) == 0, "a wrong variant caught by a violation: as expected");
    t = compare(&w, NULL, "[[\"a\",\"pass\"],[\"b\",\"error\"],[\"c\",\"refused\"]]", out, sizeof out);
    tap_ok(t.unexpected == 0 && tp_expect_exit_status(&t) == 0,
           "a wrong variant caught by a case in error (a crash, a fault, a timeout): as expected");
    t = compare(&w, NULL, "[[\"a\",\"pass\"],[\"b\",\"pass\"],[\"c\",\"refused\"]]", out, sizeof out);
    tap_ok(t.unexpected == 1 && tp_expect_exit_status(&t) == 1 &&
               strstr(out, "> run: expected a violation on some case (a wrong variant), got none in 2 judged case(s)"),
           "a wrong variant that every judged case passes: missed, named");
    tp_plan c = plan_with(TP_EXPECT_PASS, TP_EXPECT_PASS, TP_EXPECT_REFUSED, "correct", s1);
    t = compare(&c, NULL, "[[\"a\",\"pass\"],[\"b\",\"error\"],[\"c\",\"refused\"]]", out, sizeof out);
    tap_ok(t.unexpected == 1 && tp_expect_exit_status(&t) == 2, "a correct variant in error: exit 2");

    t = compare(&p, NULL, "[[\"a\",\"maybe\"]]", out, sizeof out);
    tap_ok(t.unexpected == 1 && strstr(out, "run/a: expected pass, got no verdict"),
           "a record without a known verdict is no outcome");
    return tap_done();
}
