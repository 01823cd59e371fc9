/* `tolproof summary`: one Markdown row per recorded run directory, read
 * from its results.json: what a reader of the README wants first. The
 * counts are tp_tally's, shared with the bundle's summary.md and .tex. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cli/cmd_summary.h"

#include "cli/tp_expect_dir.h"
#include "cli/tp_tally.h"
#include "core/tp_jsonfile.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYNOPSIS "tolproof summary [--expect-from DIR] RUN_DIR...\n"

const char tp_summary_usage[] = "       " SYNOPSIS;

void tp_summary_help(FILE *f)
{
    fprintf(f, "usage: " SYNOPSIS
               "Prints a Markdown table, one row per run directory (its results.json): cases, verdicts\n"
               "(refused counts every case without a pass/fail verdict), the largest err/bound of\n"
               "passing cases, the claim audit (each case with outputs counted once: implied, too\n"
               "strict, too loose, or both), whether the contract was met (with the violating elements\n"
               "more accurate than the model admits, where there are some), the first violation, and\n"
               "whether every case had its expected outcome (expect = \"pass\", \"refused\" or\n"
               "\"violated\" in the contract): \"as expected (7 violated, 1 refused)\", or \"**N\n"
               "unexpected**\" followed by each such case, expected and got.\n"
               "\"met\" needs a pass or fail verdict (or a refusal by the plan) for every case, no\n"
               "failure and one pass. A run with an error by device, fault or timeout (a kernel that faulted or\n"
               "hung: the GPU's word) is \"not met\"; one with another error, or with no case judged,\n"
               "is \"not shown\". It says \"on the selected cases\" for a run of some cases (--case)\n"
               "and counts the cases run on supplied inputs (--input) rather than the seeds. summary\n"
               "reads results.json as it is; `tolproof replay` checks it.\n"
               "  --expect-from DIR  expectations of runs recorded before plans carried them, from\n"
               "                     DIR/CONTRACT.plan.json by case name (see `tolproof replay --help`)\n"
               "Exit status: 0 every results.json read, 2 one could not be read (its row is left out).\n");
}

/* The "expected outcomes" cell of run `dir`: tp_expect_words, and after
 * "**N unexpected**" each such case as "CASE: expected E, got G". */
static void expect_cell(const char *dir, const char *expect_from, const json_t *res, char *out, size_t len)
{
    char path[4200], err[600];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    tp_plan *plan = tp_plan_load(path, err, sizeof err);
    if (!plan) {
        /* without the plan there are no expectations to compare with */
        fprintf(stderr, "tolproof summary: %s\n", err);
        snprintf(out, len, "no plan.json");
        return;
    }
    tp_expect_tally t = {0};
    char *lines = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&lines, &n);
    tp_plan *fb = tp_expect_fallback(expect_from, plan, stderr, "tolproof summary: ");
    tp_expect_compare(plan, fb, json_object_get(res, "cases"), NULL, f, "", "", &t);
    tp_plan_free(fb);
    tp_plan_free(plan);
    if (f)
        fclose(f);
    tp_expect_words(&t, out, len);
    if (t.unexpected) {
        size_t k = (size_t)snprintf(out, len, "**%d unexpected**", t.unexpected);
        const char *sep = ": ";
        for (char *line = lines ? strtok(lines, "\n") : NULL; line && k < len; line = strtok(NULL, "\n"), sep = "; ")
            k += (size_t)snprintf(out + k, len - k, "%s%s", sep, line);
    }
    free(lines);
}

static void row(const char *dir, const char *expect_from, const json_t *res)
{
    tp_tally t;
    tp_tally_results(res, &t);
    json_t *dev = json_object_get(res, "device");
    char ratio[32] = "-", contract[320];
    tp_tally_contract(&t, contract, sizeof contract);
    if (t.pass)
        snprintf(ratio, sizeof ratio, "%.3g", t.max_ratio_passing);
    char expected[1024];
    expect_cell(dir, expect_from, res, expected, sizeof expected);
    const char *contract_name = json_string_value(json_object_get(res, "contract"));
    const char *device = json_string_value(json_object_get(dev, "name"));
    printf("| %s | %s | %d | %d | %d | %d | %s | %d / %d / %d / %d | %s | %s | %s |\n",
           contract_name ? contract_name : "?", device ? device : "?", t.cases, t.pass, t.fail,
           tp_tally_unjudged(&t), ratio, t.implied, t.strict, t.loose, t.both, contract,
           t.first_violation[0] ? t.first_violation : "-", expected);
}

int tp_summary_main(int argc, char **argv)
{
    int first = 2;
    const char *expect_from = NULL;
    if (argc > 3 && strcmp(argv[2], "--expect-from") == 0) {
        expect_from = argv[3];
        first = 4;
    }
    if (argc <= first) {
        tp_summary_help(stderr);
        return 2;
    }
    printf("| contract | device | cases | pass | fail | refused | max err/bound (passing cases) | claim 1e-2: implied / "
           "too strict / too loose / both (cases) | contract | first violation | expected outcomes |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    int status = 0;
    for (int i = first; i < argc; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/results.json", argv[i]);
        char err[4400];
        json_t *res = tp_json_file_load(path, 0, err, sizeof err);
        if (!res) {
            fprintf(stderr, "%s\n", err);
            status = 2;
            continue;
        }
        if (!json_is_object(res) || !json_is_array(json_object_get(res, "cases"))) {
            fprintf(stderr, "%s: not a run's results (an object with a \"cases\" array)\n", path);
            json_decref(res);
            status = 2;
            continue;
        }
        row(argv[i], expect_from, res);
        json_decref(res);
    }
    return status;
}
