/* RN(v 2^-48) to double (ties to even) for a 128-bit integer v, by hand:
 * the 53 leading bits of |v| rounded, then an exact scaling. The GEMM
 * tests sum binary16 products as integers times 2^-48 and compare the
 * reference's exact values with this. Header-only: one test per TU. */
#ifndef TESTS_RN_UNITS48_H
#define TESTS_RN_UNITS48_H
#include <math.h>
#include <stdint.h>

static double rn_units48(__int128 v)
{
    int neg = v < 0;
    unsigned __int128 m = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    int bits = 0;
    while (m >> bits)
        bits++;
    int s = bits > 53 ? bits - 53 : 0;
    unsigned __int128 q = m >> s, rem = m - (q << s), half = s ? (unsigned __int128)1 << (s - 1) : 0;
    if (s && (rem > half || (rem == half && (q & 1))))
        q++;
    double d = ldexp((double)(uint64_t)q, s - 48); /* q <= 2^53: exact */
    return neg ? -d : d;
}
#endif
