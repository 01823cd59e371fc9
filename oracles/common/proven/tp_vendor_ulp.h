/* The binary32 values a vendor's device function may return where the
 * correctly rounded result is c, given its documented maximum error of k
 * ulps (issue 9, item 2: a device function within k vendor ulps of the
 * correctly rounded value), proven (T3, tp_vendor_ulp.c).
 *
 * Values are passed by their ordinals (f32_ord.acsl): the finite binary32
 * values numbered in order, -0x7f7fffff .. 0x7f7fffff, both zeros at 0;
 * for a value >= 0 the ordinal is its bit pattern, so the exponent field
 * and the fraction are read off it. oracles/common/vendor_ulp.h converts
 * floats to ordinals and back (the bit pattern, not proven; checked value
 * by value by tests/test_vendor_ulp.c).
 *
 * The admitted set, for correctly rounded results c anywhere in [lo, hi]
 * (the callers' bracket over their inputs): every binary32 r within k ulps
 * of some c, in either reading (vendor_near): |r - c| <= k ulp(c), ulp(c)
 * the spacing at and above |c| (CUDA's Math API: the error counted against
 * the correctly rounded result, so just below a power of two k ulps reach
 * 2k values down), or r at most k values from c (HIP's ulp_diff). The
 * functions return its least and greatest element: every admitted r lies
 * between them (`sound`), and each is admitted (`attained`), so they are
 * exactly the ends. Past the finite range the end is the infinity
 * (-0x7f800000, 0x7f800000: the ordinals of the patterns of -inf, +inf),
 * and then k values beyond lo (hi) leave the range (`beyond`).
 *
 * Integer arithmetic only: the same results in every rounding mode. */
#ifndef TP_VENDOR_ULP_PROVEN_H
#define TP_VENDOR_ULP_PROVEN_H

#include <stdint.h>

#include "tp_vendor_ulp.acsl"

/* The largest ordinal k may step across (2k values below a power of two
 * stay in the binade under it). */
#define TP_VENDOR_K_MAX 0x400000
#define TP_F32_ORD_MAX 0x7f7fffff
#define TP_F32_ORD_INF 0x7f800000

/*@ requires lo: f32_finite(lo);
  @ requires hi: f32_finite(hi);
  @ requires k: 0 <= k <= 0x400000;
  @ assigns \nothing;
  @ ensures range: \result == -0x7f800000 || f32_finite(\result);
  @ ensures beyond: \result == -0x7f800000 ==> lo - k < -0x7f7fffff;
  @ ensures sound: \forall integer r; vendor_admits(lo, hi, k, r) ==> \result <= r;
  @ ensures attained: f32_finite(\result) ==> f32_vu(lo) <= f32_vu(hi) ==> vendor_admits(lo, hi, k, \result);
  @*/
int32_t tp_vendor_lower_ord(int32_t lo, int32_t hi, int32_t k);

/*@ requires lo: f32_finite(lo);
  @ requires hi: f32_finite(hi);
  @ requires k: 0 <= k <= 0x400000;
  @ assigns \nothing;
  @ ensures range: \result == 0x7f800000 || f32_finite(\result);
  @ ensures beyond: \result == 0x7f800000 ==> hi + k > 0x7f7fffff;
  @ ensures sound: \forall integer r; vendor_admits(lo, hi, k, r) ==> r <= \result;
  @ ensures attained: f32_finite(\result) ==> f32_vu(lo) <= f32_vu(hi) ==> vendor_admits(lo, hi, k, \result);
  @*/
int32_t tp_vendor_upper_ord(int32_t lo, int32_t hi, int32_t k);

#endif
