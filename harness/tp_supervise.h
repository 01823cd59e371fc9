/* Fault isolation of a harness run (tp_supervise.c).
 *
 * Why a second process: a kernel that writes to an illegal address leaves
 * a sticky error that loses the CUDA/HIP context for the rest of the
 * process, and a kernel that never ends never gives the host thread back.
 * Neither may cost the other cases of the contract their verdicts, nor the
 * cases already finished their records. So the harness process is a
 * supervisor that never touches the GPU: it runs the cases in a child (a
 * fresh exec of the same binary, so no GPU state is ever forked), which
 * reports each case to it over a pipe (one JSON line per message). When
 * the child dies, loses its context or overruns a case's watchdog, the
 * supervisor kills it (SIGKILL), records that case as
 *
 *   {"case": NAME, "verdict": "error", "by": "fault", "reason": TEXT}
 *   {"case": NAME, "verdict": "error", "by": "timeout", "reason": "no result within S s (watchdog)"}
 *
 * (TEXT: the runtime's error, or the signal or exit status that ended the
 * child and the last line it wrote on stderr during the case, which passes
 * through the supervisor) and starts a fresh child for the cases after it.
 * The supervisor keeps
 * DIR/results.partial.json up to date (atomically) after every case, and
 * replaces it by DIR/results.json when the run ends.
 *
 * The watchdog runs over a case's device work (buffers, copies, warm-up
 * and timed launches, outputs back; not input generation nor the checker):
 * the case's timeout_s in the contract, else TP_DEFAULT_CASE_TIMEOUT_S;
 * --case-timeout SECONDS on the harness overrides both. */
#ifndef TP_SUPERVISE_H
#define TP_SUPERVISE_H
#include "harness/tp_device.h"

#include <jansson.h>

#define TP_DEFAULT_CASE_TIMEOUT_S 60.0
/* The child must have opened the device within this many seconds (or the
 * case timeout, when that is longer). */
#define TP_DEVICE_OPEN_TIMEOUT_S 60.0

/* Phases of a case that the child reports (tp_main.c calls this; outside a
 * supervised child it does nothing). */
enum { TP_PHASE_DEVICE = 1, TP_PHASE_HOST = 2 };
void tp_supervise_phase(int i, int phase);

/* ---- what the supervisor needs of the recording layer (tp_run.c) */

/* (The case records so far: tp_run_case_records, harness/tp_harness.h.) */
/* The timing entry of a case, or NULL (borrowed). */
json_t *tp_run_timing_of(const tp_run *run, const char *case_name);
/* The plan's watchdog for case i (0: none given). */
double tp_run_case_timeout(const tp_run *run, int i);
const char *tp_run_case_name(const tp_run *run, int i);
const char *tp_run_out_dir(const tp_run *run);
/* In a child: do not print the per-case console line (the supervisor
 * prints it when it takes the record over, numbered in the whole run). */
void tp_run_set_quiet(tp_run *run);
/* In the supervisor (and an --in-process run): write
 * DIR/results.partial.json after every record, remove a results.json left
 * by an earlier run into DIR (its outputs are being overwritten). */
void tp_run_keep_partial(tp_run *run);
/* Take over a record made by the child (stolen), with its timing entry
 * (stolen; may be NULL). */
void tp_run_case_adopt(tp_run *run, json_t *record, json_t *timing);
/* Record case i as lost: verdict "error" with by "fault" or "timeout". */
void tp_run_case_lost(tp_run *run, int i, const char *by, const char *reason);
#endif
