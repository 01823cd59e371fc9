/* The bundle's plots: for each output tensor of a re-derived case, the
 * histogram of err/bound over all its elements and the table of its worst
 * elements, as SVG text (tp_svg.c says why by hand). */
#ifndef TP_SVG_H
#define TP_SVG_H
#include "cli/tp_bfiles.h"
#include "core/tp_op.h"
#include "core/tp_plan.h"

#include <jansson.h>
#include <stddef.h>

/* Adds plots/RUN/CASE/OUTPUT.svg for each fp16 or fp32 output of case c
 * (rebuilt by tp_replay_load_case; rec is its record in results.json).
 * 0, or -1 with err set. */
int tp_svg_case_plots(tp_bfiles *out, const char *run, const tp_plan *plan, const json_t *rec, const tp_case *c,
                      char *err, size_t errlen);
#endif
