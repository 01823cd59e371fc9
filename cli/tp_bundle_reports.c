#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cli/tp_bundle_reports.h"

#include "cli/tp_record_checks.h"

#include "cli/tp_tally.h"
#include "harness/tp_check.h"
#include "harness/tp_report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}


/* "-" when no case passed, as in `tolproof summary`. */
static void ratio_text(char *out, size_t len, const tp_tally *t)
{
    snprintf(out, len, "-");
    if (t->pass)
        snprintf(out, len, "%.3g", t->max_ratio_passing);
}

static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

static void tex(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '\\': fputs("\\textbackslash{}", f); break;
        case '~': fputs("\\textasciitilde{}", f); break;
        case '^': fputs("\\textasciicircum{}", f); break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}': fputc('\\', f); fputc(*s, f); break;
        default: fputc(*s, f);
        }
}

static void summary_md(FILE *f, const json_t *runs, const json_t *proofs)
{
    fprintf(f, "# Evidence bundle\n\n");
    fprintf(f, "Every verdict below is re-derived by `tolproof audit` from the recorded seeds and the stored "
               "outputs, but an error by device, fault or timeout (a kernel that faulted or hung leaves no outputs: that "
               "case rests on the GPU's word, and its contract is not met); times are in `timing.json`, hashes in "
               "`manifest.json`. What the audit cannot show: who "
               "made the bundle (only a signature, `signature.json`, checked with `tolproof audit --key`, shows "
               "that) and that a GPU really ran the kernel (nothing in a bundle shows that).\n\n");
    fprintf(f, "## Contracts\n\n");
    fprintf(f, "One row per run, counted as `tolproof summary` counts them. *refused*: cases with no pass/fail "
               "verdict (refused before launch, or an error). *claim* sorts the cases that have outputs by the "
               "authors' tolerance: *implied* by the proven bound, *too strict* (it rejects outputs the model "
               "admits), *too loose* (it accepts outputs the model rules out), or *both*; each case is counted "
               "once.\n\n");
    fprintf(f, "| run | contract | device | arch | backend | cases | pass | fail | refused | max err/bound (passing "
               "cases) | claim: implied / too strict / too loose / both (cases) | contract met | first violation |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        const json_t *dev = json_object_get(res, "device");
        tp_tally t;
        tp_tally_results(res, &t);
        char ratio[32], contract[320];
        ratio_text(ratio, sizeof ratio, &t);
        tp_tally_contract(&t, contract, sizeof contract);
        fprintf(f, "| %s | %s | ", str(r, "run"), str(res, "contract"));
        md_cell(f, str(dev, "name"));
        fprintf(f, " | %s | %s | %d | %d | %d | %d | %s | %d / %d / %d / %d | %s | ", str(dev, "arch"),
                str(res, "backend"), t.cases, t.pass, t.fail, tp_tally_unjudged(&t), ratio, t.implied, t.strict,
                t.loose, t.both, contract);
        md_cell(f, t.first_violation[0] ? t.first_violation : "-");
        fprintf(f, " |\n");
    }
    if (!json_array_size(proofs))
        fprintf(f, "\n## Proofs (Frama-C/WP)\n\nNo proof reports: this bundle does not show that any oracle is "
                   "proven.\n");
    if (json_array_size(proofs)) {
        fprintf(f, "\n## Proofs (Frama-C/WP)\n\n| oracle | tiers | goals | proved | provers |\n|---|---|---|---|---|\n");
        json_t *p;
        json_array_foreach(proofs, i, p)
        {
            json_int_t goals = json_integer_value(json_object_get(p, "goals")),
                       proved = json_integer_value(json_object_get(p, "proved"));
            fprintf(f, "| %s | %s | %lld | %s%lld%s | ", str(p, "oracle"), str(p, "tiers"), (long long)goals,
                    proved < goals ? "**" : "", (long long)proved, proved < goals ? " (not all proved)**" : "");
            size_t k;
            json_t *pv;
            json_array_foreach(json_object_get(p, "provers"), k, pv)
            {
                fprintf(f, "%s", k ? ", " : "");
                md_cell(f, json_string_value(pv) ? json_string_value(pv) : "");
            }
            fprintf(f, " |\n");
        }
    }
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        const json_t *dev = json_object_get(res, "device");
        fprintf(f, "\n## %s\n\n`%s` on ", str(r, "run"), str(json_object_get(res, "kernel"), "source"));
        md_cell(f, str(dev, "name"));
        fprintf(f, " (%s); results in `runs/%s/results.json` (each case's Evidence and Non-claims lists are "
                   "there).\n\n",
                str(dev, "arch"), str(r, "run"));
        tp_tally t;
        tp_tally_results(res, &t);
        if (t.selected)
            fprintf(f, "A run of the selected cases only: %zu of the %zu cases of its plan.\n\n",
                    json_array_size(json_object_get(res, "selected_cases")),
                    json_array_size(json_object_get(json_object_get(r, "plan"), "cases")));
        if (t.from_files)
            fprintf(f, "%d case(s) ran on supplied inputs (`--input`, listed under *seed*), not on inputs generated "
                       "from the seed: the copies are in `outputs/CASE/input_NAME.npy`, their SHA-256 in "
                       "`inputs_from`, and those verdicts hold for those inputs only.\n\n",
                    t.from_files);
        fprintf(f, "| case | seed | dims | verdict | violations | elements | max err | max ulp | max err/bound | "
                   "claim | plots |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        size_t k;
        json_t *cr;
        json_array_foreach(json_object_get(res, "cases"), k, cr)
        {
            const char *verdict = str(cr, "verdict");
            fprintf(f, "| %s | %lld", str(cr, "case"), (long long)json_integer_value(json_object_get(cr, "seed")));
            const char *in;
            json_t *iv;
            int from = 0;
            json_object_foreach(json_object_get(cr, "inputs_from"), in, iv)
            {
                fprintf(f, "%s%s", from ? ", " : "; from files: ", in);
                from = 1;
            }
            fprintf(f, " | ");
            const char *dn;
            json_t *dv;
            int first = 1;
            json_object_foreach(json_object_get(cr, "dims"), dn, dv)
            {
                fprintf(f, "%s%s=%lld", first ? "" : " ", dn, (long long)json_integer_value(dv));
                first = 0;
            }
            if (tp_record_is_gpu_error(cr)) {
                fprintf(f, " | **error** by %s, the GPU's word (not re-derived): ", str(cr, "by"));
                md_cell(f, str(cr, "reason"));
                fprintf(f, " | - | - | - | - | - | - | - |\n");
                continue;
            }
            if (strcmp(verdict, "pass") != 0 && strcmp(verdict, "fail") != 0) {
                fprintf(f, " | %s: ", verdict);
                md_cell(f, str(cr, "reason"));
                fprintf(f, " | - | - | - | - | - | - | - |\n");
                continue;
            }
            long long viol, n, more;
            const char *on;
            json_t *o;
            tp_case_totals(cr, &viol, &n, &more);
            char more_cell[64] = "";
            if (more)
                snprintf(more_cell, sizeof more_cell, " (%lld more accurate)", (long long)more);
            fprintf(f, " | %s%s%s | %lld%s | %lld | %.3g | %.3g | %.3g | %s | ", strcmp(verdict, "fail") == 0 ? "**" : "",
                    verdict, strcmp(verdict, "fail") == 0 ? "**" : "", (long long)viol, more_cell, (long long)n,
                    tp_case_worst(cr, "max_abs_err"), tp_case_worst(cr, "max_ulp_err"), tp_case_worst(cr, "max_err_over_bound"),
                    tp_claim_word(tp_case_claim(cr)));
            first = 1;
            json_object_foreach(json_object_get(cr, "outputs"), on, o)
            {
                fprintf(f, "%s[%s](plots/%s/%s/%s.svg)", first ? "" : " ", on, str(r, "run"), str(cr, "case"), on);
                first = 0;
            }
            fprintf(f, " |\n");
        }
    }
}

static void summary_tex(FILE *f, const json_t *runs)
{
    fprintf(f, "%% tolproof evidence bundle: one row per contract run (needs \\usepackage{booktabs}).\n");
    fprintf(f, "%% Claim: cases where the authors' tolerance is implied by the proven bound / too strict (it\n");
    fprintf(f, "%% rejects outputs the model admits) / too loose (it accepts outputs the model rules out) / both\n");
    fprintf(f, "%% (a case that is both is counted once, as both). Refused: no pass/fail verdict. Max err/bound:\n");
    fprintf(f, "%% over passing cases. The counts are `tolproof summary`'s.\n");
    fprintf(f, "\\begin{tabular}{lllrrrrrl}\n\\toprule\n");
    fprintf(f, "Contract & Device & Arch & Cases & Pass & Fail & Refused & Max err/bound & Claim "
               "(impl./strict/loose/both) \\\\\n\\midrule\n");
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        const json_t *dev = json_object_get(res, "device");
        tp_tally t;
        tp_tally_results(res, &t);
        char ratio[32];
        ratio_text(ratio, sizeof ratio, &t);
        tex(f, str(r, "run"));
        fprintf(f, " & ");
        tex(f, str(dev, "name"));
        fprintf(f, " & ");
        tex(f, str(dev, "arch"));
        char more[64] = "";
        if (t.more_accurate)
            snprintf(more, sizeof more, " (%lld more accurate)", t.more_accurate);
        fprintf(f, " & %d & %d & %d%s & %d & %s & %d / %d / %d / %d \\\\\n", t.cases, t.pass, t.fail, more,
                tp_tally_unjudged(&t), ratio, t.implied, t.strict, t.loose, t.both);
    }
    fprintf(f, "\\bottomrule\n\\end{tabular}\n");
}

static void combined_tap(FILE *f, const json_t *runs)
{
    size_t total = 0, i, k;
    json_t *r, *cr;
    json_array_foreach(runs, i, r) total += json_array_size(json_object_get(json_object_get(r, "results"), "cases"));
    fprintf(f, "1..%zu\n", total);
    size_t n = 0;
    json_array_foreach(runs, i, r)
    {
        json_array_foreach(json_object_get(json_object_get(r, "results"), "cases"), k, cr)
        {
            char line[600];
            tp_case_line(line, sizeof line, cr);
            fprintf(f, "%s %zu - %s/%s: %s\n", strcmp(str(cr, "verdict"), "pass") == 0 ? "ok" : "not ok", ++n,
                    str(r, "run"), str(cr, "case"), line);
        }
    }
}

void tp_bundle_reports(tp_bfiles *out, const json_t *runs, const json_t *proofs)
{
    char *buf;
    size_t len;
    FILE *f;
    size_t i;
    json_t *r;
    /* Written from the parsed results.json rather than copied: the
     * harness's own results.tap picks the claim word of the first output in
     * the order the checker built them, which a parsed file (sorted keys)
     * does not keep, so only a rewritten log can be regenerated by the
     * audit byte for byte. */
    json_array_foreach(runs, i, r)
    {
        char path[400];
        snprintf(path, sizeof path, "runs/%s/results.tap", str(r, "run"));
        f = open_memstream(&buf, &len);
        tp_write_tap(f, json_object_get(r, "results"));
        fclose(f);
        tp_bfiles_add(out, path, buf, len);
    }
    f = open_memstream(&buf, &len);
    summary_md(f, runs, proofs);
    fclose(f);
    tp_bfiles_add(out, "summary.md", buf, len);
    f = open_memstream(&buf, &len);
    summary_tex(f, runs);
    fclose(f);
    tp_bfiles_add(out, "summary.tex", buf, len);
    f = open_memstream(&buf, &len);
    combined_tap(f, runs);
    fclose(f);
    tp_bfiles_add(out, "results.tap", buf, len);
}
