/* The bundle's reports, written from the runs' results.json and the proof
 * reports alone, so that `tolproof audit` regenerates them byte for byte:
 * summary.md (Markdown tables: per contract run, per proof, per case),
 * summary.tex (one booktabs table for papers), results.tap (every case of
 * every run as one TAP stream) and each run's runs/RUN/results.tap. The
 * per-run counts are tp_tally's, as in `tolproof summary`. */
#ifndef TP_BUNDLE_REPORTS_H
#define TP_BUNDLE_REPORTS_H
#include "cli/tp_bfiles.h"

#include <jansson.h>

/* runs: an array of {"run": NAME, "results": results.json, "plan":
 * plan.json}; proofs: an array of the bundle's proofs/ORACLE.json objects. */
void tp_bundle_reports(tp_bfiles *out, const json_t *runs, const json_t *proofs);
#endif
