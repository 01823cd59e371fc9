/* `tolproof replay`: re-derives recorded runs without a GPU. The work per
 * run directory is tp_replay's, shared with the bundle and the audit. */
#include "cli/cmd_replay.h"

#include "cli/tp_ci_runs.h"
#include "cli/tp_expect_dir.h"
#include "cli/tp_replay.h"

#include <stdio.h>
#include <string.h>

#define SYNOPSIS                                                                                                       \
    "tolproof replay [--quiet] [--case NAME] [--expect-from DIR] [--rewrite-statements | --rewrite-only KEY,...]\n" \
    "                       [--junit FILE] [--format tap|github] RUN_DIR...\n"

const char tp_replay_usage[] = "       " SYNOPSIS;

void tp_replay_help(FILE *f)
{
    fprintf(f, "usage: " SYNOPSIS
               "Re-derives every recorded case of each run directory (as written by a harness:\n"
               "plan.json, results.json, outputs/CASE/TENSOR.npy): regenerates the inputs from the\n"
               "seeds (or, where results.json lists \"inputs_from\", loads outputs/CASE/input_NAME.npy\n"
               "and checks its SHA-256), recomputes the exact reference, the bound and every verdict\n"
               "from the recorded outputs, and compares the result with results.json field by field.\n"
               "No GPU is needed. Prints one TAP line per case. Then compares each case's outcome\n"
               "with its expectation (expect = \"pass\", \"refused\" or \"violated\" in the contract, in\n"
               "plan.json) and prints \"not ok - DIR/CASE: expected E, got G\" for each case without it.\n"
               "  --quiet      one short line per case that re-derives (no verdict details)\n"
               "  --case NAME  replay only that case of each run\n"
               "  --expect-from DIR\n"
               "               expectations of runs recorded before plans carried them (no \"expect\"\n"
               "               in plan.json): from DIR/CONTRACT.plan.json, the current contract's plan\n"
               "               (`ninja` writes build/gen/CONTRACT.plan.json), by case name; without it\n"
               "               such cases expect a pass. A case's own \"expect\" in plan.json wins.\n"
               "  --rewrite-statements\n"
               "               re-generate the Evidence and Non-claims of results.json where every\n"
               "               other field re-derives identically (the documented migrations of\n"
               "               recorded/MIGRATIONS.md); the run is left untouched otherwise\n"
               "  --rewrite-only KEY,...\n"
               "               the same for the fields with these names (at any depth): a case whose\n"
               "               recomputation differs only there is replaced by it (for the migrations\n"
               "               of recorded/MIGRATIONS.md, whose scripts check what changed)\n"
               "  --junit FILE JUnit XML of the runs: one testsuite per run, one testcase per recorded\n"
               "               case and output (a violation a <failure> with the largest err/bound and the\n"
               "               first violations, a refusal or an error an <error>, a case a run with\n"
               "               --case left out <skipped>; a case with its expected outcome passes, an\n"
               "               expected refusal or violation noted in <system-out>), and a failing\n"
               "               testcase \"replay\" for a run that does not re-derive\n"
               "  --format tap|github\n"
               "               github: after the TAP lines, a GitHub workflow annotation per failing\n"
               "               testcase of --junit (::error) and per expected refusal or violation\n"
               "               (::notice); tap (the default): the TAP lines only\n"
               "Before any case, each run must have exactly one record per case of its plan (or of its\n"
               "\"selected_cases\", which a run with --case records). A record without outputs is\n"
               "accepted only as a refusal by the plan (re-derived) or as an error by \"device\",\n"
               "\"fault\" or \"timeout\" with its reason (a CUDA/HIP call that failed, a kernel that\n"
               "faulted or hung): that is the GPU's word,\n"
               "not re-derived, said so on its line and counted apart in the last line. Any other\n"
               "error or refusal is a disagreement.\n"
               "Exit status: 0 every case re-derives identically (errors by device, fault or timeout apart)\n"
               "and has its expected outcome, 1 a disagreement or a case without its expected\n"
               "outcome, 2 a run directory cannot be read.\n");
}

int tp_replay_main(int argc, char **argv)
{
    int quiet = 0, status = 0, derived = 0, ndirs = 0, ncases = 0;
    const char *only = NULL, *expect_from = NULL;
    tp_expect_tally expect = {0};
    tp_replay_opts opts = {0};
    const char *junit = NULL;
    int github = 0;
    tp_ci_runs ci = {0};
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
            continue;
        }
        if (strcmp(argv[i], "--rewrite-statements") == 0) {
            opts.rewrite_statements = 1;
            continue;
        }
        if (strcmp(argv[i], "--rewrite-only") == 0 && i + 1 < argc) {
            /* KEY,KEY,...: split in place into the NULL-terminated list */
            static const char *keys[32];
            int n = 0;
            for (char *k = strtok(argv[++i], ","); k && n < 31; k = strtok(NULL, ","))
                keys[n++] = k;
            keys[n] = NULL;
            if (n == 0) {
                tp_replay_help(stderr);
                return 2;
            }
            opts.rewrite_statements = 0;
            opts.rewrite_keys = keys;
            continue;
        }
        if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
            only = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--expect-from") == 0 && i + 1 < argc) {
            expect_from = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--junit") == 0 && i + 1 < argc) {
            junit = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "tap") != 0 && strcmp(v, "github") != 0) {
                fprintf(stderr, "tolproof replay: --format %s: expected tap or github\n", v);
                return 2;
            }
            github = strcmp(v, "github") == 0;
            continue;
        }
        /* "dir/" and "dir" name the same run: report it one way */
        size_t len = strlen(argv[i]);
        while (len > 1 && argv[i][len - 1] == '/')
            argv[i][--len] = 0;
        opts.first[0] = 0; /* this run's first disagreement, for its CI testcase */
        int s = tp_replay_dir(argv[i], quiet, only, &ncases, &opts);
        if (junit || github)
            tp_ci_runs_add(&ci, argv[i], expect_from, only, s, opts.first);
        derived = derived > s ? derived : s;
        /* a recorded outcome that re-derives may still not be the expected one */
        if (s != 2)
            tp_expect_dir(argv[i], expect_from, only, stdout, "not ok - ", &expect);
        ndirs++;
    }
    if (ndirs == 0) {
        tp_replay_help(stderr);
        return 2;
    }
    char words[96], errors[96] = "";
    tp_expect_words(&expect, words, sizeof words);
    if (derived == 0 && opts.gpu_errors)
        snprintf(errors, sizeof errors, " but %d error(s) by device, fault or timeout, the GPU's word", opts.gpu_errors);
    printf("# replayed %d case(s) in %d run(s): %s%s; outcomes: %s\n", ncases, ndirs,
           derived == 0 ? "every verdict re-derived" : "DISAGREEMENT", errors, words);
    status = derived ? derived : expect.unexpected ? 1 : 0;
    if (github)
        tp_ci_runs_github(&ci, stdout);
    if (junit && tp_ci_runs_junit(&ci, junit) != 0) {
        fprintf(stderr, "tolproof replay: --junit %s: cannot be written\n", junit);
        status = 2;
    }
    tp_ci_runs_free(&ci);
    return status;
}
