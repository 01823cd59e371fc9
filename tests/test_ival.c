/* Checks the proven interval evaluator (oracles/common/proven/tp_ival.c)
 * against MPFR: for interval pairs built from edge values (signed zeros,
 * subnormals, powers of two and their neighbours, values near the binary32
 * overflow threshold) and from random binary32 values over the whole
 * exponent range,
 *  - soundness: RN32(x op y), computed by MPFR (24 bits, binary32 exponent
 *    range, subnormalized), lies in the result for the interval ends and
 *    for random real (double) operands inside the intervals;
 *  - tightness: each end equals MPFR's RN32 of the end's exact result, so
 *    both ends are attained and the widening factor is 1 (reported);
 *  - every pair the contract's `requires` admits is exercised; pairs whose
 *    end results leave the binary32 range are outside the contract and are
 *    counted, not called.
 * Build with -ffp-contract=off -frounding-math. */
#include "tests/tap.h"
#include "oracles/common/proven/tp_ival.h"

#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTED 5

static mpfr_t ex, r24;

/* RN32 of x op y for doubles x, y: exact in 2200 bits, then one rounding to
 * binary32 (24 bits, emin -148, emax 128, subnormals). *in_range: whether
 * |x op y| <= FLT_MAX (the contract's range condition). */
static float rn32(double x, double y, int sub, int *in_range)
{
    mpfr_t a, b;
    mpfr_inits2(2200, a, b, (mpfr_ptr)0);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    if (sub)
        mpfr_sub(ex, a, b, MPFR_RNDN);
    else
        mpfr_add(ex, a, b, MPFR_RNDN);
    mpfr_clears(a, b, (mpfr_ptr)0);
    *in_range = mpfr_cmp_d(ex, FLT_MAX) <= 0 && mpfr_cmp_d(ex, -FLT_MAX) >= 0;
    const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    int t = mpfr_set(r24, ex, MPFR_RNDN);
    t = mpfr_check_range(r24, t, MPFR_RNDN);
    mpfr_subnormalize(r24, t, MPFR_RNDN);
    float f = mpfr_get_flt(r24, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return f;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random finite binary32 value, every exponent equally likely. */
static float rand_f32(void)
{
    uint32_t u;
    do
        u = (uint32_t)next();
    while ((u & 0x7f800000u) == 0x7f800000u);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A random double in [lo, hi]: a real operand inside the interval. */
static double rand_in(float lo, float hi)
{
    double t = (double)(next() >> 11) * 0x1p-53;
    double x = (double)lo + t * ((double)hi - (double)lo);
    return x < lo ? lo : x > hi ? hi : x;
}

typedef struct {
    long calls, outside, unsound, loose, samples;
} stats;

static void check_pair(int sub, tp_ival32 a, tp_ival32 b, stats *st)
{
    int r1, r2;
    /* The ends' exact results: the contract's range condition. */
    float want_lo = sub ? rn32(a.lo, b.hi, 1, &r1) : rn32(a.lo, b.lo, 0, &r1);
    float want_hi = sub ? rn32(a.hi, b.lo, 1, &r2) : rn32(a.hi, b.hi, 0, &r2);
    if (!r1 || !r2) {
        st->outside++;
        return;
    }
    tp_ival32 r = sub ? tp_ival32_sub(a, b) : tp_ival32_add(a, b);
    st->calls++;
    if (r.lo != want_lo || r.hi != want_hi) {
        if (st->loose++ < MAX_REPORTED)
            tap_diag("%s [%a, %a] [%a, %a]: got [%a, %a], tightest [%a, %a]", sub ? "sub" : "add", a.lo, a.hi,
                     b.lo, b.hi, r.lo, r.hi, want_lo, want_hi);
    }
    /* Corners and random real operands inside the intervals. */
    for (int k = 0; k < 12; k++) {
        double x = k < 2 ? (k ? a.hi : a.lo) : rand_in(a.lo, a.hi);
        double y = k < 4 ? ((k & 1) ? b.hi : b.lo) : rand_in(b.lo, b.hi);
        int in;
        float v = rn32(x, y, sub, &in);
        st->samples++;
        if (!(r.lo <= v && v <= r.hi)) {
            if (st->unsound++ < MAX_REPORTED)
                tap_diag("%s: RN32(%a %c %a) = %a outside [%a, %a]", sub ? "sub" : "add", x, sub ? '-' : '+', y,
                         v, r.lo, r.hi);
        }
    }
}

static const float edges[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, -0x1p-126f, 0x1.fffffcp-127f,
                              1.0f, -1.0f, 0x1.fffffep-1f, 0x1.000002p0f, 2.0f, -0x1.fffffep0f, 0x1p24f,
                              0x1.fffffep23f, 65504.0f, -65504.0f, 0x1p127f, -0x1p127f, 0x1.fffffep127f,
                              -0x1.fffffep127f, 0x1.fffffcp127f, 3.0f, 0.1f, -0.1f};
#define NEDGE ((int)(sizeof edges / sizeof edges[0]))

static tp_ival32 ival(float x, float y)
{
    tp_ival32 r = {x < y ? x : y, x < y ? y : x};
    return r;
}

int main(void)
{
    mpfr_init2(ex, 2200);
    mpfr_init2(r24, 24);
    for (int sub = 0; sub < 2; sub++) {
        stats st = {0};
        /* Every pair of edge intervals (ends from the edge list). */
        for (int i = 0; i < NEDGE; i++)
            for (int j = 0; j < NEDGE; j++)
                for (int k = 0; k < NEDGE; k += 3)
                    for (int l = 0; l < NEDGE; l += 2)
                        check_pair(sub, ival(edges[i], edges[j]), ival(edges[k], edges[l]), &st);
        /* Random intervals: ends anywhere, and narrow ones (a few ulps). */
        for (int n = 0; n < 200000; n++) {
            float x = rand_f32(), y = rand_f32(), z = rand_f32(), w = rand_f32();
            if (n & 1) {
                y = nextafterf(x, (n & 2) ? INFINITY : -INFINITY);
                w = nextafterf(z, (n & 4) ? INFINITY : -INFINITY);
                if (n & 8) /* operands of comparable size: cancellation */
                    z = ldexpf(z, ilogbf(x) - ilogbf(z)), w = nextafterf(z, INFINITY);
            }
            check_pair(sub, ival(x, y), ival(z, w), &st);
        }
        const char *op = sub ? "tp_ival32_sub" : "tp_ival32_add";
        tap_ok(st.unsound == 0, "%s sound: %ld calls, %ld sampled results (MPFR RN32) all inside, %ld pairs outside "
                                "the contract's range", op, st.calls, st.samples, st.outside);
        tap_ok(st.loose == 0 && st.calls > 100000,
               "%s tight: both ends equal MPFR's RN32 of the ends' exact results in %ld of %ld calls "
               "(widening factor 1)", op, st.calls - st.loose, st.calls);
    }
    mpfr_clears(ex, r24, (mpfr_ptr)0);
    return tap_done();
}
