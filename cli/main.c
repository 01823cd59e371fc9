/* The tolproof command: re-checks recorded runs and evidence bundles
 * without a GPU. This file is the table of subcommands and the dispatch;
 * each subcommand lives in cli/cmd_NAME.c. */
#include "cli/cmd_audit.h"
#include "cli/cmd_bundle.h"
#include "cli/cmd_check.h"
#include "cli/cmd_pack.h"
#include "cli/cmd_replay.h"
#include "cli/cmd_summary.h"
#include "cli/cmd_verdicts.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    const char *summary; /* one line, for `tolproof --help` */
    /* main's argc and argv (argv[1] is the name): `check` finds the plans
     * next to argv[0]. Returns the exit status. */
    int (*run)(int argc, char **argv);
    const char *usage;     /* synopsis lines, indented to follow "usage: " */
    void (*help)(FILE *f); /* `tolproof NAME --help`, `tolproof help NAME` */
} command;

static const command commands[] = {
    {"replay", "re-derive every case of recorded runs, compare with results.json", tp_replay_main,
     tp_replay_usage, tp_replay_help},
    {"summary", "one Markdown row per run: verdicts, err/bound, claim audit",
     tp_summary_main, tp_summary_usage, tp_summary_help},
    {"bundle", "write an evidence bundle: runs, proofs, summaries, plots, hashes", tp_bundle_main,
     tp_bundle_usage, tp_bundle_help},
    {"audit", "re-check a bundle: every hash, verdict and generated file", tp_audit_main,
     tp_audit_usage, tp_audit_help},
    {"check", "check .npy tensors from any producer against a contract", tp_check_main,
     tp_check_usage, tp_check_help},
    {"verdicts", "tolproof against fixed tolerances on the variant corpus", tp_verdicts_main,
     tp_verdicts_usage, tp_verdicts_help},
    {"pack", "store a run's outputs compactly (.tpr: distances from the exact reference)", tp_pack_main,
     tp_pack_usage, tp_pack_help},
    {"unpack", "turn a run's .tpr outputs back into the .npy files they encode", tp_unpack_main,
     tp_unpack_usage, tp_unpack_help},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The indentation of every usage string: the width of "usage: ". */
#define INDENT 7

static void global_help(FILE *f)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "%s%s", i ? "" : "usage: ", commands[i].usage + (i ? 0 : INDENT));
    fprintf(f, "       tolproof help [COMMAND]\n"
               "       tolproof COMMAND --help\n"
               "\n"
               "Checks outputs of fp16 GPU kernels against the per-element bounds of their contracts'\n"
               "proven error models, without a GPU: recorded runs, evidence bundles of them, or .npy\n"
               "tensors from any producer.\n"
               "\n"
               "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n`tolproof COMMAND --help` (or `tolproof help COMMAND`) says what a command reads and\n"
               "writes, its options and its exit status.\n");
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

static int unknown(const char *name)
{
    fprintf(stderr, "tolproof: unknown command %s\n", name);
    global_help(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    /* one TAP line at a time even into a pipe or file: a crash or a kill
     * loses no line already printed */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        global_help(stderr);
        return 2;
    }
    if (is_help(argv[1]) || (strcmp(argv[1], "help") == 0 && argc == 2)) {
        global_help(stdout);
        return 0;
    }
    if (strcmp(argv[1], "help") == 0) {
        const command *c = find(argv[2]);
        if (!c)
            return unknown(argv[2]);
        c->help(stdout);
        return 0;
    }
    const command *c = find(argv[1]);
    if (!c)
        return unknown(argv[1]);
    if (argc > 2 && is_help(argv[2])) {
        c->help(stdout);
        return 0;
    }
    return c->run(argc, argv);
}
