#include "core/tp_fp16.h"

#include "core/tp_ieee.h"

/* binary16: 5 exponent bits, 10 fraction bits (core/tp_ieee.h). */
#define E16 5
#define F16 10

/* Every pattern's value, decoded once when the program starts: the
 * element check of a large output decodes each element several times
 * (its value, the neighbours of its admitted interval). */
static double f16_values[65536];

__attribute__((constructor)) static void f16_values_fill(void)
{
    for (uint32_t h = 0; h < 65536; h++)
        f16_values[h] = tp_ieee_decode(h, E16, F16);
}

double tp_f16_to_double(uint16_t h) { return f16_values[h]; }

uint16_t tp_f16_from_double(double x) { return (uint16_t)tp_ieee_encode(x, E16, F16); }

uint16_t tp_f16_from_float(float x) { return tp_f16_from_double((double)x); }

int tp_f16_is_nan(uint16_t h) { return tp_ieee_is_nan(h, E16, F16); }
int tp_f16_is_inf(uint16_t h) { return tp_ieee_is_inf(h, E16, F16); }

uint16_t tp_f16_next_up(uint16_t h) { return (uint16_t)tp_ieee_next_up(h, E16, F16); }
uint16_t tp_f16_next_down(uint16_t h) { return (uint16_t)tp_ieee_next_down(h, E16, F16); }

double tp_f16_ulp(double x) { return tp_ieee_ulp(x, E16, F16); }
