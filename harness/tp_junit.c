/* JUnit XML of runs (see tp_junit.h). */
#include "harness/tp_junit.h"

#include "core/tp_file.h"
#include "harness/tp_xml_escape.h"

#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

static void attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    tp_xml_escape(f, value, 1);
    fputc('"', f);
}

static void counts_attrs(FILE *f, const tp_ci_counts *c)
{
    fprintf(f, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\"", c->tests, c->failures, c->errors,
            c->skipped);
}

static void testcase(FILE *f, const char *classname, const json_t *t)
{
    static const char *const element[] = {"", "failure", "error", "skipped"};
    tp_ci_status st = (tp_ci_status)json_integer_value(json_object_get(t, "status"));
    fputs("    <testcase", f);
    attr(f, "classname", classname);
    attr(f, "name", str(t, "name"));
    if (json_object_get(t, "file"))
        attr(f, "file", str(t, "file"));
    const char *note = str(t, "note");
    if (st == TP_CI_PASS && !note[0]) {
        fputs("/>\n", f);
        return;
    }
    fputs(">\n", f);
    if (st != TP_CI_PASS) {
        fprintf(f, "      <%s", element[st]);
        attr(f, "message", str(t, "message"));
        if (st != TP_CI_SKIPPED)
            attr(f, "type", str(t, "type"));
        fputs(">", f);
        /* the message again in the text: some readers show only one */
        tp_xml_escape(f, str(t, "message"), 0);
        if (str(t, "details")[0]) {
            fputs("\nfirst violations (index: got, exact, admitted interval, err/bound):\n", f);
            tp_xml_escape(f, str(t, "details"), 0);
        }
        fprintf(f, "</%s>\n", element[st]);
    }
    if (note[0]) {
        fputs("      <system-out>", f);
        tp_xml_escape(f, note, 0);
        fputs("</system-out>\n", f);
    }
    fputs("    </testcase>\n", f);
}

void tp_junit_write(FILE *f, const tp_ci_suite *suites, int nsuites)
{
    json_t **cases = calloc((size_t)(nsuites > 0 ? nsuites : 1), sizeof *cases);
    tp_ci_counts all = {0};
    for (int i = 0; i < nsuites; i++) {
        cases[i] = tp_ci_testcases(&suites[i]);
        tp_ci_count(cases[i], &all);
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tolproof\"", f);
    counts_attrs(f, &all);
    fputs(">\n", f);
    for (int i = 0; i < nsuites; i++) {
        tp_ci_counts c = {0};
        tp_ci_count(cases[i], &c);
        fputs("  <testsuite", f);
        attr(f, "name", suites[i].name);
        counts_attrs(f, &c);
        if (suites[i].file)
            attr(f, "file", suites[i].file);
        fputs(">\n", f);
        size_t k;
        json_t *t;
        json_array_foreach(cases[i], k, t) testcase(f, suites[i].name, t);
        fputs("  </testsuite>\n", f);
        json_decref(cases[i]);
    }
    fputs("</testsuites>\n", f);
    free(cases);
}

struct junit_args {
    const tp_ci_suite *suites;
    int n;
};

static int fill(FILE *f, const void *ctx)
{
    const struct junit_args *a = ctx;
    tp_junit_write(f, a->suites, a->n);
    return 0;
}

int tp_junit_write_file(const char *path, const tp_ci_suite *suites, int nsuites)
{
    struct junit_args a = {suites, nsuites};
    return tp_write_atomic(path, fill, &a);
}
