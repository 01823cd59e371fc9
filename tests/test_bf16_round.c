/* The proven bfloat16 ends of an admitted interval (oracles/common/proven/
 * tp_bf16_round.c, through oracles/common/bf16_ends.h and round_ends.h)
 * against the codec's round to nearest even (core/tp_ieee.h with 8
 * exponent and 7 fraction bits, itself checked against MPFR by
 * tests/test_format.c):
 *  - at every cell boundary of every finite pattern (the exact midpoint
 *    between neighbours, the doubles next to it, the value itself), the
 *    lower and upper ends are the rounding of the point, ties to even
 *    included, in each of the four rounding modes of the caller;
 *  - the midpoint the callers pass (the proof's `requires mid`) is the
 *    exact midpoint of the two values, by MPFR, for every pair of
 *    neighbouring finite patterns;
 *  - the overflow boundary: 0x1.ffp127 and up give +infinity, below it
 *    0x1.fep127;
 *  - ends that are not finite stay as they are (infinite, NaN);
 *  - random intervals: the rounding of every sampled point lies between
 *    the ends;
 *  - the proven functions refuse a wrong candidate (the neighbour of the
 *    right one, a value outside the finite range), so the wrapper's loop
 *    is what finds the end, not an unchecked codec. */
#include "tests/tap.h"
#include "tests/midpoints.h"
#include "core/tp_format.h"
#include "core/tp_ieee.h"
#include "oracles/common/bf16_ends.h"
#include "oracles/common/round_ends.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static double rne(double x) { return tp_ieee_decode(tp_ieee_encode(x, 8, 7), 8, 7); }
static double val(uint32_t h) { return tp_ieee_decode(h, 8, 7); }

static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};

/* The ends at x through round_ends.h in every rounding mode, against
 * lo_want / hi_want; counts a mismatch. */
static long check(double x, double lo_want, double hi_want, long *bad)
{
    for (int m = 0; m < 4; m++) {
        fesetround(modes[m]);
        const double lo = tp_round_lower(&tp_bfloat16, x), hi = tp_round_upper(&tp_bfloat16, x);
        fesetround(FE_TONEAREST);
        if (!(lo == lo_want && hi == hi_want)) {
            if (*bad < 5)
                tap_diag("x = %a, mode %d: ends [%a, %a], want [%a, %a]", x, m, lo, hi, lo_want, hi_want);
            ++*bad;
        }
    }
    return 1;
}

int main(void)
{
    tap_plan(7);
    long n = 0, bad = 0, ties = 0;
    for (uint32_t c = 0; c <= 0xffff; c++) {
        if (tp_ieee_is_nan(c, 8, 7) || tp_ieee_is_inf(c, 8, 7) || c == 0x8000)
            continue;
        const double vc = val(c);
        n += check(vc, vc, vc, &bad);
        const uint32_t up = tp_ieee_next_up(c, 8, 7);
        if (tp_ieee_is_inf(up, 8, 7))
            continue;
        const double vu = val(up), m = (vc + vu) * 0.5; /* exact: two bfloat16 values */
        n += check(m, rne(m), rne(m), &bad);
        ties++;
        n += check(nextafter(m, INFINITY), vu, vu, &bad);
        n += check(nextafter(m, -INFINITY), vc, vc, &bad);
    }
    tap_ok(bad == 0, "%ld points around the %ld cell boundaries of the finite bfloat16 values, in 4 rounding modes: "
                     "both ends equal RN(bf16), ties to even on the boundaries (%ld wrong)",
           n, ties, bad);
    bad = 0;
    check(0x1.ffp127, INFINITY, INFINITY, &bad);
    check(nextafter(0x1.ffp127, 0), 0x1.fep127, 0x1.fep127, &bad);
    check(-0x1.ffp127, -INFINITY, -INFINITY, &bad);
    check(nextafter(-0x1.ffp127, 0), -0x1.fep127, -0x1.fep127, &bad);
    check(1e300, INFINITY, INFINITY, &bad);
    check(-1e300, -INFINITY, -INFINITY, &bad);
    check(0x1p-135, 0.0, 0.0, &bad);
    check(-0x1p-135, 0.0, 0.0, &bad);
    check(0x1p-134, 0.0, 0.0, &bad);           /* the tie below the least subnormal: to even, zero */
    check(0x1.8p-134, 0x1p-133, 0x1p-133, &bad); /* above it */
    tap_ok(bad == 0, "overflow at 0x1.ffp127 (a tie that rounds to infinity), 0x1.fep127 below it, tiny values to "
                     "zero (%ld wrong)",
           bad);
    bad = 0;
    check(INFINITY, INFINITY, INFINITY, &bad);
    check(-INFINITY, -INFINITY, -INFINITY, &bad);
    const double ln = tp_bf16_lower(NAN), un = tp_bf16_upper(NAN);
    bad += !(isnan(ln) && isnan(un));
    tap_ok(bad == 0, "infinite ends stay, NaN ends stay NaN (%ld wrong)", bad);
    /* random intervals, wide and narrow, over the whole range */
    srand(12345);
    long viol = 0, pts = 0;
    for (int k = 0; k < 200000; k++) {
        const double scale = ldexp(1.0, rand() % 270 - 136);
        double a = ((double)rand() / RAND_MAX * 2 - 1) * scale, b = a + (double)rand() / RAND_MAX * scale * 0.01;
        if (k % 3 == 0)
            b = a;
        const double lo = tp_bf16_lower(a), hi = tp_bf16_upper(b);
        for (int j = 0; j <= 8; j++) {
            const double s = a + (b - a) * j / 8;
            const double r = s >= 0x1.ffp127 ? INFINITY : s <= -0x1.ffp127 ? -INFINITY : rne(s);
            pts++;
            if (!(lo <= r && r <= hi))
                viol++;
        }
    }
    tap_ok(viol == 0, "random intervals: RN(bf16) of each of %ld points lies between the ends (%ld outside)", pts,
           viol);
    /* the midpoint bf16_ends.h passes, (v + w) * 0.5 in double, against
     * MPFR's exact one: the proof takes it as given */
    long mids = 0;
    const long wrong = tp_test_midpoints_wrong(8, 7, &mids);
    tap_ok(wrong == 0, "the midpoint (v + w) * 0.5 of each of the %ld pairs of neighbouring finite patterns is the "
                       "exact one (%ld not)",
           mids, wrong);
    /* a wrong candidate is not confirmed: the one above the right lower end
     * (0x3f81 = 1 + 2^-7 for blo = 1), the one below the right upper end */
    long refused = 0;
    refused += !tp_bf16_lower_end(1.0, 0x3f81, val(0x3f81), 1.0, (1.0 + val(0x3f81)) * 0.5).confirmed;
    refused += !tp_bf16_upper_end(1.0, 0x3f7f, val(0x3f7f), 1.0, (1.0 + val(0x3f7f)) * 0.5).confirmed;
    /* right values but the bits of the predecessor's tie (odd at a tie) */
    refused += !tp_bf16_lower_end(val(0x3f81) * 0.5 + 0.5, 0x3f81, val(0x3f81), 1.0, (1.0 + val(0x3f81)) * 0.5).confirmed;
    tap_ok(refused == 3, "a wrong candidate end is refused (%ld of 3)", refused);
    /* a value outside the finite range (a codec gone wrong) is refused,
     * not used */
    const tp_bf16_end big = tp_bf16_lower_end(1.0, 0x3f80, 1.0, 0x1p200, 0.5 * (1.0 + 0x1p200));
    tap_ok(!big.confirmed, "a neighbour value beyond the finite bfloat16 range is refused");
    return tap_exit();
}
