/* The ends of an admitted interval after a rounding to nearest even in a
 * number format: the least and the greatest result that rounding any real
 * of [lo, hi] can give. What every op's output rounding to nearest, and each
 * intermediate rounding its model names, goes through.
 *
 * binary16: the proven ends (oracles/common/f16_ends.h,
 * oracles/common/proven/tp_f16_round.c, T3). bfloat16 and binary32: the
 * codec's rounding of each end (core/tp_format.h): sound because rounding
 * to nearest is monotone and the codec's rounding agrees with MPFR's
 * (tests/test_format.c); not proven. */
#ifndef TP_ROUND_ENDS_H
#define TP_ROUND_ENDS_H
#include "core/tp_format.h"
#include "oracles/common/f16_ends.h"

/* The least result in format f of rounding a real >= lo. */
static inline double tp_round_lower(const tp_format *f, double lo)
{
    return f->dtype == TP_F16 ? tp_f16_lower(lo) : f->round(lo);
}

/* The greatest result in format f of rounding a real <= hi. */
static inline double tp_round_upper(const tp_format *f, double hi)
{
    return f->dtype == TP_F16 ? tp_f16_upper(hi) : f->round(hi);
}

#endif
