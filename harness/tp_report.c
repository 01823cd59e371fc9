#include "harness/tp_report.h"

#include "core/tp_file.h"
#include "harness/tp_check.h"
#include "harness/tp_diagnose.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

static int fill_json(FILE *f, const void *j)
{
    return json_dumpf((const json_t *)j, f, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

int tp_write_json(const char *path, const json_t *j) { return tp_write_atomic(path, fill_json, j); }

static int fill_tap(FILE *f, const void *results)
{
    tp_write_tap(f, (const json_t *)results);
    return 0;
}

int tp_write_tap_file(const char *path, const json_t *results) { return tp_write_atomic(path, fill_tap, results); }

struct md_args {
    const json_t *results, *timing;
};

static int fill_markdown(FILE *f, const void *ctx)
{
    const struct md_args *a = ctx;
    tp_write_markdown(f, a->results, a->timing);
    return 0;
}

int tp_write_markdown_file(const char *path, const json_t *results, const json_t *timing)
{
    struct md_args a = {results, timing};
    return tp_write_atomic(path, fill_markdown, &a);
}

int tp_mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}


double tp_case_worst(const json_t *cr, const char *key)
{
    const char *name;
    json_t *o;
    double m = 0;
    json_object_foreach((json_t *)json_object_get(cr, "outputs"), name, o) m = fmax(m, tp_json_to_num(json_object_get(o, key)));
    return m;
}

void tp_case_totals(const json_t *cr, long long *viol, long long *n, long long *more)
{
    const char *name;
    json_t *o;
    *viol = *n = *more = 0;
    json_object_foreach((json_t *)json_object_get(cr, "outputs"), name, o)
    {
        *viol += json_integer_value(json_object_get(o, "violations"));
        *n += json_integer_value(json_object_get(o, "elements"));
        *more += json_integer_value(json_object_get(o, "more_accurate"));
    }
}

tp_claim_class tp_case_claim(const json_t *cr)
{
    const char *name;
    json_t *o;
    int strict = 0, loose = 0, any = 0;
    json_object_foreach((json_t *)json_object_get(cr, "outputs"), name, o)
    {
        json_t *claim = json_object_get(o, "claim");
        strict |= json_integer_value(json_object_get(claim, "strict_elements")) > 0;
        loose |= json_integer_value(json_object_get(claim, "loose_elements")) > 0;
        any = 1;
    }
    return !any             ? TP_CLAIM_NONE
           : strict && loose ? TP_CLAIM_BOTH
           : strict          ? TP_CLAIM_STRICT
           : loose           ? TP_CLAIM_LOOSE
                             : TP_CLAIM_IMPLIED;
}

const char *tp_claim_word(tp_claim_class c)
{
    switch (c) {
    case TP_CLAIM_IMPLIED: return "implied";
    case TP_CLAIM_STRICT: return "too strict";
    case TP_CLAIM_LOOSE: return "too loose";
    case TP_CLAIM_BOTH: return "too strict and too loose";
    default: return "-";
    }
}

/* " (N more accurate than the declared model admits; --model K=V would
 * admit them)" for a case with such violations, "" otherwise. */
static void more_accurate_text(char *buf, size_t len, const json_t *cr)
{
    long long n;
    json_t *alts = tp_case_more_accurate(cr, &n);
    char which[300];
    tp_admitted_by_text(which, sizeof which, alts, n);
    json_decref(alts);
    buf[0] = 0;
    if (n)
        snprintf(buf, len, " (%lld more accurate than the declared model admits%s)", n, which);
}

void tp_case_line(char *buf, size_t len, const json_t *cr)
{
    const char *verdict = json_string_value(json_object_get(cr, "verdict"));
    if (strcmp(verdict, "pass") != 0 && strcmp(verdict, "fail") != 0) {
        snprintf(buf, len, "%s: %s", verdict, json_string_value(json_object_get(cr, "reason")));
        return;
    }
    int64_t viol = 0, n = 0;
    const char *name;
    json_t *o;
    json_object_foreach((json_t *)json_object_get(cr, "outputs"), name, o)
    {
        viol += json_integer_value(json_object_get(o, "violations"));
        n += json_integer_value(json_object_get(o, "elements"));
    }
    char diag[400];
    more_accurate_text(diag, sizeof diag, cr);
    snprintf(buf, len, "%s: %lld of %lld elements outside the bound%s, max err/bound %.3g, max err %.3g (%.3g ulp), claim %s",
             verdict, (long long)viol, (long long)n, diag, tp_case_worst(cr, "max_err_over_bound"),
             tp_case_worst(cr, "max_abs_err"), tp_case_worst(cr, "max_ulp_err"), tp_claim_word(tp_case_claim(cr)));
}

void tp_write_tap(FILE *f, const json_t *results)
{
    json_t *cases = json_object_get(results, "cases");
    const char *contract = json_string_value(json_object_get(results, "contract"));
    fprintf(f, "1..%zu\n", json_array_size(cases));
    size_t i;
    json_t *cr;
    json_array_foreach(cases, i, cr)
    {
        char line[512];
        tp_case_line(line, sizeof line, cr);
        const char *v = json_string_value(json_object_get(cr, "verdict"));
        fprintf(f, "%s %zu - %s/%s: %s\n", strcmp(v, "pass") == 0 ? "ok" : "not ok", i + 1, contract,
                json_string_value(json_object_get(cr, "case")), line);
    }
}

void tp_write_markdown(FILE *f, const json_t *results, const json_t *timing)
{
    json_t *dev = json_object_get(results, "device");
    fprintf(f, "# %s on %s (%s)\n\n", json_string_value(json_object_get(results, "contract")),
            json_string_value(json_object_get(dev, "name")), json_string_value(json_object_get(dev, "arch")));
    fprintf(f, "| case | dims | verdict | violations | max err | max ulp | max err/bound | claim %s | kernel ms |\n",
            "1e-2");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
    size_t i;
    json_t *cr;
    json_array_foreach(json_object_get(results, "cases"), i, cr)
    {
        const char *name = json_string_value(json_object_get(cr, "case"));
        char dims[128] = "";
        const char *k;
        json_t *v;
        size_t n = 0;
        json_object_foreach(json_object_get(cr, "dims"), k, v) n += (size_t)snprintf(
            dims + n, n < sizeof dims ? sizeof dims - n : 0, "%s%s=%lld", n ? " " : "", k, (long long)json_integer_value(v));
        const char *verdict = json_string_value(json_object_get(cr, "verdict"));
        int64_t viol = 0;
        json_object_foreach(json_object_get(cr, "outputs"), k, v) viol += json_integer_value(json_object_get(v, "violations"));
        double ms = json_number_value(json_object_get(json_object_get(timing, name), "kernel_ms_median"));
        long long more;
        json_decref(tp_case_more_accurate(cr, &more));
        char more_cell[64] = "";
        if (more)
            snprintf(more_cell, sizeof more_cell, " (%lld more accurate)", more);
        fprintf(f, "| %s | %s | %s | %lld%s | %.3g | %.3g | %.3g | %s | %.4g |\n", name, dims, verdict, (long long)viol,
                more_cell, tp_case_worst(cr, "max_abs_err"), tp_case_worst(cr, "max_ulp_err"),
                tp_case_worst(cr, "max_err_over_bound"), tp_claim_word(tp_case_claim(cr)), ms);
    }
    /* the diagnosis of the cases whose violations are more accurate than
     * the model admits, after the table (only when there are such cases) */
    int notes = 0;
    json_array_foreach(json_object_get(results, "cases"), i, cr)
    {
        long long more;
        json_t *alts = tp_case_more_accurate(cr, &more);
        char which[300];
        tp_admitted_by_text(which, sizeof which, alts, more);
        json_decref(alts);
        if (!more)
            continue;
        if (!notes++)
            fprintf(f, "\nViolations more accurate than the declared model admits (closer to the exact value than any "
                       "value it admits: the producer does not follow the model's precision path):\n\n");
        fprintf(f, "- %s: %lld element%s%s\n", json_string_value(json_object_get(cr, "case")), more,
                more == 1 ? "" : "s", which);
    }
}
