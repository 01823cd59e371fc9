/* The runtime every generated harness links (libtolproof). A harness is
 * generated per contract by gen/; it embeds the contract's resolved plan
 * (JSON) and the kernel launch, and leaves everything else to the runtime:
 * main (harness/tp_device.h: tp_harness_main), argument parsing, the
 * source fingerprint check, input generation, the launch shape and the
 * device's limits, timing, the checker and the result writers.
 *
 * This header is the recording layer under tp_harness_main, which also
 * lets a harness without a GPU drive the runtime (tests/tool_emulate.c
 * does, through tp_harness_main with an emulated device):
 *
 *   tp_run *run;
 *   int s = tp_run_open(argc, argv, &info, &run);
 *   if (s != TP_RUN_READY) return s == TP_RUN_DONE ? 0 : 2;   // --help/--list, or bad arguments
 *   tp_run_set_device(run, name, arch, driver_version, runtime_version);
 *   for (int i = 0; i < tp_run_ncases(run); i++) {
 *       if (!tp_run_case_selected(run, i)) continue;
 *       tp_case *c = tp_run_case_begin(run, i);   // inputs generated, outputs allocated and poisoned
 *       if (!c) continue;                          // shape/requirement refusal already recorded
 *       ... launch, copy the outputs into c's output tensors ...
 *       tp_run_case_end(run, i, median_ms, reps);  // checks, records verdicts
 *   }
 *   int expected = tp_expect_run_status(tp_run_plan(run), tp_run_case_records(run), stderr);
 *   return tp_run_close(run) ? 2 : expected;   // writes results; the exit status (harness/tp_expect.h)
 */
#ifndef TP_HARNESS_H
#define TP_HARNESS_H
#include "core/tp_plan.h"
#include "core/tp_tensor.h"

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *plan_json;        /* the resolved plan, embedded by gen/ */
    const char *backend;          /* "cuda" or "hip" */
    const char *compiler_version; /* first line of `nvcc --version` / `hipcc --version` at build time */
    const char *build_command;    /* the exact command line that built this harness */
} tp_harness_info;

typedef struct tp_run tp_run;

/* What tp_run_open leaves the caller to do. */
enum {
    TP_RUN_READY = 0, /* *run is open: run the cases, then tp_run_close */
    TP_RUN_DONE = 1,  /* --help or --list printed: exit 0 */
    TP_RUN_ERROR = 2, /* reported on stderr: exit 2 */
};

/* Parses: --out DIR (default build/runs/<backend>/<contract>), --case NAME
 * (repeatable; results.json then lists them as "selected_cases"),
 * --list, --reps N (timed launches, default 20), --root DIR (repository
 * root for the fingerprint check, default "."), --input
 * NAME=FILE.npy (repeatable: the case's input NAME is the file's contents),
 * --dump-inputs (also write every input as outputs/CASE/input_NAME.npy),
 * --help.
 * Refuses (TP_RUN_ERROR, message on stderr) bad arguments (an --input
 * that names no input tensor of the plan, or a file that does not open,
 * before any device is opened), an embedded
 * plan that does not read, and a kernel source on disk that no longer
 * matches the plan's kernel.sha256. *run is set only for TP_RUN_READY. */
int tp_run_open(int argc, char **argv, const tp_harness_info *info, tp_run **run);
const tp_plan *tp_run_plan(const tp_run *run);
void tp_run_set_device(tp_run *run, const char *name, const char *arch,
                       int driver_version, int runtime_version);
int tp_run_ncases(const tp_run *run);
int tp_run_case_selected(const tp_run *run, int i);
int tp_run_reps(const tp_run *run);
/* The results.json "cases" records so far (the run owns them): what the
 * expected outcomes are compared with (harness/tp_expect.h). */
const json_t *tp_run_case_records(const tp_run *run);
/* Validates the case (sizes, lengths, the contract's requirements), then
 * generates inputs, replaces those given by --input (dtype, element count,
 * shape and index range checked against the case) and poisons outputs (all
 * bits set: NaN). Returns NULL after recording a refusal, before any launch
 * (message names the tensor and expected size; "by" is "plan" or "input"). */
tp_case *tp_run_case_begin(tp_run *run, int i);
/* Record a refusal found by the harness itself (e.g. a launch limit). */
void tp_run_case_refuse(tp_run *run, int i, const char *why);
/* Record a GPU error for this case (the case fails). */
void tp_run_case_error(tp_run *run, int i, const char *what);
void tp_run_case_end(tp_run *run, int i, double kernel_ms_median, int reps);
/* Writes the results and frees the run: 0, or 2 when they cannot be
 * written. Verdicts, refusals and errors are results: whether they were
 * expected is tp_expect_run_status's. */
int tp_run_close(tp_run *run);
/* Frees the run without writing anything (no GPU to run on), and removes
 * the directories tp_run_open made for --out while they are still empty. */
void tp_run_abandon(tp_run *run);

#ifdef __cplusplus
}
#endif
#endif
