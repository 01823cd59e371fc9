#include "core/tp_fp16.h"

#include <math.h>
#include <string.h>

double tp_f16_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double v;
    if (exp == 0x1f)
        v = man ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexp((double)man, -24);
    else
        v = ldexp((double)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

uint16_t tp_f16_from_double(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isnan(x))
        return 0x7e00;
    if (a >= 65520.0) /* halfway between 65504 and 2^16 rounds to inf */
        return sign | 0x7c00;
    if (a < 0x1p-14) {
        /* Subnormal range: multiples of 2^-24. a*2^24 < 2^10 is exact;
         * nearbyint rounds ties to even in the default mode. */
        double m = nearbyint(a * 0x1p24);
        return sign | (uint16_t)m; /* m == 1024 becomes the smallest normal */
    }
    int e;
    (void)frexp(a, &e);                    /* a = f * 2^e, 0.5 <= f < 1 */
    double m = nearbyint(ldexp(a, 11 - e)); /* 1024 <= m <= 2048, exact */
    int biased = e - 1 + 15;
    if (m == 2048.0) {
        m = 1024.0;
        biased++;
    }
    if (biased >= 31)
        return sign | 0x7c00;
    return sign | (uint16_t)(biased << 10) | ((uint16_t)m & 0x3ff);
}

uint16_t tp_f16_from_float(float x) { return tp_f16_from_double((double)x); }

int tp_f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
int tp_f16_is_inf(uint16_t h) { return (h & 0x7fff) == 0x7c00; }

uint16_t tp_f16_next_up(uint16_t h)
{
    if (tp_f16_is_nan(h) || h == 0x7c00)
        return h;
    if (h == 0x8000)
        return 0x0001;
    return (h & 0x8000) ? h - 1 : h + 1;
}

uint16_t tp_f16_next_down(uint16_t h)
{
    if (tp_f16_is_nan(h) || h == 0xfc00)
        return h;
    if (h == 0x0000)
        return 0x8001;
    return (h & 0x8000) ? h + 1 : h - 1;
}

double tp_f16_ulp(double x)
{
    double a = fabs(x);
    if (!(a >= 0x1p-14))
        return 0x1p-24;
    if (a >= 65504.0)
        return 32.0;
    int e;
    (void)frexp(a, &e);
    return ldexp(1.0, e - 1 - 10);
}
