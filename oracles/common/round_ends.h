/* The ends of an admitted interval after a rounding to nearest even in a
 * number format: the least and the greatest result that rounding any real
 * of [lo, hi] can give. What every op's output rounding to nearest, and each
 * intermediate rounding its model names, goes through.
 *
 * binary16: the proven ends (oracles/common/f16_ends.h,
 * oracles/common/proven/tp_f16_round.c, T3). bfloat16: the proven ends
 * (oracles/common/bf16_ends.h, oracles/common/proven/tp_bf16_round.c,
 * T3). binary32: the proven ends of oracles/common/proven/tp_f32_round.c
 * (T3) for finite ends within the binary32 range in round-to-nearest (C's
 * conversion is RN32 only there); elsewhere the codec's rounding of each
 * end (core/tp_format.h): sound because rounding to nearest is monotone
 * and the codec's rounding agrees with MPFR's (tests/test_format.c); not
 * proven. Both give the same value (tests/test_f16_round.c,
 * tests/test_bf16_round.c). */
#ifndef TP_ROUND_ENDS_H
#define TP_ROUND_ENDS_H
#include "core/tp_format.h"
#include "oracles/common/bf16_ends.h"
#include "oracles/common/f16_ends.h"
#include "oracles/common/proven/tp_f32_round.h"

#include <fenv.h>
#include <float.h>
#include <math.h>

/* tp_f32_round.h's requires, and the rounding mode its proof assumes. */
static inline int tp_f32_ends_apply(double b)
{
    return fabs(b) <= (double)FLT_MAX && fegetround() == FE_TONEAREST;
}

/* The least result in format f of rounding a real >= lo. */
static inline double tp_round_lower(const tp_format *f, double lo)
{
    if (f->dtype == TP_F16)
        return tp_f16_lower(lo);
    if (f->dtype == TP_BF16)
        return tp_bf16_lower(lo);
    if (f->dtype == TP_F32 && tp_f32_ends_apply(lo))
        return tp_f32_lower_end(lo);
    return f->round(lo);
}

/* The greatest result in format f of rounding a real <= hi. */
static inline double tp_round_upper(const tp_format *f, double hi)
{
    if (f->dtype == TP_F16)
        return tp_f16_upper(hi);
    if (f->dtype == TP_BF16)
        return tp_bf16_upper(hi);
    if (f->dtype == TP_F32 && tp_f32_ends_apply(hi))
        return tp_f32_upper_end(hi);
    return f->round(hi);
}

#endif
