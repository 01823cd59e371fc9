/* Tables of single-input subtrees (issue 11: "a single-input expression
 * over a 16-bit format may be tabulated over all 65536 inputs"). A
 * subtree of an elementwise program that depends on one binary16 or
 * bfloat16 input and holds a device function (silu(a) in silu(a) * b) is
 * evaluated once per bit pattern, both its admitted hull and its MPFI
 * enclosure; each element then looks the value up. The tables hold what
 * the node-by-node evaluation computes for that pattern (the same calls
 * on the same values), so results are the same bit for bit, only
 * cheaper: per element, the device functions' MPFR and MPFI work is gone. */
#ifndef TP_EW_TAB_H
#define TP_EW_TAB_H
#include "core/tp_format.h"
#include "oracles/common/proven/tp_ival.h"
#include "oracles/generic/ew_prog.h"

#include <mpfi.h>
#include <stdint.h>

#define EW_MAX_TABS 8

typedef struct ew_tabs {
    int n;
    int root[EW_MAX_TABS], input[EW_MAX_TABS];
    unsigned char mask[EW_MAX_TABS][EW_MAX_NODES]; /* the nodes of each subtree */
    unsigned char skip[EW_MAX_NODES];               /* inside a subtree, not its root */
    signed char tab_of[EW_MAX_NODES];               /* a root: its table; -1 */
    /* admitted hulls by pattern; fnode >= 0 where the evaluation failed
     * there (at that node, for reason fwhy) */
    tp_ival32 *ival[EW_MAX_TABS];
    int16_t *fnode[EW_MAX_TABS];
    const char **fwhy[EW_MAX_TABS];
    /* MPFI enclosures by pattern (NULL until built); efail where the real
     * subtree is undefined */
    mpfi_t *exact[EW_MAX_TABS];
    unsigned char *efail[EW_MAX_TABS];
} ew_tabs;

/* Chooses the subtrees: maximal, on exactly one input whose format fmt[k]
 * is 16 bits wide, holding a device function. No table when none. */
void ew_tabs_plan(const ew_prog *p, const tp_format *const *fmt, ew_tabs *t);

/* Fills the admitted tables (and, with exact, the MPFI ones) for the
 * model m, every finite pattern of each table's input. 0, or -1 when
 * memory runs out (t is then as ew_tabs_free leaves it). */
int ew_tabs_build(ew_tabs *t, const ew_prog *p, const ew_model *m, const tp_format *const *fmt, int exact);

void ew_tabs_free(ew_tabs *t);

#endif
