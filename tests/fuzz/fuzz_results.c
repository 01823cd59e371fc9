/* libFuzzer target: the results.json reader of `tolproof replay` (and so of
 * the bundle and the audit, cli/tp_replay.c) and of `tolproof summary`
 * (cli/tp_tally.c). The input is a run's results.json; the run directory
 * around it is fixed: the plan of a tiny GEMM (1x1x1, one case) and its
 * recorded output, made once per process by tests/fuzz/seeds.sh's layout
 * (TP_FUZZ_RUN names it; see README.md). Seeds: the recorded runs' results.json. */
#include "tests/fuzz/fuzz_util.h" /* first: it asks for _GNU_SOURCE */
#include "cli/tp_replay.h"
#include "cli/tp_tally.h"
#include "core/tp_jsonfile.h"

#include <jansson.h>

static char run[512];

/* The run directory: $TP_FUZZ_RUN (plan.json and outputs/), copied into a
 * private directory whose results.json each input replaces. */
static void setup(void)
{
    const char *from = getenv("TP_FUZZ_RUN");
    if (!from) {
        fprintf(stderr, "fuzz_results: set TP_FUZZ_RUN to a run directory (tests/fuzz/README.md)\n");
        abort();
    }
    snprintf(run, sizeof run, "%s/run", fuzz_dir());
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", from, run);
    if (system(cmd) != 0)
        abort();
    fuzz_quiet_stdout();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!run[0])
        setup();
    char path[600];
    snprintf(path, sizeof path, "%s/results.json", run);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    int n = 0;
    tp_replay_opts opts = {0};
    tp_replay_dir(run, 0, NULL, &n, &opts);
    /* summary's reading of the same file */
    char err[1400];
    json_t *res = tp_json_file_load(path, 0, err, sizeof err);
    if (res) {
        tp_tally t;
        tp_tally_results(res, &t);
        json_decref(res);
    } else if (!err[0])
        abort();
    return 0;
}
