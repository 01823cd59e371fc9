/* The binary16 ends of an admitted interval, as doubles, from the proven
 * tp_f16_lower_end / tp_f16_upper_end (oracles/common/proven/tp_f16_round.h):
 * what an op's output rounding calls. Kept out of the proven header: the
 * codec of core/tp_ieee.h it calls is tested, not proven (every pattern,
 * tests/test_fp16.c), and WP would otherwise try its bit manipulations. */
#ifndef TP_F16_ENDS_H
#define TP_F16_ENDS_H
#include "core/tp_hd.h"
#include "core/tp_ieee.h"
#include "oracles/common/proven/tp_f16_round.h"

#include <math.h>
#include <stdint.h>

/* The lower end itself, as a double (-inf, a binary16 value, or +inf):
 * the candidate from the unproven codec, then its neighbour below while
 * the proof cannot confirm it (at an exact tie only, so at most one step
 * in practice; the loop ends at the most negative finite pattern, which
 * is always confirmed). Every end returned is one that tp_f16_lower_end
 * confirmed, or an infinite one its flags prove. */
static inline TP_HD double tp_f16_lower(double blo)
{
    uint32_t c = tp_ieee_encode(blo, 5, 10);
    for (;;) {
        const double vc = tp_ieee_decode(c, 5, 10), vp = tp_ieee_decode(tp_ieee_next_down(c, 5, 10), 5, 10);
        const tp_f16_end e = tp_f16_lower_end(blo, (int)c, vc, vp);
        if (e.confirmed)
            return e.inf < 0 ? -(double)INFINITY : e.inf > 0 ? (double)INFINITY : e.v;
        c = tp_ieee_next_down(c, 5, 10);
    }
}

/* The upper end, the mirror image. */
static inline TP_HD double tp_f16_upper(double bhi)
{
    uint32_t c = tp_ieee_encode(bhi, 5, 10);
    for (;;) {
        const double vc = tp_ieee_decode(c, 5, 10), vs = tp_ieee_decode(tp_ieee_next_up(c, 5, 10), 5, 10);
        const tp_f16_end e = tp_f16_upper_end(bhi, (int)c, vc, vs);
        if (e.confirmed)
            return e.inf < 0 ? -(double)INFINITY : e.inf > 0 ? (double)INFINITY : e.v;
        c = tp_ieee_next_up(c, 5, 10);
    }
}

#endif
