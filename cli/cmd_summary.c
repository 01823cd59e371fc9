/* `tolproof summary`: one Markdown row per recorded run directory, read
 * from its results.json: what a reader of the README wants first. The
 * counts are tp_tally's, shared with the bundle's summary.md and .tex. */
#include "cli/cmd_summary.h"

#include "cli/tp_tally.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#define SYNOPSIS "tolproof summary RUN_DIR...\n"

const char tp_summary_usage[] = "       " SYNOPSIS;

void tp_summary_help(FILE *f)
{
    fprintf(f, "usage: " SYNOPSIS
               "Prints a Markdown table, one row per run directory (its results.json): cases, verdicts\n"
               "(refused counts every case without a pass/fail verdict), the largest err/bound of\n"
               "passing cases, the claim audit (each case with outputs counted once: implied, too\n"
               "strict, too loose, or both), whether the contract was met and the first violation.\n"
               "\"met\" needs a pass or fail verdict (or a refusal by the plan) for every case, no\n"
               "failure and one pass. A run with an error by fault or timeout (a kernel that faulted or\n"
               "hung: the GPU's word) is \"not met\"; one with another error, or with no case judged,\n"
               "is \"not shown\". It says \"on the selected cases\" for a run of some cases (--case)\n"
               "and counts the cases run on supplied inputs (--input) rather than the seeds. summary\n"
               "reads results.json as it is; `tolproof replay` checks it.\n"
               "Exit status: 0 every results.json read, 2 one could not be read (its row is left out).\n");
}

static void row(const json_t *res)
{
    tp_tally t;
    tp_tally_results(res, &t);
    json_t *dev = json_object_get(res, "device");
    char ratio[32] = "-", contract[160];
    tp_tally_contract(&t, contract, sizeof contract);
    if (t.pass)
        snprintf(ratio, sizeof ratio, "%.3g", t.max_ratio_passing);
    const char *contract_name = json_string_value(json_object_get(res, "contract"));
    const char *device = json_string_value(json_object_get(dev, "name"));
    printf("| %s | %s | %d | %d | %d | %d | %s | %d / %d / %d / %d | %s | %s |\n", contract_name ? contract_name : "?",
           device ? device : "?", t.cases, t.pass, t.fail, tp_tally_unjudged(&t), ratio, t.implied, t.strict, t.loose,
           t.both, contract, t.first_violation[0] ? t.first_violation : "-");
}

int tp_summary_main(int argc, char **argv)
{
    if (argc < 3) {
        tp_summary_help(stderr);
        return 2;
    }
    printf("| contract | device | cases | pass | fail | refused | max err/bound (passing cases) | claim 1e-2: implied / "
           "too strict / too loose / both (cases) | contract | first violation |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    int status = 0;
    for (int i = 2; i < argc; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/results.json", argv[i]);
        json_error_t je;
        json_t *res = json_load_file(path, 0, &je);
        if (!res) {
            fprintf(stderr, "%s:%d: %s\n", path, je.line, je.text);
            status = 2;
            continue;
        }
        if (!json_is_object(res) || !json_is_array(json_object_get(res, "cases"))) {
            fprintf(stderr, "%s: not a run's results (an object with a \"cases\" array)\n", path);
            json_decref(res);
            status = 2;
            continue;
        }
        row(res);
        json_decref(res);
    }
    return status;
}
