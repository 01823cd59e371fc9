/* The relative constant of the any-order fp32 sum bound for sums longer
 * than the 65536 terms TP_DOT_C (oracles/gemm/proven/gemm.h) is derived
 * for.
 *
 * An fp32 sum of n terms in any order (any tree), each term exact or the
 * one rounding of a product, puts every term through at most n roundings,
 * each with relative error <= u = 2^-24; so |s - S| <= gamma_n sum|t| +
 * n*2^-149 with gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability,
 * Lemma 3.1 and 3.3). The absolute part: only a product can underflow
 * (additions of floats that land among subnormals are exact), with error
 * <= 2^-150, carried through the later roundings by a factor <= (1 + u)^n
 * < 2 for n u <= 1/8: 2^-149 per term, TP_DOT_ETA, at every n below.
 *
 * The relative part is n * C(n) with C(n) >= u / (1 - n u):
 *   n <= 65536 = 2^16:  u / (1 - 2^-8) < 2^-24 (1 + 2^-7) = TP_DOT_C
 *                       (gemm.h; the constant every recorded result used);
 *   n <= 2^21:          u / (1 - 2^-3) = u * 8/7 = u * 1.142857...
 *                       < 2^-24 * 0x1.25 = u * 1.14453125 = TP_SUM_C_WIDE.
 * tp_sum_c(n) picks the first that holds, so every bound at n <= 65536 is
 * the one it was (recorded results replay byte for byte) and longer sums
 * get a constant derived for their length. Not WP-proven (the T3 proof of
 * oracles/common/proven/dot_fp32.c covers n <= 65536 with TP_DOT_C); tests
 * check emulated sums of up to 2^20 terms against it. */
#ifndef TP_SUM_C_H
#define TP_SUM_C_H

#include "oracles/gemm/proven/gemm.h" /* TP_DOT_C, TP_DOT_ETA */

/* The longest sum tp_sum_c covers. */
#define TP_SUM_N_MAX 2097152

/* C(n) for 65536 < n <= TP_SUM_N_MAX (derivation above). */
#define TP_SUM_C_WIDE 0x1.25p-24

/* C(n) for 0 <= n <= TP_SUM_N_MAX (the caller refuses longer sums). */
static inline double tp_sum_c(long long n) { return n <= 65536 ? TP_DOT_C : TP_SUM_C_WIDE; }

#endif
