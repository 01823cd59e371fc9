/* Checks core/tp_fp16.c, the binary16 codec every verdict rests on:
 *  - decoding of all 65536 patterns against MPFR (11-bit precision,
 *    binary16 exponent range, mpfr_subnormalize) and against gcc's
 *    _Float16;
 *  - the proven decoder of the element check (tp_f16_decode_any:
 *    oracles/common/proven/tp_f16_decode.h for finite patterns) against
 *    MPFR too, bit for bit, on all 65536 patterns;
 *  - the round trip encode(decode(h)) == h (NaN stays NaN);
 *  - encoding: every midpoint between adjacent binary16 values goes to the
 *    even one, one double ulp either side goes to the nearer, the overflow
 *    threshold 65520, and a few million random doubles over the whole
 *    double range against MPFR round-to-nearest (sign of zero included);
 *  - next_up / next_down against the sorted order of all values, ulp.
 * Build with -ffp-contract=off -frounding-math. */
#include "tests/tap.h"
#include "core/tp_fp16.h"
#include "oracles/common/f16_decode.h"

#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTED 5

static int is_nan_bits(uint32_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

static double f16_gcc(uint16_t h)
{
    _Float16 f;
    memcpy(&f, &h, 2);
    return (double)f;
}

/* binary16 in MPFR: significand 11 bits, values 0.1xxx * 2^e with
 * -23 <= e <= 16 (2^-24 = 0.5 * 2^-23 is the smallest subnormal,
 * 65504 = 0.11111111111 * 2^16 the largest finite). */
static void mpfr_binary16_range(void)
{
    mpfr_set_emin(-23);
    mpfr_set_emax(16);
}

static void mpfr_default_range(void)
{
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
}

/* Decoding from the bit fields, by MPFR: sign, biased exponent, fraction. */
static int mpfr_decode(uint16_t h, double *out)
{
    int sign = h >> 15, e = (h >> 10) & 0x1f;
    unsigned m = h & 0x3ff;
    mpfr_t x;
    mpfr_init2(x, 11);
    int inex;
    if (e == 0x1f) {
        if (m)
            mpfr_set_nan(x);
        else
            mpfr_set_inf(x, sign ? -1 : 1);
        inex = 0;
    } else {
        /* subnormal: m * 2^-24; normal: (1024 + m) * 2^(e - 25) */
        inex = e ? mpfr_set_ui_2exp(x, 1024 + m, e - 25, MPFR_RNDN) : mpfr_set_ui_2exp(x, m, -24, MPFR_RNDN);
        inex = mpfr_subnormalize(x, inex, MPFR_RNDN);
        if (sign)
            mpfr_neg(x, x, MPFR_RNDN);
    }
    *out = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clear(x);
    return inex; /* 0: representable in binary16 */
}

/* The binary16 value nearest to x (ties to even) by MPFR, as a double. */
static double mpfr_round16(mpfr_ptr t, double x)
{
    int inex = mpfr_set_d(t, x, MPFR_RNDN);
    inex = mpfr_subnormalize(t, inex, MPFR_RNDN);
    (void)inex;
    return mpfr_get_d(t, MPFR_RNDN);
}

/* Same double, same sign of zero (NaN equals NaN). */
static int same(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double bits_double(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* Compares tp_f16_from_double(x) with MPFR (and gcc's _Float16); counts and
 * reports the first few mismatches. */
static long enc_bad, enc_gcc_bad;
static void check_encode(mpfr_ptr t, double x, const char *what)
{
    uint16_t h = tp_f16_from_double(x);
    double got = tp_f16_to_double(h), want = mpfr_round16(t, x);
    if (!same(got, want) || (isnan(x) && !is_nan_bits(h))) {
        if (enc_bad++ < MAX_REPORTED)
            tap_diag("%s: encode(%a) = 0x%04x = %a, MPFR says %a", what, x, h, got, want);
    }
    _Float16 g = (_Float16)x;
    if (!same((double)g, want)) {
        if (enc_gcc_bad++ < MAX_REPORTED)
            tap_diag("%s: gcc (_Float16)%a = %a, MPFR says %a (gcc, not tolproof)", what, x, (double)g, want);
    }
}

int main(void)
{
    mpfr_t t;
    mpfr_binary16_range();
    mpfr_init2(t, 11);

    /* ---- decoding, all 65536 patterns ---- */
    long dec_bad = 0, gcc_bad = 0, nrep = 0, rt_bad = 0, nan_bad = 0, cls_bad = 0, proven_bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        double d = tp_f16_to_double((uint16_t)h), m;
        int inex = mpfr_decode((uint16_t)h, &m);
        if (inex != 0 || !same(d, m)) {
            if (dec_bad++ < MAX_REPORTED)
                tap_diag("decode 0x%04x = %a, MPFR %a (inexact %d)", h, d, m, inex);
        }
        const double p = tp_f16_decode_any(h);
        if (inex != 0 || !same(p, m) || memcmp(&p, &d, sizeof p) != 0) {
            if (proven_bad++ < MAX_REPORTED)
                tap_diag("proven decode 0x%04x = %a, MPFR %a, codec %a", h, p, m, d);
        }
        if (!same(d, f16_gcc((uint16_t)h))) {
            if (gcc_bad++ < MAX_REPORTED)
                tap_diag("decode 0x%04x = %a, _Float16 %a", h, d, f16_gcc((uint16_t)h));
        }
        /* each finite decoded value must already be a binary16 value */
        if (isfinite(d) && !same(mpfr_round16(t, d), d))
            nrep++;
        uint16_t back = tp_f16_from_double(d);
        if (is_nan_bits(h)) {
            if (!tp_f16_is_nan(back) || !isnan(d))
                nan_bad++;
        } else if (back != h) {
            if (rt_bad++ < MAX_REPORTED)
                tap_diag("round trip 0x%04x -> %a -> 0x%04x", h, d, back);
        }
        int want_inf = (h & 0x7fff) == 0x7c00;
        if (tp_f16_is_nan((uint16_t)h) != is_nan_bits(h) || tp_f16_is_inf((uint16_t)h) != want_inf ||
            (isnan(d) != 0) != is_nan_bits(h) || (isinf(d) != 0) != want_inf)
            cls_bad++;
    }
    tap_ok(dec_bad == 0, "decode agrees with MPFR on all 65536 patterns (%ld differ)", dec_bad);
    tap_ok(proven_bad == 0, "the proven decoder agrees with MPFR and the codec, bit for bit, on all 65536 patterns (%ld differ)",
           proven_bad);
    tap_ok(gcc_bad == 0, "decode agrees with gcc _Float16 on all 65536 patterns (%ld differ)", gcc_bad);
    tap_ok(nrep == 0, "every finite decoded value is a binary16 value (%ld are not)", nrep);
    tap_ok(rt_bad == 0, "encode(decode(h)) == h for all 63488+2 non-NaN patterns (%ld differ)", rt_bad);
    tap_ok(nan_bad == 0, "NaN patterns decode to NaN and encode back to a NaN (%ld do not)", nan_bad);
    tap_ok(cls_bad == 0, "is_nan / is_inf classify all patterns (%ld wrong)", cls_bad);
    tap_ok(tp_f16_from_double(NAN) == 0x7e00 && tp_f16_is_nan(tp_f16_from_double(-NAN)),
           "encode(NaN) is the quiet NaN 0x7e00, encode(-NaN) a NaN");

    /* ---- midpoints between adjacent binary16 values ---- */
    long mid_bad = 0, near_bad = 0, nmid = 0;
    for (int s = 0; s < 2; s++) {
        uint16_t sg = s ? 0x8000 : 0;
        for (uint32_t k = 0; k < 0x7bff; k++) { /* pair (k, k+1), both finite */
            uint16_t lo = sg | (uint16_t)k, hi = sg | (uint16_t)(k + 1);
            double a = tp_f16_to_double(lo), b = tp_f16_to_double(hi);
            double mid = (a + b) / 2; /* exact: both are multiples of 2^-25 below 2^16 */
            uint16_t even = (k & 1) ? hi : lo;
            uint16_t got = tp_f16_from_double(mid);
            nmid++;
            if (got != even) {
                if (mid_bad++ < MAX_REPORTED)
                    tap_diag("midpoint %a of 0x%04x,0x%04x -> 0x%04x, want 0x%04x", mid, lo, hi, got, even);
            }
            /* one double ulp towards each neighbour */
            double toward_a = nextafter(mid, a), toward_b = nextafter(mid, b);
            uint16_t ga = tp_f16_from_double(toward_a), gb = tp_f16_from_double(toward_b);
            if (ga != lo || gb != hi) {
                if (near_bad++ < MAX_REPORTED)
                    tap_diag("near midpoint of 0x%04x,0x%04x: %a -> 0x%04x, %a -> 0x%04x", lo, hi, toward_a, ga,
                             toward_b, gb);
            }
        }
    }
    tap_ok(mid_bad == 0, "all %ld midpoints round to the even neighbour (%ld do not)", nmid, mid_bad);
    tap_ok(near_bad == 0, "midpoint +- one double ulp rounds to the nearer neighbour (%ld do not)", near_bad);

    /* the midpoint between +-0 and +-2^-24 goes to zero, keeping the sign */
    tap_ok(tp_f16_from_double(0x1p-25) == 0x0000 && tp_f16_from_double(-0x1p-25) == 0x8000 &&
               tp_f16_from_double(nextafter(0x1p-25, 1)) == 0x0001 &&
               tp_f16_from_double(-nextafter(0x1p-25, 1)) == 0x8001 && tp_f16_from_double(0x1p-1074) == 0 &&
               tp_f16_from_double(-0x1p-1074) == 0x8000 && tp_f16_from_double(-0.0) == 0x8000 &&
               tp_f16_from_double(0.0) == 0,
           "tiny values round to zero keeping their sign; 2^-25 is a tie to +-0");

    /* overflow: [65504, 65520) -> 65504, >= 65520 -> inf */
    long ovf_bad = 0;
    for (int i = 0; i <= 4096; i++) {
        double x = 65504.0 + 16.0 * i / 4096; /* 65504 .. 65520 in steps of 2^-8 */
        uint16_t want = x < 65520.0 ? 0x7bff : 0x7c00;
        if (tp_f16_from_double(x) != want || tp_f16_from_double(-x) != (0x8000 | want)) {
            if (ovf_bad++ < MAX_REPORTED)
                tap_diag("overflow: encode(%a) = 0x%04x", x, tp_f16_from_double(x));
        }
    }
    double below = nextafter(65520.0, 0);
    if (tp_f16_from_double(below) != 0x7bff || tp_f16_from_double(-below) != 0xfbff)
        ovf_bad++;
    const double big[] = {65536.0, 1e5, 0x1p40, 0x1.fffffffffffffp1023, INFINITY};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        if (tp_f16_from_double(big[i]) != 0x7c00 || tp_f16_from_double(-big[i]) != 0xfc00)
            ovf_bad++;
    tap_ok(ovf_bad == 0, "values in [65504, 65520) go to 65504, 65520 and above to inf (%ld wrong)", ovf_bad);

    /* ---- random doubles against MPFR ---- */
    uint64_t seed = 12345;
    long ncheck = 0;
    /* (a) uniform bit patterns: every exponent of the double range */
    for (int i = 0; i < 500000; i++, ncheck++)
        check_encode(t, bits_double(splitmix(&seed)), "random bits");
    /* (b) exponents spread over and around the binary16 range, from far
     *     below the smallest subnormal (round to +-0) to overflow */
    for (int i = 0; i < 2500000; i++, ncheck++) {
        uint64_t r = splitmix(&seed);
        int e = -40 + (int)((r >> 1) % 60);                  /* 2^-40 .. 2^19 */
        double m = 1.0 + (double)(splitmix(&seed) >> 11) * 0x1p-53;
        double x = ldexp(m, e);
        check_encode(t, (r & 1) ? -x : x, "random in range");
    }
    /* (c) binary16 values and midpoints with a few low bits perturbed */
    for (int i = 0; i < 500000; i++, ncheck++) {
        uint64_t r = splitmix(&seed);
        uint16_t h = (uint16_t)(r % 0x7c00) | ((r >> 20) & 1 ? 0x8000 : 0);
        double v = tp_f16_to_double(h), w = tp_f16_to_double(tp_f16_next_up(h));
        double base = ((r >> 21) & 1) ? (v + w) / 2 : v;
        int steps = (int)((r >> 24) % 9) - 4;
        for (; steps > 0; steps--)
            base = nextafter(base, INFINITY);
        for (; steps < 0; steps++)
            base = nextafter(base, -INFINITY);
        check_encode(t, base, "near a binary16 value or midpoint");
    }
    tap_ok(enc_bad == 0, "encode agrees with MPFR RNDN + subnormalize on %ld random doubles (%ld differ)", ncheck,
           enc_bad);
    /* gcc's _Float16 conversion is a second, independent opinion on MPFR. */
    tap_ok(enc_gcc_bad == 0, "gcc (_Float16)x agrees with MPFR on the same doubles (%ld differ)", enc_gcc_bad);

    /* tp_f16_from_float: a float input is rounded once (float -> double is exact) */
    long fl_bad = 0;
    for (int i = 0; i < 500000; i++) {
        uint32_t b = (uint32_t)splitmix(&seed);
        float f;
        memcpy(&f, &b, 4);
        if (i & 1) /* half of them near the binary16 range */
            f = ldexpf(1.0f + (float)(b >> 9) * 0x1p-23f, -30 + (int)(b % 48));
        double want = mpfr_round16(t, (double)f);
        if (!same(tp_f16_to_double(tp_f16_from_float(f)), want) && fl_bad++ < MAX_REPORTED)
            tap_diag("from_float(%a) = %a, MPFR %a", (double)f, tp_f16_to_double(tp_f16_from_float(f)), want);
    }
    tap_ok(fl_bad == 0, "tp_f16_from_float agrees with MPFR on 500000 floats (%ld differ)", fl_bad);

    /* ---- next_up / next_down against the sorted list of all values ---- */
    long nx_bad = 0;
    static double sorted[65536];
    size_t nsorted = 0;
    for (uint32_t h = 0; h < 65536; h++)
        if (!is_nan_bits(h) && h != 0x8000) /* -0 and +0 are one value */
            sorted[nsorted++] = tp_f16_to_double((uint16_t)h);
    qsort(sorted, nsorted, sizeof sorted[0], cmp_double);
    for (uint32_t h = 0; h < 65536; h++) {
        if (is_nan_bits(h)) {
            if (!tp_f16_is_nan(tp_f16_next_up((uint16_t)h)) || !tp_f16_is_nan(tp_f16_next_down((uint16_t)h)))
                nx_bad++;
            continue;
        }
        double v = tp_f16_to_double((uint16_t)h);
        /* the smallest binary16 value above v and the largest below, by
         * binary search in the sorted list of distinct values */
        size_t lo = 0, hi = nsorted; /* first index with sorted[i] > v */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (sorted[mid] > v)
                hi = mid;
            else
                lo = mid + 1;
        }
        double up = lo < nsorted ? sorted[lo] : INFINITY;
        lo = 0, hi = nsorted; /* first index with sorted[i] >= v */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (sorted[mid] >= v)
                hi = mid;
            else
                lo = mid + 1;
        }
        double dn = lo > 0 ? sorted[lo - 1] : -INFINITY;
        double gu = tp_f16_to_double(tp_f16_next_up((uint16_t)h)), gd = tp_f16_to_double(tp_f16_next_down((uint16_t)h));
        if (v == INFINITY)
            up = v;
        if (v == -INFINITY)
            dn = v;
        if (gu != up || gd != dn) {
            if (nx_bad++ < MAX_REPORTED)
                tap_diag("0x%04x (%a): next_up %a want %a, next_down %a want %a", h, v, gu, up, gd, dn);
        }
    }
    tap_ok(nx_bad == 0, "next_up/next_down give the adjacent value for all 65536 patterns (%ld wrong)", nx_bad);
    tap_ok(tp_f16_next_up(0x7bff) == 0x7c00 && tp_f16_next_up(0x7c00) == 0x7c00 &&
               tp_f16_next_down(0xfc00) == 0xfc00 && tp_f16_next_down(0xfbff) == 0xfc00 &&
               tp_f16_next_up(0x8000) == 0x0001 && tp_f16_next_up(0x0000) == 0x0001 &&
               tp_f16_next_down(0x0000) == 0x8001 && tp_f16_next_up(0x8001) == 0x8000 &&
               tp_f16_next_up(0x3c00) == 0x3c01 && tp_f16_next_down(0x3c00) == 0x3bff,
           "next_up/next_down spot checks (65504 -> inf, inf stays, zeros step to +-2^-24, 1 -> 1+2^-10)");

    /* ---- ulp ---- */
    long ulp_bad = 0;
    for (uint32_t h = 0; h < 0x7bff; h++) { /* positive finite below 65504 */
        double v = tp_f16_to_double((uint16_t)h), gap = tp_f16_to_double((uint16_t)(h + 1)) - v;
        if (tp_f16_ulp(v) != gap || tp_f16_ulp(-v) != gap) {
            if (ulp_bad++ < MAX_REPORTED)
                tap_diag("ulp(%a) = %a, gap to the next value %a", v, tp_f16_ulp(v), gap);
        }
    }
    tap_ok(ulp_bad == 0, "ulp(v) is the gap to the next binary16 value for every finite v < 65504 (%ld wrong)",
           ulp_bad);
    tap_ok(tp_f16_ulp(0.0) == 0x1p-24 && tp_f16_ulp(1.0) == 0x1p-10 && tp_f16_ulp(0.999) == 0x1p-11 &&
               tp_f16_ulp(3.0) == 0x1p-9 && tp_f16_ulp(1e-6) == 0x1p-24 && tp_f16_ulp(0x1p-14) == 0x1p-24 &&
               tp_f16_ulp(65504.0) == 32.0 && tp_f16_ulp(-1e9) == 32.0 && tp_f16_ulp(INFINITY) == 32.0 &&
               tp_f16_ulp(2048.0) == 2.0 && tp_f16_ulp(2047.9) == 1.0,
           "ulp spot checks (0, 1, 0.999, 3, 1e-6, 2^-14, 65504, -1e9, inf, 2048, 2047.9)");

    mpfr_clear(t);
    mpfr_default_range();
    mpfr_free_cache();
    return tap_done();
}
