/* IEEE 754 binary interchange formats of at most 32 bits, parameterised by
 * the exponent width E and the fraction width F of their storage:
 * binary16 (E = 5, F = 10), bfloat16 (8, 7), binary32 (8, 23). One
 * implementation serves all three (core/tp_fp16.c and core/tp_format.c
 * instantiate it with constant widths, so the compiler specialises it).
 *
 * Written by hand: no Debian library offers binary16 or bfloat16 codecs
 * for C (gcc's _Float16 converts in the caller's rounding mode and exists
 * only on some targets; Debian 12's gcc 12 has no __bf16 in C), and MPFR,
 * which has the rounding, is far too slow for the checker's inner loops.
 * MPFR is the reference the tests compare against (tests/test_fp16.c,
 * tests/test_format.c).
 *
 * Independent of the caller's rounding mode: encoding rounds with integer
 * arithmetic on the double's bits, and the only floating-point operations
 * used (integer to double conversions of at most 53 bits, ldexp, frexp and
 * fabs on values inside the double range) are exact, so no rounding mode
 * can change a result. The library is built with -frounding-math and the
 * ops switch modes for outward rounding; these helpers give the same bits
 * in every mode (tests/test_format.c checks all four). */
#ifndef TP_IEEE_H
#define TP_IEEE_H
#include "core/tp_hd.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline TP_HD uint32_t tp_ieee_sign_bit(int E, int F) { return (uint32_t)1 << (E + F); }
static inline TP_HD uint32_t tp_ieee_inf_bits(int E, int F) { return (((uint32_t)1 << E) - 1) << F; }
static inline TP_HD int tp_ieee_bias(int E) { return (1 << (E - 1)) - 1; }

static inline TP_HD int tp_ieee_is_nan(uint32_t h, int E, int F)
{
    uint32_t inf = tp_ieee_inf_bits(E, F);
    return (h & inf) == inf && (h & (((uint32_t)1 << F) - 1)) != 0;
}

static inline TP_HD int tp_ieee_is_inf(uint32_t h, int E, int F)
{
    return (h & ~tp_ieee_sign_bit(E, F)) == tp_ieee_inf_bits(E, F);
}

/* 2^n for -1022 <= n <= 1023 (a normal double), from its bits: the
 * decoders below multiply by it instead of calling ldexp, which was a
 * tenth of a GEMM check's time; a product of an integer below 2^24 by
 * such a power of two is exact in every rounding mode. */
static inline TP_HD double tp_ieee_pow2(int n)
{
    const uint64_t b = (uint64_t)(n + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* The exact value of a pattern (a NaN pattern gives a quiet NaN carrying
 * the pattern's sign). */
static inline TP_HD double tp_ieee_decode(uint32_t h, int E, int F)
{
    const int bias = tp_ieee_bias(E);
    const uint32_t frac = h & (((uint32_t)1 << F) - 1), ef = (h >> F) & (((uint32_t)1 << E) - 1);
    double v;
    if (ef == ((uint32_t)1 << E) - 1)
        v = frac ? NAN : INFINITY;
    else if (ef == 0)
        v = (double)frac * tp_ieee_pow2(1 - bias - F); /* subnormal: frac * 2^(emin - F) */
    else
        v = (double)(frac | (uint32_t)1 << F) * tp_ieee_pow2((int)ef - bias - F);
    return (h & tp_ieee_sign_bit(E, F)) ? -v : v;
}

/* x rounded to the format: to nearest, ties to even, with gradual
 * underflow (subnormals) and overflow to infinity for |x| >= the midpoint
 * between the largest finite value and 2^(emax+1), the sign of zero kept;
 * NaN gives the quiet NaN with the sign bit clear. Exact for every double
 * input: there is no intermediate rounding. */
static inline TP_HD uint32_t tp_ieee_encode(double x, int E, int F)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    const uint32_t sign = (b >> 63) ? tp_ieee_sign_bit(E, F) : 0, inf = tp_ieee_inf_bits(E, F);
    const uint64_t a = b & 0x7fffffffffffffffULL;
    if (a >= 0x7ff0000000000000ULL)
        return a == 0x7ff0000000000000ULL ? sign | inf : inf | (uint32_t)1 << (F - 1);
    if (a == 0)
        return sign;
    /* |x| = M * 2^(de - 1075), M < 2^53; its binade 2^e with e = de - 1023
     * (double subnormals lie far below every format here). */
    int de = (int)(a >> 52);
    uint64_t M = a & ((1ULL << 52) - 1);
    if (de)
        M |= 1ULL << 52;
    else
        de = 1;
    const int bias = tp_ieee_bias(E), emin = 1 - bias, e = de - 1023;
    /* the format's spacing at this magnitude is 2^qe; keep M / 2^shift */
    const int qe = (e > emin ? e : emin) - F, shift = qe - (de - 1075); /* shift >= 52 - F > 0 */
    uint64_t r = 0;
    if (shift < 64) {
        const uint64_t rem = M & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
        r = M >> shift;
        if (rem > half || (rem == half && (r & 1)))
            r++;
    } /* else M < 2^53 <= half the spacing: rounds to zero */
    /* r * 2^qe as a pattern: (qe - qmin) << F + r, qmin = emin - F. For a
     * subnormal result that is r itself; for a normal one the implicit bit
     * of r adds one to the exponent field, and a carry of r into 2^(F+1)
     * moves to the next binade, through to the infinity pattern. */
    const uint64_t p = ((uint64_t)(qe - (emin - F)) << F) + r;
    return p >= inf ? sign | inf : sign | (uint32_t)p;
}

/* Neighbours in the format's order (-inf .. -0 +0 .. +inf): +inf for
 * next_up (-inf for next_down) and NaN patterns are returned unchanged;
 * both zeros step to the smallest subnormal of the direction. */
static inline TP_HD uint32_t tp_ieee_next_up(uint32_t h, int E, int F)
{
    const uint32_t s = tp_ieee_sign_bit(E, F);
    if (tp_ieee_is_nan(h, E, F) || h == tp_ieee_inf_bits(E, F))
        return h;
    if (h == s)
        return 1;
    return (h & s) ? h - 1 : h + 1;
}

static inline TP_HD uint32_t tp_ieee_next_down(uint32_t h, int E, int F)
{
    const uint32_t s = tp_ieee_sign_bit(E, F);
    if (tp_ieee_is_nan(h, E, F) || h == (s | tp_ieee_inf_bits(E, F)))
        return h;
    if (h == 0)
        return s | 1;
    return (h & s) ? h + 1 : h - 1;
}

/* Unit in the last place at magnitude |x|: 2^(max(e, emin) - F) where
 * 2^e <= |x| < 2^(e+1); the subnormal spacing at zero (and for NaN); the
 * spacing of the last finite binade for |x| at or above the largest
 * finite value (infinity included). */
static inline TP_HD double tp_ieee_ulp(double x, int E, int F)
{
    const int bias = tp_ieee_bias(E), emin = 1 - bias;
    const double a = fabs(x);
    if (!(a >= tp_ieee_pow2(emin)))
        return tp_ieee_pow2(emin - F);
    if (a >= (2.0 - tp_ieee_pow2(-F)) * tp_ieee_pow2(bias))
        return tp_ieee_pow2(bias - F);
    uint64_t b;
    memcpy(&b, &a, sizeof b);
    const int e = (int)(b >> 52) - 1023; /* a is a normal double: 2^e <= a < 2^(e+1) */
    return tp_ieee_pow2(e - F);
}

#endif
