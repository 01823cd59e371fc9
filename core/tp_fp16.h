/* IEEE binary16 codec: the binary16 instance of core/tp_ieee.h (written by
 * hand: no Debian library offers a binary16 codec in C), also reachable as
 * the descriptor tp_binary16 of core/tp_format.h. Checked against MPFR for
 * all 65536 patterns by tests/test_fp16.c, and in all four rounding modes
 * by tests/test_format.c: no result depends on the caller's mode. */
#ifndef TP_FP16_H
#define TP_FP16_H
#include <stdint.h>

#define TP_F16_MAX 65504.0
#define TP_F16_MIN_NORMAL 0x1p-14
#define TP_F16_MIN_SUBNORMAL 0x1p-24

/* Exact value of a binary16 pattern (NaN patterns give a quiet NaN). */
double tp_f16_to_double(uint16_t h);

/* Round a double to binary16, ties to even, with gradual underflow and
 * overflow to infinity (|x| >= 65520). Exact for every double input: there
 * is no intermediate rounding, and the result does not depend on the
 * rounding mode in force. */
uint16_t tp_f16_from_double(double x);

/* Round a double first to binary32 (ties to even) and then to binary16:
 * the two roundings of a float register written out with __float2half. */
uint16_t tp_f16_from_float(float x);

int tp_f16_is_nan(uint16_t h);
int tp_f16_is_inf(uint16_t h);

/* Neighbours in the binary16 order (-inf .. -0 +0 .. +inf); the result for
 * +inf (next_up) or -inf (next_down) is the input itself. */
uint16_t tp_f16_next_up(uint16_t h);
uint16_t tp_f16_next_down(uint16_t h);

/* Unit in the last place of binary16 at magnitude |x|: 2^(max(e,-14)-10)
 * where 2^e <= |x| < 2^(e+1); 2^-24 at zero; 2^5 (the last finite ulp)
 * for |x| >= 65504. */
double tp_f16_ulp(double x);

#endif
