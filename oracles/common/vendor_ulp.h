/* The binary32 values a vendor's device function may return where the
 * correctly rounded result is c, given its documented maximum error of k
 * ulps. CUDA's Math API states the error as the difference, in ulps,
 * between the correctly rounded result and the returned one. Read with the
 * ulp of c, ulp(c) = the spacing of binary32 values at and above |c|
 * (2^-149 below 2^-125), k ulps below c = 2^e reach 2k binary32 steps
 * down: at a power of two the ulp is the larger of the two neighbouring
 * spacings, and k nextafterf steps (what the ops counted before) admit
 * only half of that. Read as a count of binary32 values between the two
 * (the HIP documentation's ulp_diff), k ulps are k nextafterf steps, which
 * reach further than k ulp(c) above a c just below a power of two. The
 * admitted set is the union of both readings: every binary32 r with
 * |r - c| <= k ulp(c) or within k steps of c, for some correctly rounded c
 * in [lo, hi] (the callers' bracket of the correctly rounded results over
 * their inputs). Not proven (issue 9 asks for a proven primitive);
 * tests/test_vendor_ulp.c checks it against both definitions, value by
 * value. */
#ifndef TP_VENDOR_ULP_H
#define TP_VENDOR_ULP_H

#include <float.h>
#include <math.h>

/* ulp(c) as above, for finite c: exact in double. */
static inline double tp_vendor_ulp(float c)
{
    const float a = fabsf(c);
    return a < 0x1p-125f ? 0x1p-149 : ldexp(1.0, ilogbf(a) - 23);
}

/* The least binary32 >= v (v finite in double, |v| < 2^129); +-inf beyond
 * the binary32 range. Mode-independent: the cast gives a neighbour of v in
 * any rounding mode, the test moves it to the right one. */
static inline float tp_vendor_f32_ceil(double v)
{
    float f = (float)v;
    if ((double)f < v)
        f = nextafterf(f, INFINITY);
    return f;
}

static inline float tp_vendor_f32_floor(double v)
{
    float f = (float)v;
    if ((double)f > v)
        f = nextafterf(f, -INFINITY);
    return f;
}

/* k binary32 steps from v toward `toward`. */
static inline float tp_vendor_steps(float v, int k, float toward)
{
    for (int i = 0; i < k; i++)
        v = nextafterf(v, toward);
    return v;
}

/* The least admitted value: the lesser of k steps below lo (steps are
 * monotone in c) and the min over c in [lo, hi] of c - k ulp(c). On the
 * negatives, and between powers of two, c - k ulp(c) increases with c; at
 * a positive power of two P it drops (P - 2k ulp(c') for the c' just below
 * P): so that minimum is at lo, or at the least power of two above lo when
 * it is in [lo, hi] (the next power of two up gives a larger value, for
 * k < 2^23). Finite lo <= hi; a NaN or infinite end is returned as is.
 * Beyond the binary32 range the end is -inf, as far as nextafterf goes. */
static inline float tp_vendor_lower(float lo, float hi, int k)
{
    if (!isfinite(lo) || !isfinite(hi))
        return lo;
    double m = (double)lo - k * tp_vendor_ulp(lo);
    if (lo >= 0.0f) {
        const double p = lo < 0x1p-125f ? 0x1p-125 : ldexp(1.0, ilogbf(lo) + 1);
        if (p <= (double)hi) {
            const double mp = p - k * tp_vendor_ulp((float)p);
            m = mp < m ? mp : m;
        }
    }
    const float by_ulp = m < -(double)FLT_MAX ? -INFINITY : tp_vendor_f32_ceil(m);
    const float by_steps = tp_vendor_steps(lo, k, -INFINITY);
    return by_ulp < by_steps ? by_ulp : by_steps;
}

/* The greatest admitted value: the mirror image (c -> -c). */
static inline float tp_vendor_upper(float lo, float hi, int k)
{
    if (!isfinite(lo) || !isfinite(hi))
        return hi;
    double m = (double)hi + k * tp_vendor_ulp(hi);
    if (hi <= 0.0f) {
        const float ah = -hi;
        const double p = ah < 0x1p-125f ? 0x1p-125 : ldexp(1.0, ilogbf(ah) + 1);
        if (p <= -(double)lo) {
            const double mp = -p + k * tp_vendor_ulp((float)p);
            m = mp > m ? mp : m;
        }
    }
    const float by_ulp = m > (double)FLT_MAX ? INFINITY : tp_vendor_f32_floor(m);
    const float by_steps = tp_vendor_steps(hi, k, INFINITY);
    return by_ulp > by_steps ? by_ulp : by_steps;
}

#endif
