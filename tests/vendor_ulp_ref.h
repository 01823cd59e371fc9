/* The two readings of "within k ulps of the correctly rounded c" that
 * oracles/common/vendor_ulp.h admits, written from their definitions for
 * the tests to check it against: |r - c| <= k ulp(c), ulp(c) read off c's
 * exponent field (the spacing at and above |c|), or r at most k binary32
 * values away from c in the order of values. */
#ifndef TP_TESTS_VENDOR_ULP_REF_H
#define TP_TESTS_VENDOR_ULP_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline double ref_ulp(float c)
{
    uint32_t u;
    memcpy(&u, &c, 4);
    const int e = (int)((u >> 23) & 0xff);
    return ldexp(1.0, (e ? e : 1) - 150);
}

/* The position of a binary32 value in the order of values (-0 = +0). */
static inline int64_t ref_ord(float f)
{
    int32_t i;
    memcpy(&i, &f, 4);
    return i < 0 ? -(int64_t)(i & 0x7fffffff) : (int64_t)i;
}

/* r within k ulps of c, either reading (r - c is exact in double for
 * binary32 values). */
static inline int ref_within_ulps(float r, float c, int k)
{
    const int64_t d = ref_ord(r) - ref_ord(c);
    return fabs((double)r - (double)c) <= k * ref_ulp(c) || (d <= k && -d <= k);
}

#endif
