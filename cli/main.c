/* The tolproof command: re-checks recorded runs without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "harness/tp_check.h"
#include "cli/tp_checkcmd.h"
#include "core/tp_npy.h"
#include "core/tp_plan.h"
#include "cli/tp_replay.h"
#include "harness/tp_report.h"
#include "cli/tp_bundle.h"
#include "cli/tp_audit.h"
#include "cli/tp_summary.h"
#include "cli/tp_verdicts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: tolproof replay [--quiet] [--case NAME] [--rewrite-statements] RUN_DIR...\n"
               "       tolproof summary RUN_DIR...\n"
               "       tolproof bundle --out DIR [--proofs DIR] [--tap FILE] [--schema FILE] RUN_DIR...\n"
               "       tolproof audit [--quiet] BUNDLE_DIR|BUNDLE.tar.gz\n"
               "%s"
               "%s"
               "       tolproof --help\n"
               "\n"
               "replay  re-derives every recorded case of each run directory (as written by a\n"
               "        harness: plan.json, results.json, outputs/CASE/TENSOR.npy): regenerates the\n"
               "        inputs from the seeds (or, where results.json lists \"inputs_from\", loads\n"
               "        outputs/CASE/input_NAME.npy and checks its SHA-256), recomputes the exact\n"
               "        reference, the bound and every verdict from the recorded outputs, and\n"
               "        compares the result with results.json field by field. No GPU is needed.\n"
               "        --case NAME replays only that case of each run.\n"
               "        --rewrite-statements re-generates the Evidence and Non-claims of results.json\n"
               "        where they are all that disagrees (a documented migration of recorded\n"
               "        results: recorded/MIGRATIONS.md); a run with any other disagreement is left\n"
               "        as it is.\n"
               "        Exit status: 0 every case re-derives identically, 1 a disagreement,\n"
               "        2 a run directory cannot be read.\n"
               "summary prints a Markdown table, one row per run directory: cases, verdicts,\n"
               "        the largest err/bound of passing cases, the claim audit and the first\n"
               "        violation.\n"
               "bundle  writes an evidence bundle DIR and DIR.tar.gz: the runs (plans, results,\n"
               "        outputs), the proof reports, summary.md, summary.tex, SVG plots of err/bound,\n"
               "        results.tap, manifest.json (SHA-256 of every file, tool versions, devices,\n"
               "        git commit, seeds) and timing.json (every time and timestamp).\n"
               "audit   re-checks a bundle without a GPU: every hash, every case re-derived from\n"
               "        the seeds and stored outputs, every generated file regenerated.\n"
               "        Exit status: 0 everything matches, 1 a disagreement, 2 unreadable.\n"
               "check   checks .npy tensors from any producer (PyTorch, cuBLAS, your kernel) against\n"
               "        a contract's operation and numeric model (tolproof check --help).\n"
               "        Exit status: 0 within the bound, 1 a violation, 2 bad input.\n"
               "verdicts judges the runs of kernels/variants/ (correct and wrong variants of the\n"
               "        contracts' kernels) with tolproof, the pilots' 1e-2, torch.testing's float16\n"
               "        defaults and llm.c's tolerance, all against the exact reference; prints the\n"
               "        false alarms and kills of each (tolproof verdicts --help).\n"
               "        Exit status: 0 tolproof raised no false alarm, 1 it did, 2 unreadable.\n",
            tp_check_usage, tp_verdicts_usage);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "replay") == 0) {
        int quiet = 0, status = 0, ndirs = 0, ncases = 0;
        const char *only = NULL;
        tp_replay_opts rewrite = {.rewrite_statements = 1}, *opts = NULL;
        for (int i = 2; i < argc; i++) {
            if (strcmp(argv[i], "--quiet") == 0) {
                quiet = 1;
                continue;
            }
            if (strcmp(argv[i], "--rewrite-statements") == 0) {
                opts = &rewrite;
                continue;
            }
            if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
                only = argv[++i];
                continue;
            }
            /* "dir/" and "dir" name the same run: report it one way */
            size_t len = strlen(argv[i]);
            while (len > 1 && argv[i][len - 1] == '/')
                argv[i][--len] = 0;
            int s = tp_replay_dir(argv[i], quiet, only, &ncases, opts);
            status = status > s ? status : s;
            ndirs++;
        }
        if (ndirs == 0) {
            usage(stderr);
            return 2;
        }
        printf("# replayed %d case(s) in %d run(s): %s\n", ncases, ndirs,
               status == 0 ? "every verdict re-derived" : "DISAGREEMENT");
        return status;
    }
    if (strcmp(argv[1], "check") == 0)
        return tp_check_main(argc, argv);
    if (strcmp(argv[1], "summary") == 0)
        return tp_summary_main(argc - 2, argv + 2);
    if (strcmp(argv[1], "bundle") == 0)
        return tp_bundle_main(argc - 2, argv + 2);
    if (strcmp(argv[1], "verdicts") == 0)
        return tp_verdicts_main(argc - 2, argv + 2);
    if (strcmp(argv[1], "audit") == 0)
        return tp_audit_main(argc - 2, argv + 2);
    fprintf(stderr, "tolproof: unknown command %s\n", argv[1]);
    usage(stderr);
    return 2;
}
