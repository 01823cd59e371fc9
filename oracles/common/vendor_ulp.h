/* The binary32 values a vendor's device function may return where the
 * correctly rounded result is c, given its documented maximum error of k
 * ulps, for every correctly rounded c in [lo, hi] (the callers' bracket of
 * the correctly rounded results over their inputs). The ends are computed
 * by the proven tp_vendor_lower_ord / tp_vendor_upper_ord
 * (oracles/common/proven/tp_vendor_ulp.c, T3), which says what is
 * admitted: every binary32 r with |r - c| <= k ulp(c), ulp(c) the spacing
 * of binary32 values at and above |c| (CUDA's Math API counts the error
 * against the correctly rounded result: at a power of two the ulp is the
 * larger of the two neighbouring spacings, so k ulps below c = 2^e reach
 * 2k binary32 values down), or at most k binary32 values away from c (the
 * HIP documentation's ulp_diff, which reaches further than k ulp(c) above
 * a c just below a power of two); the ends are the least and the greatest
 * such r, proven to be attained.
 *
 * What is not proven is this file: the step between a float and its
 * ordinal (the bit pattern for a value >= 0, minus the pattern of -value
 * below 0), which is the definition of binary32's encoding that
 * f32_ord.acsl states; tests/test_vendor_ulp.c checks the whole against
 * both readings, value by value. Integer arithmetic only: the same ends in
 * every rounding mode (layernorm_model.c calls it in FE_UPWARD). */
#ifndef TP_VENDOR_ULP_H
#define TP_VENDOR_ULP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "oracles/common/proven/tp_vendor_ulp.h"

/* The ordinal of a finite binary32 value (both zeros at 0). */
static inline int32_t tp_vendor_f32_ord(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 31) ? -(int32_t)(u & 0x7fffffffu) : (int32_t)u;
}

/* The binary32 value of an ordinal in [-0x7f800000, 0x7f800000]: the
 * extreme ordinals are the infinities; 0 is +0. */
static inline float tp_vendor_f32_of_ord(int32_t o)
{
    const uint32_t u = o < 0 ? 0x80000000u | (uint32_t)(-(int64_t)o) : (uint32_t)o;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The least admitted value; -inf beyond the binary32 range. A NaN or
 * infinite end is returned as is; a k outside the proof's range (0 ..
 * TP_VENDOR_K_MAX) admits everything below. A zero end has the sign that
 * k nextafterf steps from lo give it (-0 only from lo = -0 with k = 0), as
 * before the proven primitive: later interval arithmetic may see the sign
 * of a zero (a division), so the ends stay the same bits. */
static inline float tp_vendor_lower(float lo, float hi, int k)
{
    if (!isfinite(lo) || !isfinite(hi))
        return lo;
    if (k < 0 || k > TP_VENDOR_K_MAX)
        return -INFINITY;
    const float r = tp_vendor_f32_of_ord(tp_vendor_lower_ord(tp_vendor_f32_ord(lo), tp_vendor_f32_ord(hi), k));
    return r == 0.0f && signbit(lo) ? -0.0f : r;
}

/* The greatest admitted value; +inf beyond the binary32 range. A zero
 * end is -0 when reached from a hi with its sign bit set (steps up from a
 * negative value end at -0). */
static inline float tp_vendor_upper(float lo, float hi, int k)
{
    if (!isfinite(lo) || !isfinite(hi))
        return hi;
    if (k < 0 || k > TP_VENDOR_K_MAX)
        return INFINITY;
    const float r = tp_vendor_f32_of_ord(tp_vendor_upper_ord(tp_vendor_f32_ord(lo), tp_vendor_f32_ord(hi), k));
    return r == 0.0f && signbit(hi) ? -0.0f : r;
}

#endif
