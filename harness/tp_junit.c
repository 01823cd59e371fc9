/* JUnit XML of runs (see tp_junit.h). */
#include "harness/tp_junit.h"

#include "core/tp_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (1 to 4) and its code point,
 * or 0 when s does not start one (overlong forms and surrogates included). */
static int utf8_at(const unsigned char *s, uint32_t *cp)
{
    int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!n)
        return 0;
    uint32_t c = n == 1 ? s[0] : n == 2 ? (s[0] & 0x1Fu) : n == 3 ? (s[0] & 0x0Fu) : (s[0] & 0x07u);
    for (int k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[k] & 0x3Fu);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

void tp_xml_escape(FILE *f, const char *s, int attr)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t c;
        int n = utf8_at(p, &c);
        if (!n) {
            fprintf(f, "\\x%02X", *p++);
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        /* in an attribute, a parser would turn a literal tab or newline
         * into a space; in text, a carriage return into a newline */
        case '\t': fputs(attr ? "&#9;" : "\t", f); break;
        case '\n': fputs(attr ? "&#10;" : "\n", f); break;
        case '\r': fputs("&#13;", f); break;
        default:
            if (c < 0x20 || c == 0x7F)
                fprintf(f, "\\x%02X", (unsigned)c);
            else if (c == 0xFFFE || c == 0xFFFF)
                fprintf(f, "\\u%04X", (unsigned)c);
            else
                fwrite(p, 1, (size_t)n, f);
        }
        p += n;
    }
}

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
