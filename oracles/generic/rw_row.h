/* One row of op "rowwise" (oracles/generic/rw_model.h): its reductions,
 * admitted and exact, then its output elements.
 *
 * Admitted value of a reduction, in binary32 as the kernel computes it:
 *   each term: the hull of its binary32 evaluation (oracles/generic/
 *     ew_admit.c) at the row's element; with fma = "any" and a product as
 *     the term's last operation, also the exact product of the operands'
 *     ends (the kernel may fuse it into its accumulator: fmaf(a, b, acc));
 *   sum, any order: every fp32 sum of terms t_j in [lo_j, hi_j], in any
 *     order or tree, lies within n C sum max|t_j| + n eta of sum t_j
 *     (oracles/common/sum_bound.h), so in
 *       [sum lo_j - n C A - n eta,  sum hi_j + n C A + n eta]:
 *     the interval of the proven bound tp_sum_bound_rn (T3,
 *     oracles/common/proven/tp_sum_bound.c) at S = sum lo_j for the lower
 *     end and S = sum hi_j for the upper one, the sums and A = sum max|t_j|
 *     rounded outward by MPFR's correctly rounded mpfr_sum; then to
 *     binary32 by the proven ends (tp_f32_lower_end, tp_f32_upper_end);
 *   a row with at most one term whose hull is not exactly {0}: that
 *     term's hull (or 0), exactly. In round to nearest a + 0 = a and
 *     fmaf(x, y, a) = a where x y = 0, exactly, for every binary32 a
 *     (either sign of zero: the value is the same), so in any tree of
 *     additions the zero terms are the identity and no rounding is left:
 *     a one-hot row, sum(select(index(col) == t, x, 0.0f)), is x[t]. (The
 *     same argument bounds a row of k nonzero terms by the k-term bound;
 *     that is not used: it would tighten bounds of recorded runs, e.g.
 *     rmsnorm_fwd special_64x64's rstd, which replay byte for byte.)
 *   a sum of (x - c) * (x - c), c constant along the row (a variance):
 *     also the bound of oracles/generic/rw_centred.h over the row's exact
 *     moments, which knows every term sees the same c; the row's interval
 *     is what both bounds admit;
 *   max, min: exact in any order: the max (min) of the terms' ends.
 * Exact value: the terms' MPFI enclosures summed (or maxed) in MPFI at
 * EW_EXACT_PREC bits.
 * Each output element: the output program with the row's reduced values
 * as interval inputs, admitted (ew_admit_box) and exact (ew_exact_nodes),
 * the row-invariant part once per row (rw_out). */
#ifndef TP_RW_ROW_H
#define TP_RW_ROW_H
#include "core/tp_ref.h"
#include "oracles/generic/ew_exact.h"
#include "oracles/generic/rw_centred.h"
#include "oracles/generic/rw_model.h"

#include <mpfr.h>

/* One thread's work space for rows of s. */
typedef struct {
    ew_exact_ws ex;
    mpfi_t red[RW_MAX_REDUCE], slot[EW_MAX_NODES / 2], acc;
    int64_t cols;   /* terms a line: the length of ends' thirds */
    mpfr_t *ends;   /* 3 cols: the terms' lower ends, upper ends, magnitudes */
    mpfr_ptr *ptrs; /* the same, for mpfr_sum */
    mpfr_t sum;
    float *xs;      /* cols: a centred sum's input along the line */
    rw_centred_ws centred;
} rw_ws;

/* 0, or -1 when memory runs out. */
int rw_ws_init(rw_ws *w, const rw_setup *s);
void rw_ws_clear(rw_ws *w);

/* What went wrong on a row: at column col (-1: the row as a whole), in
 * the program `where` names, at its operation node (0-based), why. */
typedef struct {
    int64_t col;
    const char *where; /* "model.reduce.NAME" or "model.expr.OUTPUT" */
    int node;
    const char *why;
} rw_fail;

/* Line r (a row, or a column with along = "column"): with ref, its output
 * elements' references into ref (the whole output's array), exact values included;
 * without, only what the admitted values need (check_case's pass). 0, or
 * -1 with *f set: the model cannot bound the row (an overflow, a function
 * outside its domain, a sum outside the proven bound's range) or, with
 * ref, the real expression is undefined there. */
int rw_row(const rw_setup *s, rw_ws *w, int64_t r, tp_ref *ref, rw_fail *f);

#endif
