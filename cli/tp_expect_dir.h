/* Expected outcomes of a recorded run directory, for `tolproof replay`,
 * `summary` and `verdicts` (harness/tp_expect.h says what they are).
 *
 * A run made before plans carried expectations has no "expect" in its
 * plan.json. Its cases take their expectation from the current contract's
 * plan when the command is given `--expect-from DIR`: DIR/CONTRACT.plan.json
 * (`ninja` writes build/gen/CONTRACT.plan.json), matched by case name;
 * otherwise, and for cases that plan does not have, a pass. A case's own
 * "expect" in the run's plan.json always wins: it is what the run was
 * made under. Recorded files are never changed. */
#ifndef TP_EXPECT_DIR_H
#define TP_EXPECT_DIR_H
#include "core/tp_plan.h"
#include "harness/tp_expect.h"

#include <jansson.h>
#include <stdio.h>

/* The plan DIR/CONTRACT.plan.json that expectations fall back on for
 * `plan` (CONTRACT its contract; a variant's is its base contract), or
 * NULL when from_dir is NULL, when every case of plan says what it
 * expects, or when that file cannot be read (then one line to warn, when
 * not NULL, naming the file and saying that those cases expect a pass).
 * The caller frees it (tp_plan_free). */
tp_plan *tp_expect_fallback(const char *from_dir, const tp_plan *plan, FILE *warn, const char *warn_lead);

/* Compares the cases of run directory `dir` (its plan.json and
 * results.json; only case `only` when not NULL) with their expectations,
 * printing each case without its expected outcome as
 * "LEAD DIR/CASE: expected E, got G" to f. 0, or -1 when plan.json or
 * results.json cannot be read (nothing printed: the caller reports it). */
int tp_expect_dir(const char *dir, const char *from_dir, const char *only, FILE *f, const char *lead,
                  tp_expect_tally *t);
#endif
