/* `tolproof summary`: one Markdown row per recorded run directory, read
 * from its results.json: what a reader of the README wants first. The
 * counts are tp_tally's, shared with the bundle's summary.md and .tex. */
#include "cli/cmd_summary.h"

#include "cli/tp_tally.h"
#include "core/tp_jsonfile.h"

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
               "Exit status: 0 every results.json read, 2 one could not be read (its row is left out).\n");
}

static void row(const json_t *res)
{
    tp_tally t;
    tp_tally_results(res, &t);
    json_t *dev = json_object_get(res, "device");
    char ratio[32] = "-";
    if (t.pass)
        snprintf(ratio, sizeof ratio, "%.3g", t.max_ratio_passing);
    printf("| %s | %s | %d | %d | %d | %d | %s | %d / %d / %d / %d | %s | %s |\n",
           json_string_value(json_object_get(res, "contract")), json_string_value(json_object_get(dev, "name")),
           t.cases, t.pass, t.fail, tp_tally_unjudged(&t), ratio, t.implied, t.strict, t.loose, t.both,
           t.fail ? "**violated**" : "met", t.first_violation[0] ? t.first_violation : "-");
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
        char err[4400];
        json_t *res = tp_json_file_load(path, 0, err, sizeof err);
        if (!res) {
            fprintf(stderr, "%s\n", err);
            status = 2;
            continue;
        }
        row(res);
        json_decref(res);
    }
    return status;
}
