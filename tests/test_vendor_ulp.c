/* Checks oracles/common/vendor_ulp.h against the definitions, value by
 * value: for brackets [lo, hi] of correctly rounded results (single values
 * and runs of up to 9 consecutive binary32 values, around powers of two,
 * in the subnormals, near the overflow threshold, negative and positive,
 * and random) and k = 1..4 ulps, the admitted ends must be the least and
 * the greatest binary32 r with |r - c| <= k ulp(c), ulp(c) read off c's
 * exponent field (the spacing at and above |c|), or at most k values away
 * from c in the order of binary32 values, for some c in the bracket. Brute
 * force over the binary32 values near the bracket; r - c is exact in
 * double there. Also: 2k steps below a power of two are admitted; larger
 * k (8, 64, 512) on brackets across powers of two; and the reference's
 * ulp, read off the exponent field, against MPFR's exponent of c (2^(E -
 * 24) for |c| = m 2^E, 1/2 <= m < 1, not below the subnormal spacing
 * 2^-149): at a power of two the larger spacing, just below it the
 * smaller. The ends come from the proven tp_vendor_ulp.c (through
 * oracles/common/vendor_ulp.h). */
#include "tests/tap.h"
#include "oracles/common/vendor_ulp.h"
#include "tests/vendor_ulp_ref.h"

#include <float.h>
#include <mpfr.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static float step(float v, int n, float toward)
{
    for (int i = 0; i < n; i++)
        v = nextafterf(v, toward);
    return v;
}

static int admitted(float r, float lo, float hi, int k)
{
    for (float c = lo;; c = nextafterf(c, INFINITY)) {
        if (ref_within_ulps(r, c, k))
            return 1;
        if (c == hi)
            return 0;
    }
}

static long checked, wrong, narrower, ulp_wrong, ulp_checked;

/* ulp(c) from MPFR's exponent, independently of the bit fields */
static void check_ulp(float c)
{
    if (!isfinite(c) || c == 0.0f)
        return;
    mpfr_t t;
    mpfr_init2(t, 24);
    mpfr_set_flt(t, c, MPFR_RNDN); /* exact */
    long e = mpfr_get_exp(t) - 24;
    mpfr_clear(t);
    e = e < -149 ? -149 : e;
    ulp_checked++;
    if (ref_ulp(c) != ldexp(1.0, (int)e) && ulp_wrong++ < 5)
        tap_diag("ulp(%a): reference %a, MPFR's exponent gives 2^%ld", c, ref_ulp(c), e);
}

static void check(float lo, float hi, int k)
{
    if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi))
        return;
    const int reach = 4 * k + 4;
    float want_lo = INFINITY, want_hi = -INFINITY;
    float first = step(lo, reach, -INFINITY), last = step(hi, reach, INFINITY);
    first = isfinite(first) ? first : -FLT_MAX;
    last = isfinite(last) ? last : FLT_MAX;
    for (float r = first;; r = nextafterf(r, INFINITY)) {
        if (admitted(r, lo, hi, k)) {
            want_lo = r < want_lo ? r : want_lo;
            want_hi = r > want_hi ? r : want_hi;
        }
        if (r == last)
            break;
    }
    /* beyond the binary32 range: the ends go to infinity, as k nextafterf steps do */
    if ((double)lo - k * ref_ulp(lo) < -(double)FLT_MAX || !isfinite(step(lo, k, -INFINITY)))
        want_lo = -INFINITY;
    if ((double)hi + k * ref_ulp(hi) > (double)FLT_MAX || !isfinite(step(hi, k, INFINITY)))
        want_hi = INFINITY;
    const float got_lo = tp_vendor_lower(lo, hi, k), got_hi = tp_vendor_upper(lo, hi, k);
    checked++;
    check_ulp(lo), check_ulp(hi);
    if (got_lo != want_lo || got_hi != want_hi) {
        if (wrong++ < 5)
            tap_diag("[%a, %a] k=%d: got [%a, %a], want [%a, %a]", lo, hi, k, got_lo, got_hi, want_lo, want_hi);
    }
    if (got_lo > step(lo, k, -INFINITY) || got_hi < step(hi, k, INFINITY))
        narrower++;
}

static uint64_t rng = 0x2545f4914f6cdd1du;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

int main(void)
{
    const float centres[] = {1.0f, 0.5f, 2.0f, 0x1p-126f, 0x1p-125f, 0x1p-124f, 0x1p-149f, 0.0f, 65536.0f,
                             0x1p127f, 0x1.fffffep127f, 0x1.8p0f, 3.0f, 0.75f, 0x1p-20f};
    for (int k = 1; k <= 4; k++)
        for (size_t i = 0; i < sizeof centres / sizeof centres[0]; i++)
            for (int sgn = 0; sgn < 2; sgn++) {
                const float c = sgn ? -centres[i] : centres[i];
                for (int a = -6; a <= 6; a++)
                    for (int w = 0; w <= 8; w++) {
                        const float lo = a < 0 ? step(c, -a, -INFINITY) : step(c, a, INFINITY);
                        check(lo, step(lo, w, INFINITY), k);
                    }
            }
    for (int n = 0; n < 30000; n++) {
        uint32_t u = next();
        float c;
        memcpy(&c, &u, 4);
        if (!isfinite(c))
            continue;
        check(c, step(c, (int)(next() % 9), INFINITY), 1 + (int)(next() % 4));
    }
    /* larger k, across powers of two (bracket from below one to above it) */
    const float pows[] = {1.0f, 0x1p-125f, 0x1p-100f, 1024.0f, -1.0f, -0x1p-125f, 0x1p100f};
    for (int kk = 8; kk <= 512; kk *= 8)
        for (size_t i = 0; i < sizeof pows / sizeof pows[0]; i++)
            for (int a = 0; a <= 3; a++) {
                const float lo = step(pows[i], a * kk / 2, -INFINITY);
                check(lo, step(lo, a * kk / 2 + a, INFINITY), kk);
                check(pows[i], pows[i], kk);
            }
    tap_ok(wrong == 0 && checked > 40000,
           "tp_vendor_lower/upper: the least and greatest binary32 within k ulp(c) or k steps of some c of the "
           "bracket, in %ld of %ld brackets", checked - wrong, checked);
    tap_ok(ulp_wrong == 0 && ulp_checked > 80000,
           "the reference's ulp(c), read off the exponent field, is 2^(E - 24) from MPFR's exponent E of c (at "
           "least 2^-149) for %ld of %ld values",
           ulp_checked - ulp_wrong, ulp_checked);
    tap_ok(narrower == 0, "the ends are never inside the old k nextafterf steps (%ld are)", narrower);
    const float below = step(1.0f, 2, -INFINITY);
    tap_ok(tp_vendor_lower(1.0f, 1.0f, 1) == below && tp_vendor_upper(1.0f, 1.0f, 1) == step(1.0f, 1, INFINITY),
           "1 ulp around a correctly rounded 1.0 admits [1 - 2^-23, 1 + 2^-23]: two binary32 steps below, one above");
    return tap_done();
}
