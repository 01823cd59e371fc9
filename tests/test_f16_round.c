/* The proven binary16 ends of an admitted interval (oracles/common/proven/
 * tp_f16_round.c, through oracles/common/f16_ends.h) against the codec's
 * round to nearest even (core/tp_ieee.h, itself checked against MPFR on
 * every pattern by tests/test_fp16.c):
 *  - at every cell boundary of every finite pattern (the exact midpoint
 *    between neighbours, the doubles next to it, the value itself), the
 *    lower and upper ends are the rounding of the point, ties to even
 *    included;
 *  - the midpoint the callers pass (the proof's `requires mid`) is the
 *    exact midpoint of the two values, by MPFR, for every pair of
 *    neighbouring finite patterns;
 *  - the overflow boundary: 65520 and up give +infinity, below it 65504;
 *  - ends that are not finite (the proof needs finite ones) stay as they
 *    are: infinite ends, and NaN (an op's "no value admitted");
 *  - random intervals: the rounding of every sampled point lies between
 *    the ends.
 * And the binary32 ends of oracles/common/round_ends.h (the proven
 * tp_f32_round.c in round-to-nearest, the codec's rounding otherwise) equal
 * the codec's rounding in all four rounding modes, near every power of two,
 * at midpoints, at the overflow threshold and on random doubles. */
#include "tests/tap.h"
#include "tests/midpoints.h"
#include "core/tp_ieee.h"
#include "oracles/common/f16_ends.h"
#include "core/tp_format.h"
#include "oracles/common/round_ends.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>

static double rne(double x) { return tp_ieee_decode(tp_ieee_encode(x, 5, 10), 5, 10); }
static double val(uint32_t h) { return tp_ieee_decode(h, 5, 10); }

/* lo_want / hi_want: the expected ends at x; counts a mismatch. */
static long check(double x, double lo_want, double hi_want, long *bad)
{
    const double lo = tp_f16_lower(x), hi = tp_f16_upper(x);
    if (!(lo == lo_want && hi == hi_want)) {
        if (*bad < 5)
            tap_diag("x = %a: ends [%a, %a], want [%a, %a]", x, lo, hi, lo_want, hi_want);
        ++*bad;
    }
    return 1;
}

int main(void)
{
    const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    uint64_t r = 0x243f6a8885a308d3u;
    tap_plan(8);
    long n = 0, bad = 0, ties = 0;
    for (uint32_t c = 0; c <= 0xffff; c++) {
        if (tp_ieee_is_nan(c, 5, 10) || tp_ieee_is_inf(c, 5, 10) || c == 0x8000)
            continue;
        const double vc = val(c);
        n += check(vc, vc, vc, &bad);
        const uint32_t up = tp_ieee_next_up(c, 5, 10);
        if (tp_ieee_is_inf(up, 5, 10))
            continue;
        const double vu = val(up), m = (vc + vu) * 0.5; /* exact: two binary16 values */
        n += check(m, rne(m), rne(m), &bad);
        ties++;
        n += check(nextafter(m, INFINITY), vu, vu, &bad);
        n += check(nextafter(m, -INFINITY), vc, vc, &bad);
    }
    tap_ok(bad == 0, "%ld points around the %ld cell boundaries of the finite binary16 values: both ends equal "
                     "RN16, ties to even on the boundaries (%ld wrong)",
           n, ties, bad);
    bad = 0;
    check(65520.0, INFINITY, INFINITY, &bad);
    check(nextafter(65520.0, 0), 65504.0, 65504.0, &bad);
    check(-65520.0, -INFINITY, -INFINITY, &bad);
    check(nextafter(-65520.0, 0), -65504.0, -65504.0, &bad);
    check(1e300, INFINITY, INFINITY, &bad);
    check(-1e300, -INFINITY, -INFINITY, &bad);
    check(0x1p-26, 0.0, 0.0, &bad);
    check(-0x1p-26, 0.0, 0.0, &bad);
    tap_ok(bad == 0, "overflow at 65520 (a tie that rounds to infinity), 65504 below it, tiny values to zero (%ld wrong)",
           bad);
    bad = 0;
    check(INFINITY, INFINITY, INFINITY, &bad);
    check(-INFINITY, -INFINITY, -INFINITY, &bad);
    const double ln = tp_f16_lower(NAN), un = tp_f16_upper(NAN);
    bad += !(isnan(ln) && isnan(un));
    tap_ok(bad == 0, "infinite ends stay, NaN ends stay NaN (%ld wrong)", bad);
    /* random intervals, wide and narrow, over the whole range */
    srand(12345);
    long viol = 0, pts = 0;
    for (int k = 0; k < 200000; k++) {
        const double scale = ldexp(1.0, rand() % 46 - 27);
        double a = ((double)rand() / RAND_MAX * 2 - 1) * scale, b = a + (double)rand() / RAND_MAX * scale * 0.01;
        if (k % 3 == 0)
            b = a;
        const double lo = tp_f16_lower(a), hi = tp_f16_upper(b);
        for (int j = 0; j <= 8; j++) {
            const double s = a + (b - a) * j / 8;
            const double r = s >= 65520.0 ? INFINITY : s <= -65520.0 ? -INFINITY : rne(s);
            pts++;
            if (!(lo <= r && r <= hi))
                viol++;
        }
    }
    tap_ok(viol == 0, "random intervals: RN16 of each of %ld points lies between the ends (%ld outside)", pts, viol);
    /* the midpoint f16_ends.h passes, (v + w) * 0.5 in double, against
     * MPFR's exact one: the proof takes it as given */
    long mids = 0;
    const long wrong = tp_test_midpoints_wrong(5, 10, &mids);
    tap_ok(wrong == 0, "the midpoint (v + w) * 0.5 of each of the %ld pairs of neighbouring finite patterns is the "
                       "exact one (%ld not)",
           mids, wrong);
    /* the proven ceiling and floor (embedding_bwd's per-step bound): at
     * every finite value and the doubles next to it, beyond the range, and
     * on random doubles against the codec's tp_format_ceil / floor, in the
     * caller's rounding modes */
    long cf = 0, cf_bad = 0;
    for (uint32_t c = 0; c <= 0xffff; c++) {
        if (tp_ieee_is_nan(c, 5, 10) || tp_ieee_is_inf(c, 5, 10))
            continue;
        const double v = val(c), above = nextafter(v, INFINITY), below = nextafter(v, -INFINITY);
        const uint32_t up = tp_ieee_next_up(c, 5, 10), dn = tp_ieee_next_down(c, 5, 10);
        const double vu = tp_ieee_is_inf(up, 5, 10) ? INFINITY : val(up);
        const double vd = tp_ieee_is_inf(dn, 5, 10) ? -INFINITY : val(dn);
        cf += 4;
        cf_bad += !(tp_f16_ceil(v) == v && tp_f16_floor(v) == v);
        cf_bad += !(tp_f16_ceil(above) == (v == 0 ? 0x1p-24 : vu)); /* above +-0: the least subnormal */
        cf_bad += !(tp_f16_floor(below) == (v == 0 ? -0x1p-24 : vd));
        cf_bad += !(tp_f16_ceil(below) == v && tp_f16_floor(above) == v);
    }
    cf_bad += !(tp_f16_ceil(65504.5) == INFINITY && tp_f16_ceil(1e300) == INFINITY);
    cf_bad += !(tp_f16_floor(-65504.5) == -INFINITY && tp_f16_floor(-1e300) == -INFINITY);
    cf_bad += !(tp_f16_ceil(-1e300) == -65504.0 && tp_f16_floor(1e300) == 65504.0);
    cf_bad += !(tp_f16_ceil(INFINITY) == INFINITY && tp_f16_floor(-INFINITY) == -INFINITY && isnan(tp_f16_ceil(NAN)));
    cf += 4;
    for (int k = 0; k < 200000; k++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        const double x = ldexp((double)(int64_t)(r >> 11) * 0x1p-53, (int)(r % 60) - 40) * ((r >> 7) & 1 ? -1 : 1);
        for (int m = 0; m < 4; m++) {
            fesetround(modes[m]);
            const double cl = tp_f16_ceil(x), fl = tp_f16_floor(x);
            fesetround(FE_TONEAREST);
            cf++;
            cf_bad += !(cl == tp_format_ceil(&tp_binary16, x) && fl == tp_format_floor(&tp_binary16, x));
        }
    }
    tap_ok(cf_bad == 0, "binary16 ceiling and floor (proven tp_f16_ceil_end / floor_end): %ld checks at every finite "
                        "value and next to it, beyond the range and against the codec in 4 modes (%ld wrong)",
           cf, cf_bad);
    /* a wrong candidate is refused: 1 + 2^-10 for the ceiling of 1, and 1
     * for the ceiling of a point just above 1 */
    long refused = 0;
    refused += !tp_f16_ceil_end(1.0, 0x3c01, val(0x3c01), 1.0).confirmed;
    refused += !tp_f16_ceil_end(1.0005, 0x3c00, 1.0, val(0x3bff)).confirmed;
    refused += !tp_f16_floor_end(1.0, 0x3bff, val(0x3bff), 1.0).confirmed;
    refused += !tp_f16_floor_end(0.9999, 0x3c00, 1.0, val(0x3c01)).confirmed;
    tap_ok(refused == 4, "a wrong candidate ceiling or floor is refused (%ld of 4)", refused);
    /* binary32 ends: proven (round-to-nearest) or codec, the same value */
    long b32 = 0, b32_bad = 0;
    for (int k = 0; k < 200000; k++) {
        double x;
        if (k < 2000) { /* near 2^e, and the midpoints around it */
            const double p = ldexp(1.0, (k % 280) - 150);
            const double cand[] = {p, nextafter(p, 0), nextafter(p, 1e300), p * (1 + 0x1p-24), p * (1 - 0x1p-25),
                                   (double)FLT_MAX, (double)FLT_MAX + 0x1p103, nextafter((double)FLT_MAX, 1e300)};
            x = cand[(k / 280) % 8] * ((k & 1) ? -1 : 1);
        } else {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            memcpy(&x, &r, sizeof x);
            if (!isfinite(x) || fabs(x) > 0x1p130 || fabs(x) < 0x1p-160)
                x = ldexp((double)(int64_t)(r >> 11) * 0x1p-53, (int)(r % 300) - 150);
        }
        for (int m = 0; m < 4; m++) {
            fesetround(modes[m]);
            const double lo = tp_round_lower(&tp_binary32, x), hi = tp_round_upper(&tp_binary32, x);
            fesetround(FE_TONEAREST);
            const double want = tp_binary32.round(x);
            b32++;
            b32_bad += !(lo == want && hi == want);
        }
    }
    tap_ok(b32_bad == 0, "binary32 ends (oracles/common/round_ends.h) equal the codec's rounding on %ld (double, "
                         "mode) pairs (%ld differ)",
           b32, b32_bad);
    return tap_exit();
}
