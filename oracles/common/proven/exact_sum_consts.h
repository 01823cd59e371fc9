/* The constants and the logic of the split-double exact sums
 * (exact_sum.h), on their own so that a proof that needs them but none of
 * exact_sum.h's operations (layernorm_cols.c, gemm.c) does not prove those
 * operations again. */
#ifndef TP_EXACT_SUM_CONSTS_H
#define TP_EXACT_SUM_CONSTS_H

/* The split scale: adding and subtracting 1.5*2^44 rounds a term to a
 * multiple of 2^-8 (the ulp of doubles in [2^44, 2^45)). */
#define TP_EXACT_SPLIT 0x1.8p44

/* A bound on the low part p - t of a split: the rounding error of
 * p + TP_EXACT_SPLIT, at most 2^-53 |p + TP_EXACT_SPLIT| + 2^-1075 <=
 * 1.5*2^-9 + 2^-21 + 2^-1075 by the standard model of binary64 rounding
 * (Why3's proved lemma Float64.round_bound_ne); the true bound is 2^-9. */
#define TP_EXACT_REST 0x1.802p-9

/* The largest |lo| after 2^13 low parts: 2^13 * TP_EXACT_REST < 2^5, so lo
 * stays a multiple of 2^-48 below 2^53 units. */
#define TP_EXACT_LO_MAX 0x1.802p4

/* x * y, named: facts about products then match as one term, by
 * congruence, where x * y needs nonlinear arithmetic, on which the provers
 * time out in the IEEE model's context (stated with x * y[j],
 * exact_row.c's `added` did not prove: CVC4 timed out at 120 s). */
/*@ logic real mul_real(real x, real y) = x * y; */

#endif
