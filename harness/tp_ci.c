/* The testcases of runs for CI reports (see tp_ci.h). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "harness/tp_ci.h"

#include "harness/tp_check.h"
#include "harness/tp_expect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many first violations a failing testcase lists. */
#define TP_CI_VIOLATIONS 5

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

static void add(json_t *out, const char *name, tp_ci_status status, const char *type, const char *message,
                const char *details, const char *note, const char *file)
{
    json_t *t = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s}", "name", name, "status", (int)status, "type", type, "message",
                          message, "details", details ? details : "", "note", note ? note : "");
    if (file && file[0])
        json_object_set_new(t, "file", json_string(file));
    json_array_append_new(out, t);
}

/* "[0, 15]" */
static void index_text(char *buf, size_t len, const json_t *idx)
{
    size_t n = (size_t)snprintf(buf, len, "[");
    size_t k;
    json_t *d;
    json_array_foreach(idx, k, d) if (n < len) n += (size_t)snprintf(buf + n, len - n, "%s%lld", k ? ", " : "",
                                                                     (long long)json_integer_value(d));
    if (n < len)
        snprintf(buf + n, len - n, "]");
}

/* The first violations of an output, one line each, as the checker
 * recorded them: index, got, exact, admitted interval, err/bound. */
static char *violation_lines(const json_t *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    const json_t *first = json_object_get(o, "first_violations");
    size_t k;
    json_t *v;
    json_array_foreach(first, k, v)
    {
        if (k == TP_CI_VIOLATIONS)
            break;
        char idx[160];
        index_text(idx, sizeof idx, json_object_get(v, "index"));
        const json_t *al = json_object_get(v, "allowed");
        fprintf(f, "%s: got %.10g, exact %.10g, admitted [%.10g, %.10g], err/bound %.6g", idx,
                tp_json_to_num(json_object_get(v, "got")), tp_json_to_num(json_object_get(v, "exact")),
                tp_json_to_num(json_array_get(al, 0)), tp_json_to_num(json_array_get(al, 1)),
                tp_json_to_num(json_object_get(v, "err_over_bound")));
        if (json_is_string(json_object_get(v, "got_bits")))
            fprintf(f, " (bits %s, admitted %s)", str(v, "got_bits"), str(v, "admitted_bits"));
        if (json_is_true(json_object_get(v, "more_accurate")))
            fprintf(f, " (more accurate than the model admits)");
        fputc('\n', f);
    }
    size_t shown = json_array_size(first) < TP_CI_VIOLATIONS ? json_array_size(first) : TP_CI_VIOLATIONS;
    long long all = (long long)json_integer_value(json_object_get(o, "violations"));
    if (all > (long long)shown)
        fprintf(f, "(%lld violation(s) in all; results.json lists the first ones and the worst elements)\n", all);
    fclose(f);
    if (len && buf[len - 1] == '\n') /* lines between, none after */
        buf[len - 1] = 0;
    return buf;
}

/* "violated: 3 of 4096 elements outside the bound, max err/bound 2.5,
 * max err 0.001 (4 ulp)" for one output record. */
static void output_line(char *buf, size_t len, const json_t *o)
{
    const char *v = str(o, "verdict");
    snprintf(buf, len, "%s: %lld of %lld elements outside the bound, max err/bound %.6g, max err %.6g (%.6g ulp)",
             strcmp(v, "fail") == 0 ? "violated" : v, (long long)json_integer_value(json_object_get(o, "violations")),
             (long long)json_integer_value(json_object_get(o, "elements")),
             tp_json_to_num(json_object_get(o, "max_err_over_bound")), tp_json_to_num(json_object_get(o, "max_abs_err")),
             tp_json_to_num(json_object_get(o, "max_ulp_err")));
}

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The testcases of one case record with outputs (verdict pass or fail). */
static void output_cases(json_t *out, const tp_ci_suite *s, const json_t *rec, const char *cname, const char *want,
                         const char *got, int met)
{
    const json_t *outputs = json_object_get(rec, "outputs");
    /* in name order: a record built in memory keeps the checker's order,
     * one read back from results.json the sorted one */
    size_t n = json_object_size(outputs), k = 0;
    const char **names = calloc(n ? n : 1, sizeof *names);
    const char *on;
    json_t *o;
    json_object_foreach((json_t *)outputs, on, o) names[k++] = on;
    qsort(names, n, sizeof *names, by_name);
    for (k = 0; k < n; k++) {
        o = json_object_get(outputs, names[k]);
        char name[600], line[400], msg[700], note[800] = "";
        snprintf(name, sizeof name, "%s/%s", cname, names[k]);
        output_line(line, sizeof line, o);
        const char *file = json_is_string(json_object_get(o, "file")) ? str(o, "file") : s->file;
        int violated = json_integer_value(json_object_get(o, "violations")) > 0 || strcmp(str(o, "verdict"), "fail") == 0;
        if (met) {
            if (strcmp(want, "pass") != 0)
                snprintf(note, sizeof note, "as expected (expect = \"%s\" in the contract): %s", want, line);
            add(out, name, TP_CI_PASS, "", line, "", note, file);
            continue;
        }
        if (!violated && strcmp(got, "pass") != 0) { /* another output of a violated case */
            add(out, name, TP_CI_PASS, "", line, "", "", file);
            continue;
        }
        snprintf(msg, sizeof msg, "%s; expected %s", line, want);
        char *details = violated ? violation_lines(o) : NULL;
        add(out, name, TP_CI_FAILURE, violated ? "violated" : "unexpected pass", msg, details, "", file);
        free(details);
    }
    free(names);
}

json_t *tp_ci_testcases(const tp_ci_suite *s)
{
    json_t *out = json_array();
    const json_t *cases = json_object_get(s->results, "cases");
    size_t i;
    json_t *rec;
    json_array_foreach((json_t *)cases, i, rec)
    {
        const char *cname = json_is_string(json_object_get(rec, "case")) ? str(rec, "case") : "(unnamed case)";
        if (s->only && strcmp(s->only, cname) != 0)
            continue;
        const char *verdict = str(rec, "verdict");
        const char *want = tp_expected_word(tp_expect_of(s->plan, s->fallback, cname));
        const char *got = tp_outcome_of_verdict(verdict);
        int met = tp_expect_met(s->plan, want, got);
        if ((strcmp(verdict, "pass") == 0 || strcmp(verdict, "fail") == 0) &&
            json_object_size(json_object_get(rec, "outputs"))) {
            output_cases(out, s, rec, cname, want, got, met);
            continue;
        }
        /* no outputs: a refusal or an error, one testcase for the case */
        char line[1400], note[1500] = "", by[80] = "";
        if (json_is_string(json_object_get(rec, "by")))
            snprintf(by, sizeof by, " by %s", str(rec, "by"));
        snprintf(line, sizeof line, "%s%s: %s", got, by, str(rec, "reason"));
        if (met) {
            if (strcmp(want, "pass") != 0)
                snprintf(note, sizeof note, "as expected (expect = \"%s\" in the contract): %s", want, line);
            add(out, cname, TP_CI_PASS, "", line, "", note, s->file);
            continue;
        }
        char msg[1500];
        snprintf(msg, sizeof msg, "%s; expected %s", line, want);
        add(out, cname, strcmp(got, "pass") == 0 || strcmp(got, "violated") == 0 ? TP_CI_FAILURE : TP_CI_ERROR,
            got, msg, "", "", s->file);
    }
    /* the cases of the plan a run of selected cases left out */
    const json_t *selected = json_object_get(s->results, "selected_cases");
    for (int c = 0; s->plan && json_is_array(selected) && c < s->plan->ncases; c++) {
        const char *cname = s->plan->cases[c].name;
        int in = 0;
        json_t *v;
        json_array_foreach((json_t *)selected, i, v) in |= json_is_string(v) && strcmp(json_string_value(v), cname) == 0;
        if (!in && !(s->only && strcmp(s->only, cname) != 0))
            add(out, cname, TP_CI_SKIPPED, "not selected", "not run: the run selected other cases (--case)", "", "",
                s->file);
    }
    /* outputs `tolproof check` was not given */
    json_array_foreach(json_object_get(s->results, "outputs_not_given"), i, rec)
    {
        char name[300];
        snprintf(name, sizeof name, "check/%s", json_string_value(rec) ? json_string_value(rec) : "");
        add(out, name, TP_CI_SKIPPED, "not given", "not checked: no --output file given", "", "", s->file);
    }
    if (s->plan && !s->only && tp_expect_variant_uncaught(s->plan, cases))
        add(out, "(wrong variant caught)", TP_CI_FAILURE, "not caught",
            "expected a violation or an error on some case (a wrong variant), got none", "", "", s->file);
    if (s->problem)
        add(out, s->problem_title ? s->problem_title : "(run)", TP_CI_FAILURE, "disagreement", s->problem, "", "",
            s->file);
    return out;
}

void tp_ci_count(const json_t *testcases, tp_ci_counts *c)
{
    size_t i;
    json_t *t;
    json_array_foreach((json_t *)testcases, i, t)
    {
        tp_ci_status st = (tp_ci_status)json_integer_value(json_object_get(t, "status"));
        c->tests++;
        c->failures += st == TP_CI_FAILURE;
        c->errors += st == TP_CI_ERROR;
        c->skipped += st == TP_CI_SKIPPED;
    }
}

json_t *tp_ci_single_case_results(const char *contract, const char *case_name, const json_t *case_result)
{
    json_t *rec = json_deep_copy(case_result);
    json_object_set_new(rec, "case", json_string(case_name));
    json_t *res = json_pack("{s:s,s:[o]}", "contract", contract ? contract : "(no contract)", "cases", rec);
    json_t *skipped = json_object_get(case_result, "outputs_not_given");
    if (skipped)
        json_object_set(res, "outputs_not_given", skipped);
    return res;
}
