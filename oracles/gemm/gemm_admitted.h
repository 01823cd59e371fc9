/* One GEMM element's reference from its exact sums, in a header that both
 * op_gemm.c and the GPU element check (oracles/gemm/gemm_check_cuda.cuh)
 * compile, so that both compute it with the same source: the proven
 * tp_sum_bound_rn (oracles/common/proven/tp_sum_bound.c, WP T1+T3) turns
 * the exact sum S = hi + lo and the exact abs sum ahi + alo into a double
 * interval holding every real within e = n*TP_DOT_C*sum|a b| + n*TP_DOT_ETA
 * of S (n = terms: K, or the faithful count of op_gemm.c), and with n = 0
 * the enclosure [exact_lo, exact_hi] of S itself. Round to nearest. */
#ifndef TP_GEMM_ADMITTED_H
#define TP_GEMM_ADMITTED_H
#include "core/tp_hd.h"
#include "core/tp_ieee.h"
#include "core/tp_ref.h"
#include "oracles/common/f16_ends.h"
#include "oracles/common/proven/tp_sum_bound.h"

/* TwoSum (Knuth): s = RN(a + b) and t = a + b - s exactly, in round to
 * nearest without FMA contraction (the library's -ffp-contract=off, the
 * provider's -fmad=false): the normalization every exact pair gets before
 * the bound code sees it (tp_gemm_exact_normalize). */
static inline TP_HD void tp_two_sum(double a, double b, double *s, double *t)
{
    double x = a + b, bb = x - a;
    *t = (a - (x - bb)) + (b - bb);
    *s = x;
}

/* r's exact value and its enclosure, and the double interval [*lo, *hi]
 * of the accumulation bound, before the output rounding. */
static inline TP_HD void tp_gemm_bound(double hi, double lo, double ahi, double alo, double terms, tp_ref *r,
                                       double *blo, double *bhi)
{
    const tp_ival64 v = tp_sum_bound_rn(hi, lo, ahi, alo, terms);
    const tp_ival64 x = tp_sum_bound_rn(hi, lo, 0.0, 0.0, 0.0);
    r->exact = hi + lo;
    r->exact_lo = x.lo;
    r->exact_hi = x.hi;
    *blo = v.lo;
    *bhi = v.hi;
}

/* The admitted binary16 outputs: the proven ends (oracles/common/f16_ends.h,
 * tp_f16_round.c, T3) below and above every RN16(s) of an s in [blo, bhi]:
 * RN16(blo) and RN16(bhi), ties to even included. */
static inline TP_HD void tp_gemm_admit_f16(double blo, double bhi, tp_ref *r)
{
    r->allow_lo = tp_f16_lower(blo);
    r->allow_hi = tp_f16_upper(bhi);
}

#endif
