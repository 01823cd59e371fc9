/* GitHub workflow annotations of runs (see tp_ghfmt.h). */
#include "harness/tp_ghfmt.h"

void tp_gh_escape(FILE *f, const char *s, int property)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '%')
            fputs("%25", f);
        else if (*p == '\r')
            fputs("%0D", f);
        else if (*p == '\n')
            fputs("%0A", f);
        else if (property && *p == ':')
            fputs("%3A", f);
        else if (property && *p == ',')
            fputs("%2C", f);
        else if ((*p < 0x20 && *p != '\t') || *p == 0x7F)
            fprintf(f, "\\x%02X", *p);
        else
            fputc(*p, f);
    }
}

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

static void annotation(FILE *f, const char *level, const char *suite, const json_t *t, const char *text,
                       const char *details)
{
    fprintf(f, "::%s ", level);
    if (json_object_get(t, "file")) {
        fputs("file=", f);
        tp_gh_escape(f, str(t, "file"), 1);
        fputc(',', f);
    }
    fputs("title=", f);
    tp_gh_escape(f, suite, 1);
    tp_gh_escape(f, "/", 1);
    tp_gh_escape(f, str(t, "name"), 1);
    fputs("::", f);
    tp_gh_escape(f, text, 0);
    if (details && details[0]) {
        tp_gh_escape(f, "\nfirst violations (index: got, exact, admitted interval, err/bound):\n", 0);
        tp_gh_escape(f, details, 0);
    }
    fputc('\n', f);
}

void tp_ghfmt_write(FILE *f, const tp_ci_suite *suites, int nsuites)
{
    for (int i = 0; i < nsuites; i++) {
        json_t *cases = tp_ci_testcases(&suites[i]);
        size_t k;
        json_t *t;
        json_array_foreach(cases, k, t)
        {
            tp_ci_status st = (tp_ci_status)json_integer_value(json_object_get(t, "status"));
            if (st == TP_CI_FAILURE || st == TP_CI_ERROR)
                annotation(f, "error", suites[i].name, t, str(t, "message"), str(t, "details"));
            else if (st == TP_CI_PASS && str(t, "note")[0])
                annotation(f, "notice", suites[i].name, t, str(t, "note"), NULL);
        }
        json_decref(cases);
    }
}
