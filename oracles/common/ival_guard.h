/* The `requires` of the proven binary32 interval primitives
 * (oracles/common/proven/tp_ival.h, tp_ival_mul.h, tp_ival_div.h,
 * tp_ival_fma.h), checked
 * before a call:
 * an op calls a primitive only where these hold and keeps its own
 * evaluation elsewhere (special values, ends out of range). Each check is
 * conservative: a product of two binary32 values is exact in double, and
 * ends of magnitude at most 2^126 cannot sum or differ beyond the binary32
 * range. */
#ifndef TP_IVAL_GUARD_H
#define TP_IVAL_GUARD_H
#include "oracles/common/proven/tp_ival.h"
#include "oracles/common/proven/tp_ival_div.h"
#include "oracles/common/proven/tp_ival_fma.h"

#include <fenv.h>
#include <float.h>
#include <math.h>

/* WP's model has every C float operation round to nearest: the proofs say
 * nothing about a call made while an op has set a directed rounding mode
 * for its own host arithmetic (fesetround), so every check below refuses
 * then, and the op keeps its own evaluation. */
static inline int tp_ival32_rn(void) { return fegetround() == FE_TONEAREST; }

/* ival32_ok: finite ends, lo <= hi. */
static inline int tp_ival32_ok(tp_ival32 a) { return isfinite(a.lo) && isfinite(a.hi) && a.lo <= a.hi; }

static inline int tp_ival32_small(tp_ival32 a) { return fabsf(a.lo) <= 0x1p126f && fabsf(a.hi) <= 0x1p126f; }

/* tp_ival32_add's and tp_ival32_sub's requires. */
static inline int tp_ival32_addsub_ok(tp_ival32 a, tp_ival32 b)
{
    return tp_ival32_rn() && tp_ival32_ok(a) && tp_ival32_ok(b) && tp_ival32_small(a) && tp_ival32_small(b);
}

/* tp_ival32_mul's requires: the four corner products within the range. */
static inline int tp_ival32_mul_ok(tp_ival32 a, tp_ival32 b)
{
    return tp_ival32_rn() && tp_ival32_ok(a) && tp_ival32_ok(b) && fabs((double)a.lo * b.lo) <= FLT_MAX &&
           fabs((double)a.lo * b.hi) <= FLT_MAX && fabs((double)a.hi * b.lo) <= FLT_MAX &&
           fabs((double)a.hi * b.hi) <= FLT_MAX;
}

/* tp_ival32_div's requires: a positive divisor, the four corner quotients
 * within the range. Each quotient is formed in double, one rounding from
 * the exact one (the operands are binary32: no double overflow or
 * underflow), so 2^127 leaves room for that rounding below FLT_MAX. */
static inline int tp_ival32_div_ok(tp_ival32 a, tp_ival32 b)
{
    if (!(tp_ival32_rn() && tp_ival32_ok(a) && tp_ival32_ok(b) && b.lo > 0.0f))
        return 0;
    const double m = fabs((double)a.lo) > fabs((double)a.hi) ? fabs((double)a.lo) : fabs((double)a.hi);
    return m / b.lo <= 0x1p127;
}

/* tp_ival32_fma's requires: the eight corner results a_i b_j + c_k within
 * the range (each product is exact in double and at most 2^126, c's ends
 * too, so no sum reaches it). */
static inline int tp_ival32_fma_ok(tp_ival32 a, tp_ival32 b, tp_ival32 c)
{
    return tp_ival32_rn() && tp_ival32_ok(a) && tp_ival32_ok(b) && tp_ival32_ok(c) && tp_ival32_small(c) &&
           fabs((double)a.lo * b.lo) <= 0x1p126 && fabs((double)a.lo * b.hi) <= 0x1p126 &&
           fabs((double)a.hi * b.lo) <= 0x1p126 && fabs((double)a.hi * b.hi) <= 0x1p126;
}

#endif
