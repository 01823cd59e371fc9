/* The binary16 ends of an admitted interval, as doubles, from the proven
 * tp_f16_lower_end / tp_f16_upper_end (oracles/common/proven/tp_f16_round.h),
 * and the binary16 ceiling and floor of a real bound from the proven
 * tp_f16_ceil_end / tp_f16_floor_end.
 * Every op's rounding to nearest of an admitted interval to binary16 calls them, through
 * oracles/common/round_ends.h, and op gemm's directly
 * (oracles/gemm/gemm_admitted.h, on the CPU and in the GPU element check).
 * Kept out of the proven header: the candidate patterns come from the
 * codec of core/tp_ieee.h (encode, next_up, next_down), tested, not proven
 * (every pattern, tests/test_fp16.c), whose bit manipulations WP would
 * otherwise try; the values of finite patterns come from the proven
 * decoder (f16_decode.h), which gives the proofs' `requires` on vc, vp and
 * vs. */
#ifndef TP_F16_ENDS_H
#define TP_F16_ENDS_H
#include "core/tp_hd.h"
#include "core/tp_ieee.h"
#include "oracles/common/f16_decode.h"
#include "oracles/common/proven/tp_f16_round.h"

#include <math.h>
#include <stdint.h>

/* The lower end itself, as a double (-inf, a binary16 value, or +inf):
 * the candidate is the codec's round to nearest even of blo, which the
 * proof confirms on the first try, ties included (tests/test_f16_round.c
 * checks every cell boundary); were the codec wrong, the loop would go on
 * to the neighbour below, down to the most negative finite pattern, which
 * is always confirmed. Every finite end returned is one that
 * tp_f16_lower_end confirmed, every infinite one one its flags prove. */
static inline TP_HD double tp_f16_lower(double blo)
{
    if (!(blo > -(double)INFINITY && blo < (double)INFINITY))
        return blo; /* the proof needs a finite end: an infinite one stays, a NaN one (no admitted value) too */
    uint32_t c = tp_ieee_encode(blo, 5, 10);
    for (;;) {
        const double vc = tp_f16_decode_any(c), vp = tp_f16_decode_any(tp_ieee_next_down(c, 5, 10));
        const tp_f16_end e = tp_f16_lower_end(blo, (int)c, vc, vp, (vp + vc) * 0.5);
        if (e.confirmed)
            return e.inf < 0 ? -(double)INFINITY : e.inf > 0 ? (double)INFINITY : e.v;
        c = tp_ieee_next_down(c, 5, 10);
    }
}

/* The upper end, the mirror image. */
static inline TP_HD double tp_f16_upper(double bhi)
{
    if (!(bhi > -(double)INFINITY && bhi < (double)INFINITY))
        return bhi;
    uint32_t c = tp_ieee_encode(bhi, 5, 10);
    for (;;) {
        const double vc = tp_f16_decode_any(c), vs = tp_f16_decode_any(tp_ieee_next_up(c, 5, 10));
        const tp_f16_end e = tp_f16_upper_end(bhi, (int)c, vc, vs, (vc + vs) * 0.5);
        if (e.confirmed)
            return e.inf < 0 ? -(double)INFINITY : e.inf > 0 ? (double)INFINITY : e.v;
        c = tp_ieee_next_up(c, 5, 10);
    }
}

/* The least binary16 value >= x (+inf above 65504; x itself when not
 * finite), confirmed by the proven tp_f16_ceil_end: the candidate is the
 * codec's rounding of x (clamped to the finite patterns), and the loop
 * moves it up while its value is below x and down while its
 * predecessor's is not; with a right codec it ends within two tries. */
static inline TP_HD double tp_f16_ceil(double x)
{
    if (!(x > -(double)INFINITY && x < (double)INFINITY))
        return x;
    uint32_t c = tp_ieee_encode(x, 5, 10);
    if (tp_ieee_is_inf(c, 5, 10))
        c = x > 0 ? 0x7bff : 0xfbff;
    for (;;) {
        const double vc = tp_f16_decode_any(c), vp = tp_f16_decode_any(tp_ieee_next_down(c, 5, 10));
        const tp_f16_end e = tp_f16_ceil_end(x, (int)c, vc, vp);
        if (e.confirmed)
            return e.inf > 0 ? (double)INFINITY : e.v;
        c = vc < x ? tp_ieee_next_up(c, 5, 10) : tp_ieee_next_down(c, 5, 10);
    }
}

/* The greatest binary16 value <= x, the mirror image (-inf below -65504). */
static inline TP_HD double tp_f16_floor(double x)
{
    if (!(x > -(double)INFINITY && x < (double)INFINITY))
        return x;
    uint32_t c = tp_ieee_encode(x, 5, 10);
    if (tp_ieee_is_inf(c, 5, 10))
        c = x > 0 ? 0x7bff : 0xfbff;
    for (;;) {
        const double vc = tp_f16_decode_any(c), vs = tp_f16_decode_any(tp_ieee_next_up(c, 5, 10));
        const tp_f16_end e = tp_f16_floor_end(x, (int)c, vc, vs);
        if (e.confirmed)
            return e.inf < 0 ? -(double)INFINITY : e.v;
        c = vc > x ? tp_ieee_next_down(c, 5, 10) : tp_ieee_next_up(c, 5, 10);
    }
}

#endif
