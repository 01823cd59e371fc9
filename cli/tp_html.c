/* The bundle's index.html (see tp_html.h). Written by hand with fixed
 * number formats, like the SVG plots, so that it is a function of the
 * bundle's files alone. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cli/tp_html.h"

#include "cli/tp_record_checks.h"
#include "cli/tp_tally.h"
#include "core/tp_dtype.h"
#include "core/tp_format.h"
#include "harness/tp_check.h"
#include "harness/tp_report.h"
#include "harness/tp_xml_escape.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

static void text(FILE *f, const char *s) { tp_xml_escape(f, s, 0); }

/* A Markdown cell of the tally ("**violated**: ...") as HTML: the
 * **...** pairs as <strong>, everything else escaped. */
static void md_strong(FILE *f, const char *s)
{
    int open = 0;
    char buf[400];
    while (*s) {
        const char *star = strstr(s, "**");
        size_t n = star ? (size_t)(star - s) : strlen(s);
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), s);
        text(f, buf);
        if (!star)
            break;
        fputs(open ? "</strong>" : "<strong>", f);
        open = !open;
        s = star + 2;
    }
    if (open)
        fputs("</strong>", f);
}

/* One path segment of a relative URL: every byte but the unreserved ones
 * percent-encoded, so that a case named "a#b" or "../x" stays one
 * segment of plots/RUN/CASE/OUTPUT.svg. */
static void url_segment(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("-._~", *p))
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
}

/* id="..." of a run or a case: the names escaped as a URL segment, which
 * is also a valid fragment (and unique: the encoding is one to one). */
static void anchor(FILE *f, const char *kind, const char *run, const char *cname)
{
    fprintf(f, "%s-", kind);
    url_segment(f, run);
    if (cname) {
        fputc('-', f);
        url_segment(f, cname);
    }
}


/* 1 when the bundle has a plot of this output: tp_svg_case_plots draws
 * the outputs with a number format (fp16, bf16, fp32) of its plan. */
static int has_plot(const json_t *plan, const char *output)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(plan, "tensors"), i, t)
    {
        tp_dtype dt;
        if (strcmp(str(t, "name"), output) == 0)
            return tp_dtype_parse(str(t, "dtype"), &dt) == 0 && tp_format_of(dt) != NULL;
    }
    return 0;
}

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:90em;padding:0 1em;color:#111;line-height:1.4}\n"
    "table{border-collapse:collapse;margin:0.5em 0 1em}\n"
    "th,td{border:1px solid #bbb;padding:0.2em 0.5em;text-align:left;vertical-align:top;font-size:0.9em}\n"
    "th{background:#eee}\n"
    ".pass{color:#1e7e34}.fail{color:#b00020;font-weight:bold}.other{color:#8a5a00}\n"
    "section.case{border-top:1px solid #ccc;margin-top:1.5em}\n"
    "figure{margin:0.5em 0}figure img{max-width:100%;height:auto;border:1px solid #ddd}\n"
    "code{font-size:0.9em}\n";

static const char *verdict_class(const char *v)
{
    return strcmp(v, "pass") == 0 ? "pass" : strcmp(v, "fail") == 0 ? "fail" : "other";
}

static void contracts_table(FILE *f, const json_t *runs)
{
    fputs("<h2 id=\"contracts\">Contracts</h2>\n<p>One row per run, counted as <code>tolproof summary</code> counts "
          "them. <em>refused</em>: cases with no pass/fail verdict (refused before launch, or an error). "
          "<em>claim</em> sorts the cases that have outputs by the authors' tolerance: <em>implied</em> by the "
          "proven bound, <em>too strict</em> (it rejects outputs the model admits), <em>too loose</em> (it accepts "
          "outputs the model rules out), or <em>both</em>.</p>\n",
          f);
    fputs("<table>\n<tr><th>run</th><th>contract</th><th>device</th><th>arch</th><th>backend</th><th>cases</th>"
          "<th>pass</th><th>fail</th><th>refused</th><th>max err/bound (passing cases)</th><th>claim: implied / too "
          "strict / too loose / both (cases)</th><th>contract met</th><th>first violation</th></tr>\n",
          f);
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        const json_t *dev = json_object_get(res, "device");
        tp_tally t;
        tp_tally_results(res, &t);
        char contract[320];
        tp_tally_contract(&t, contract, sizeof contract);
        fputs("<tr><td><a href=\"#", f);
        anchor(f, "run", str(r, "run"), NULL);
        fputs("\">", f);
        text(f, str(r, "run"));
        fputs("</a></td><td>", f);
        text(f, str(res, "contract"));
        fputs("</td><td>", f);
        text(f, str(dev, "name"));
        fputs("</td><td>", f);
        text(f, str(dev, "arch"));
        fputs("</td><td>", f);
        text(f, str(res, "backend"));
        fprintf(f, "</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>", t.cases, t.pass, t.fail,
                tp_tally_unjudged(&t));
        if (t.pass)
            fprintf(f, "%.3g", t.max_ratio_passing);
        else
            fputs("-", f);
        fprintf(f, "</td><td>%d / %d / %d / %d</td><td>", t.implied, t.strict, t.loose, t.both);
        md_strong(f, contract);
        fputs("</td><td>", f);
        text(f, t.first_violation[0] ? t.first_violation : "-");
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void proofs_table(FILE *f, const json_t *proofs)
{
    fputs("<h2 id=\"proofs\">Proofs (Frama-C/WP)</h2>\n", f);
    if (!json_array_size(proofs)) {
        fputs("<p>No proof reports: this bundle does not show that any oracle is proven.</p>\n", f);
        return;
    }
    fputs("<table>\n<tr><th>oracle</th><th>tiers</th><th>goals</th><th>proved</th><th>provers</th></tr>\n", f);
    size_t i;
    json_t *p;
    json_array_foreach(proofs, i, p)
    {
        json_int_t goals = json_integer_value(json_object_get(p, "goals")),
                   proved = json_integer_value(json_object_get(p, "proved"));
        fputs("<tr><td><code>", f);
        text(f, str(p, "oracle"));
        fputs("</code></td><td>", f);
        text(f, str(p, "tiers"));
        fprintf(f, "</td><td>%lld</td><td%s>%lld%s</td><td>", (long long)goals, proved < goals ? " class=\"fail\"" : "",
                (long long)proved, proved < goals ? " (not all proved)" : "");
        size_t k;
        json_t *pv;
        json_array_foreach(json_object_get(p, "provers"), k, pv)
        {
            fputs(k ? ", " : "", f);
            text(f, json_string_value(pv) ? json_string_value(pv) : "");
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The Evidence or Non-claims statements of a case, as a list. */
static void statements(FILE *f, const char *title, const json_t *list)
{
    fprintf(f, "<h4>%s</h4>\n", title);
    if (!json_array_size(list)) {
        fputs("<p>(none recorded)</p>\n", f);
        return;
    }
    fputs("<ul>\n", f);
    size_t i;
    json_t *s;
    json_array_foreach(list, i, s)
    {
        fputs("<li><code>", f);
        text(f, str(s, "id"));
        fputs("</code>: ", f);
        text(f, str(s, "text"));
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

static void dims_text(FILE *f, const json_t *cr)
{
    const char *dn;
    json_t *dv;
    int first = 1;
    json_object_foreach(json_object_get(cr, "dims"), dn, dv)
    {
        fputs(first ? "" : " ", f);
        text(f, dn);
        fprintf(f, "=%lld", (long long)json_integer_value(dv));
        first = 0;
    }
}

/* The verdict of a case in words, as summary.md gives it. */
static void verdict_cell(FILE *f, const json_t *cr)
{
    const char *verdict = str(cr, "verdict");
    fprintf(f, "<span class=\"%s\">", verdict_class(verdict));
    text(f, verdict);
    fputs("</span>", f);
    if (tp_record_is_gpu_error(cr)) {
        fputs(" by ", f);
        text(f, str(cr, "by"));
        fputs(", the GPU's word (not re-derived): ", f);
        text(f, str(cr, "reason"));
    } else if (strcmp(verdict, "pass") != 0 && strcmp(verdict, "fail") != 0) {
        fputs(": ", f);
        text(f, str(cr, "reason"));
    }
}

static void run_section(FILE *f, const json_t *r)
{
    const char *run = str(r, "run");
    const json_t *res = json_object_get(r, "results");
    const json_t *dev = json_object_get(res, "device");
    fputs("<h2 id=\"", f);
    anchor(f, "run", run, NULL);
    fputs("\">", f);
    text(f, run);
    fputs("</h2>\n<p><code>", f);
    text(f, str(json_object_get(res, "kernel"), "source"));
    fputs("</code> on ", f);
    text(f, str(dev, "name"));
    fputs(" (", f);
    text(f, str(dev, "arch"));
    fputs("); results in <a href=\"runs/", f);
    url_segment(f, run);
    fputs("/results.json\"><code>runs/", f);
    text(f, run);
    fputs("/results.json</code></a>.</p>\n", f);
    fputs("<table>\n<tr><th>case</th><th>seed</th><th>dims</th><th>verdict</th><th>violations</th><th>elements</th>"
          "<th>max err</th><th>max ulp</th><th>max err/bound</th><th>claim</th></tr>\n",
          f);
    size_t k;
    json_t *cr;
    json_array_foreach(json_object_get(res, "cases"), k, cr)
    {
        fputs("<tr><td><a href=\"#", f);
        anchor(f, "case", run, str(cr, "case"));
        fputs("\">", f);
        text(f, str(cr, "case"));
        fprintf(f, "</a></td><td>%lld", (long long)json_integer_value(json_object_get(cr, "seed")));
        const char *in;
        json_t *iv;
        int from = 0;
        json_object_foreach(json_object_get(cr, "inputs_from"), in, iv)
        {
            fputs(from ? ", " : "; from files: ", f);
            text(f, in);
            from = 1;
        }
        fputs("</td><td>", f);
        dims_text(f, cr);
        fputs("</td><td>", f);
        verdict_cell(f, cr);
        const char *verdict = str(cr, "verdict");
        if (strcmp(verdict, "pass") != 0 && strcmp(verdict, "fail") != 0) {
            fputs("</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td></tr>\n", f);
            continue;
        }
        long long viol, n, more;
        tp_case_totals(cr, &viol, &n, &more);
        fprintf(f, "</td><td>%lld", (long long)viol);
        if (more)
            fprintf(f, " (%lld more accurate)", (long long)more);
        fprintf(f, "</td><td>%lld</td><td>%.3g</td><td>%.3g</td><td>%.3g</td><td>%s</td></tr>\n", (long long)n,
                tp_case_worst(cr, "max_abs_err"), tp_case_worst(cr, "max_ulp_err"), tp_case_worst(cr, "max_err_over_bound"),
                tp_claim_word(tp_case_claim(cr)));
    }
    fputs("</table>\n", f);
    json_array_foreach(json_object_get(res, "cases"), k, cr)
    {
        const char *cname = str(cr, "case");
        fputs("<section class=\"case\" id=\"", f);
        anchor(f, "case", run, cname);
        fputs("\">\n<h3>", f);
        text(f, run);
        fputs(" / ", f);
        text(f, cname);
        fputs("</h3>\n<p>verdict: ", f);
        verdict_cell(f, cr);
        fputs("</p>\n", f);
        const char *on;
        json_t *o;
        json_object_foreach(json_object_get(cr, "outputs"), on, o)
        {
            fputs("<p>output <code>", f);
            text(f, on);
            fprintf(f, "</code>: <span class=\"%s\">", verdict_class(str(o, "verdict")));
            text(f, str(o, "verdict"));
            fprintf(f, "</span>, %lld of %lld elements outside the bound, max err/bound %.6g, claim ",
                    (long long)json_integer_value(json_object_get(o, "violations")),
                    (long long)json_integer_value(json_object_get(o, "elements")),
                    tp_json_to_num(json_object_get(o, "max_err_over_bound")));
            text(f, str(json_object_get(o, "claim"), "verdict"));
            fputs("</p>\n", f);
            if (!has_plot(json_object_get(r, "plan"), on))
                continue;
            /* the plot: histogram of err/bound and the worst elements */
            fputs("<figure><img src=\"plots/", f);
            url_segment(f, run);
            fputc('/', f);
            url_segment(f, cname);
            fputc('/', f);
            url_segment(f, on);
            fputs(".svg\" width=\"720\" alt=\"err/bound histogram and worst elements of ", f);
            tp_xml_escape(f, run, 1);
            fputs(" / ", f);
            tp_xml_escape(f, cname, 1);
            fputs(" / ", f);
            tp_xml_escape(f, on, 1);
            fputs("\"><figcaption>err/bound of every element of <code>", f);
            text(f, on);
            fputs("</code> and its worst elements</figcaption></figure>\n", f);
        }
        statements(f, "Evidence", json_object_get(cr, "evidence"));
        statements(f, "Non-claims", json_object_get(cr, "non_claims"));
        fputs("</section>\n", f);
    }
}

void tp_html_index(tp_bfiles *out, const json_t *runs, const json_t *proofs)
{
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>tolproof evidence bundle</title>\n<style>\n%s</style>\n</head>\n<body>\n",
            style);
    fputs("<h1>Evidence bundle</h1>\n<p>Every verdict below is re-derived by <code>tolproof audit</code> from the "
          "recorded seeds and the stored outputs, but an error by device, fault or timeout (a kernel that faulted or "
          "hung leaves no outputs: that case rests on the GPU's word, and its contract is not met); times are in "
          "<code>timing.json</code>, hashes in <code>manifest.json</code>. What the audit cannot show: who made the "
          "bundle (only a signature, <code>signature.json</code>, checked with <code>tolproof audit --key</code>, "
          "shows that) and that a GPU really ran the kernel (nothing in a bundle shows that). This page is generated "
          "from the bundle's files, like <code>summary.md</code>, and the audit regenerates it.</p>\n",
          f);
    fputs("<nav><p>Contents: <a href=\"#contracts\">contracts</a>, <a href=\"#proofs\">proofs</a>", f);
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        fputs(", <a href=\"#", f);
        anchor(f, "run", str(r, "run"), NULL);
        fputs("\">", f);
        text(f, str(r, "run"));
        fputs("</a>", f);
    }
    fputs("</p></nav>\n", f);
    contracts_table(f, runs);
    proofs_table(f, proofs);
    json_array_foreach(runs, i, r) run_section(f, r);
    fputs("</body>\n</html>\n", f);
    fclose(f);
    tp_bfiles_add(out, "index.html", buf, len);
}
