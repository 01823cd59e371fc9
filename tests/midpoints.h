/* What tests/test_f16_round.c and tests/test_bf16_round.c both check of
 * the callers of the proven 16-bit ends: the midpoint they pass, (v + w)
 * * 0.5 in double, is the exact midpoint of two neighbouring finite
 * values (the proofs take it as given, `requires mid`). */
#ifndef TP_TESTS_MIDPOINTS_H
#define TP_TESTS_MIDPOINTS_H
#include "core/tp_ieee.h"

#include <mpfr.h>
#include <stdint.h>

/* Over every pair of neighbouring finite patterns of the format with E
 * exponent and F fraction bits (E + F <= 15): how many midpoints differ
 * from MPFR's exact one; *pairs gets the number of pairs. */
static long tp_test_midpoints_wrong(int E, int F, long *pairs)
{
    mpfr_t a, b;
    mpfr_inits2(64, a, b, (mpfr_ptr)0); /* 64 bits hold any such value and the sum of two */
    long n = 0, wrong = 0;
    for (uint32_t c = 0; c < (uint32_t)1 << (E + F + 1); c++) {
        if (tp_ieee_is_nan(c, E, F) || tp_ieee_is_inf(c, E, F))
            continue;
        const uint32_t up = tp_ieee_next_up(c, E, F);
        if (tp_ieee_is_inf(up, E, F))
            continue;
        const double v = tp_ieee_decode(c, E, F), w = tp_ieee_decode(up, E, F);
        mpfr_set_d(a, v, MPFR_RNDN);
        mpfr_set_d(b, w, MPFR_RNDN);
        mpfr_add(a, a, b, MPFR_RNDN);
        mpfr_div_2ui(a, a, 1, MPFR_RNDN);
        n++;
        wrong += mpfr_cmp_d(a, (v + w) * 0.5) != 0;
    }
    mpfr_clears(a, b, (mpfr_ptr)0);
    *pairs = n;
    return wrong;
}

#endif
