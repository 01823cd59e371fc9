/* The bundle's index.html: one static page a reviewer opens in any
 * browser, from the same runs and proof reports as summary.md, so that
 * `tolproof audit` regenerates it byte for byte. No script, no network:
 * inline CSS, the plots linked by relative paths (plots/RUN/CASE/OUTPUT.svg,
 * shown as images), every text from the bundle HTML-escaped. It holds the
 * summary table, the proof table, and per run and case the verdict, the
 * err/bound histogram and worst elements (the SVG plots), and the
 * Evidence and Non-claims statements. */
#ifndef TP_HTML_H
#define TP_HTML_H
#include "cli/tp_bfiles.h"

#include <jansson.h>

/* runs and proofs as tp_bundle_reports takes them; adds "index.html". */
void tp_html_index(tp_bfiles *out, const json_t *runs, const json_t *proofs);
#endif
