/* The bfloat16 ends of an admitted interval, as doubles, from the proven
 * tp_bf16_lower_end / tp_bf16_upper_end (oracles/common/proven/
 * tp_bf16_round.h). Every op's rounding to nearest of an admitted interval
 * to bfloat16 calls them, through oracles/common/round_ends.h. Kept out of
 * the proven header for the reason f16_ends.h is: the codec of
 * core/tp_ieee.h it calls is tested, not proven (every pattern,
 * tests/test_bf16_round.c). */
#ifndef TP_BF16_ENDS_H
#define TP_BF16_ENDS_H
#include "core/tp_hd.h"
#include "core/tp_ieee.h"
#include "oracles/common/proven/tp_bf16_round.h"

#include <math.h>
#include <stdint.h>

/* The lower end itself, as a double (-inf, a bfloat16 value, or +inf):
 * the candidate is the codec's round to nearest even of blo, which the
 * proof confirms on the first try; were the codec wrong, the loop would go
 * on to the neighbour below, down to the most negative finite pattern,
 * which is always confirmed. Every finite end returned is one that
 * tp_bf16_lower_end confirmed, every infinite one one its flags prove. */
static inline TP_HD double tp_bf16_lower(double blo)
{
    if (!(blo > -(double)INFINITY && blo < (double)INFINITY))
        return blo; /* the proof needs a finite end: an infinite one stays, a NaN one (no admitted value) too */
    uint32_t c = tp_ieee_encode(blo, 8, 7);
    for (;;) {
        const double vc = tp_ieee_decode(c, 8, 7), vp = tp_ieee_decode(tp_ieee_next_down(c, 8, 7), 8, 7);
        const tp_bf16_end e = tp_bf16_lower_end(blo, (int)c, vc, vp, (vp + vc) * 0.5);
        if (e.confirmed)
            return e.inf < 0 ? -(double)INFINITY : e.inf > 0 ? (double)INFINITY : e.v;
        c = tp_ieee_next_down(c, 8, 7);
    }
}

/* The upper end, the mirror image. */
static inline TP_HD double tp_bf16_upper(double bhi)
{
    if (!(bhi > -(double)INFINITY && bhi < (double)INFINITY))
        return bhi;
    uint32_t c = tp_ieee_encode(bhi, 8, 7);
    for (;;) {
        const double vc = tp_ieee_decode(c, 8, 7), vs = tp_ieee_decode(tp_ieee_next_up(c, 8, 7), 8, 7);
        const tp_bf16_end e = tp_bf16_upper_end(bhi, (int)c, vc, vs, (vc + vs) * 0.5);
        if (e.confirmed)
            return e.inf < 0 ? -(double)INFINITY : e.inf > 0 ? (double)INFINITY : e.v;
        c = tp_ieee_next_up(c, 8, 7);
    }
}

#endif
