/* Checks core/tp_format.c, the number-format descriptors, as tests/test_fp16.c
 * checks the binary16 codec, and their independence of the rounding mode:
 *  - binary16 and bfloat16 on all 65536 patterns: decoding against MPFR
 *    (the format's precision and exponent range, mpfr_subnormalize) and,
 *    for bfloat16, against the upper half of a binary32; encode(decode(h))
 *    == h; classification; every midpoint between neighbours goes to the
 *    even one, one double ulp either side to the nearer; ties at the
 *    bottom of the subnormals; the overflow threshold; random doubles
 *    against MPFR; next_up/next_down against the sorted values; ulp;
 *  - binary32 on samples (2^32 patterns would take minutes): decoding
 *    against MPFR and against the generic decoder, encoding against MPFR
 *    and against (float)x in round-to-nearest, midpoints of random
 *    neighbours, subnormal and overflow boundaries, nextafterf, ulp;
 *  - the descriptors' constants and the lookups by dtype and by name;
 *    load/store, ceil/floor, next_above/next_below; the bf16 .npy descr.
 * Every codec check runs once per rounding mode (FE_TONEAREST, FE_UPWARD,
 * FE_DOWNWARD, FE_TOWARDZERO) and must give the same results in all four:
 * each mode's checks compare with MPFR (whose rounding is explicit, never
 * the mode's), and a hash of every result the codecs returned must be the
 * same in the four modes.
 * Build with -ffp-contract=off -frounding-math (the test's own double
 * arithmetic is exact, so the mode cannot change the expected values). */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "tests/tap.h"
#include "core/tp_format.h"
#include "core/tp_ieee.h"
#include "core/tp_npy.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REPORTED 5

static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
static const char *const mode_names[] = {"FE_TONEAREST", "FE_UPWARD", "FE_DOWNWARD", "FE_TOWARDZERO"};
#define NMODES 4

/* ---- helpers ------------------------------------------------------------- */

/* FNV-1a over every result the codecs return, so that the four modes can be
 * compared as a whole. */
static uint64_t digest;
static void mix(uint64_t v)
{
    for (int i = 0; i < 8; i++)
        digest = (digest ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
}
static void mixd(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    if (isnan(d))
        b = 0x7ff8000000000000ULL; /* NaN payloads are not part of the contract */
    mix(b);
}

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

/* The format in MPFR: precision p and an exponent range such that the
 * smallest subnormal 2^(emin+1-p) is 0.1b * 2^(emin+2-p) and the largest
 * finite value 0.11..1b * 2^(emax+1). */
static void mpfr_format_range(const tp_format *f)
{
    mpfr_set_emin(f->emin + 2 - f->precision);
    mpfr_set_emax(f->emax + 1);
}

static void mpfr_default_range(void)
{
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
}

/* The value nearest to x in the format (ties to even) by MPFR, as a double;
 * t has the format's precision and the range is the format's. */
static double mpfr_round_fmt(mpfr_ptr t, double x)
{
    int inex = mpfr_set_d(t, x, MPFR_RNDN);
    (void)mpfr_subnormalize(t, inex, MPFR_RNDN);
    return mpfr_get_d(t, MPFR_RNDN);
}

/* Decoding from the bit fields, by MPFR; returns the inexact flag (0 when
 * the value is representable in the format). */
static int mpfr_decode(const tp_format *f, uint32_t h, double *out)
{
    const int F = f->frac_bits, E = f->exp_bits, bias = (1 << (E - 1)) - 1;
    const int sign = (h >> (E + F)) & 1, e = (int)((h >> F) & ((1u << E) - 1));
    const unsigned long m = h & ((1u << F) - 1);
    mpfr_t x;
    mpfr_init2(x, f->precision);
    int inex = 0;
    if (e == (1 << E) - 1) {
        if (m)
            mpfr_set_nan(x);
        else
            mpfr_set_inf(x, sign ? -1 : 1);
    } else {
        inex = e ? mpfr_set_ui_2exp(x, (1ul << F) + m, e - bias - F, MPFR_RNDN)
                 : mpfr_set_ui_2exp(x, m, 1 - bias - F, MPFR_RNDN);
        inex = mpfr_subnormalize(x, inex, MPFR_RNDN);
        if (sign)
            mpfr_neg(x, x, MPFR_RNDN);
    }
    *out = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clear(x);
    return inex;
}

static int is_nan_bits(const tp_format *f, uint32_t h) { return tp_ieee_is_nan(h, f->exp_bits, f->frac_bits); }

/* Per-mode counts of failures, reported as TAP lines by the caller. */
typedef struct {
    long dec, dec2, rt, nan, cls, mid, near, tiny, ovf, rnd, nx, ulp, cst;
    long nmid, nrnd;
} counts;

static long enc_bad;
static void check_encode(const tp_format *f, mpfr_ptr t, double x, const char *what)
{
    uint32_t h = f->encode(x);
    double got = f->decode(h), want = mpfr_round_fmt(t, x);
    mix(h);
    if (!same(got, want) || !same(f->round(x), want) || (isnan(x) && !is_nan_bits(f, h))) {
        if (enc_bad++ < MAX_REPORTED)
            tap_diag("%s %s: encode(%a) = 0x%x = %a, MPFR says %a", f->name, what, x, h, got, want);
    }
}

/* ---- the 16-bit formats, exhaustively ---------------------------------- */

static void exhaustive16(const tp_format *f, counts *k)
{
    const uint32_t sbit = 0x8000, inf = tp_ieee_inf_bits(f->exp_bits, f->frac_bits);
    mpfr_t t;
    mpfr_format_range(f);
    mpfr_init2(t, f->precision);

    for (uint32_t h = 0; h < 65536; h++) {
        double d = f->decode(h), m;
        mixd(d);
        int inex = mpfr_decode(f, h, &m);
        if (inex != 0 || !same(d, m)) {
            if (k->dec++ < MAX_REPORTED)
                tap_diag("%s: decode 0x%04x = %a, MPFR %a (inexact %d)", f->name, h, d, m, inex);
        }
        /* a second opinion: bfloat16 is the upper half of a binary32 */
        if (f == &tp_bfloat16) {
            uint32_t w = h << 16;
            float fl;
            memcpy(&fl, &w, 4);
            if (!same(d, (double)fl) && k->dec2++ < MAX_REPORTED)
                tap_diag("bfloat16: decode 0x%04x = %a, as binary32 0x%08x = %a", h, d, w, (double)fl);
        }
        uint32_t back = f->encode(d);
        mix(back);
        if (is_nan_bits(f, h)) {
            if (!f->is_nan(back) || !isnan(d))
                k->nan++;
        } else if (back != h) {
            if (k->rt++ < MAX_REPORTED)
                tap_diag("%s: round trip 0x%04x -> %a -> 0x%04x", f->name, h, d, back);
        }
        int want_inf = (h & ~sbit) == inf;
        if (f->is_nan(h) != is_nan_bits(f, h) || f->is_inf(h) != want_inf || (isnan(d) != 0) != is_nan_bits(f, h) ||
            (isinf(d) != 0) != want_inf)
            k->cls++;
    }

    /* midpoints between adjacent finite values, both signs */
    for (int s = 0; s < 2; s++) {
        uint32_t sg = s ? sbit : 0;
        for (uint32_t j = 0; j + 1 < inf; j++) {
            uint32_t lo = sg | j, hi = sg | (j + 1);
            double a = f->decode(lo), b = f->decode(hi);
            double mid = a / 2 + b / 2; /* exact: halves of values far above the double subnormals */
            uint32_t even = (j & 1) ? hi : lo, got = f->encode(mid);
            mix(got);
            k->nmid++;
            if (got != even) {
                if (k->mid++ < MAX_REPORTED)
                    tap_diag("%s: midpoint %a of 0x%04x,0x%04x -> 0x%04x, want 0x%04x", f->name, mid, lo, hi, got,
                             even);
            }
            double ta = nextafter(mid, a), tb = nextafter(mid, b);
            uint32_t ga = f->encode(ta), gb = f->encode(tb);
            mix(ga), mix(gb);
            if (ga != lo || gb != hi) {
                if (k->near++ < MAX_REPORTED)
                    tap_diag("%s: near the midpoint of 0x%04x,0x%04x: %a -> 0x%04x, %a -> 0x%04x", f->name, lo, hi, ta,
                             ga, tb, gb);
            }
        }
    }

    /* half the smallest subnormal is a tie to +-0; just above goes to it */
    double half = f->min_subnormal / 2;
    if (f->encode(half) != 0 || f->encode(-half) != sbit || f->encode(nextafter(half, 1)) != 1 ||
        f->encode(-nextafter(half, 1)) != (sbit | 1) || f->encode(0x1p-1074) != 0 || f->encode(-0x1p-1074) != sbit ||
        f->encode(-0.0) != sbit || f->encode(0.0) != 0 || f->encode(1.5 * f->min_subnormal) != 2)
        k->tiny++;

    /* overflow: [max, max + ulp/2) -> max, from max + ulp/2 on -> inf */
    const double top_ulp = ldexp(1.0, f->emax - f->frac_bits), thr = f->max_finite + top_ulp / 2;
    for (int i = 0; i <= 4096; i++) {
        double x = f->max_finite + top_ulp / 2 * i / 4096; /* exact: 12 more bits */
        uint32_t want = x < thr ? inf - 1 : inf, g1 = f->encode(x), g2 = f->encode(-x);
        mix(g1), mix(g2);
        if (g1 != want || g2 != (sbit | want)) {
            if (k->ovf++ < MAX_REPORTED)
                tap_diag("%s: overflow: encode(%a) = 0x%04x", f->name, x, g1);
        }
    }
    if (f->encode(nextafter(thr, 0)) != inf - 1 || f->encode(-nextafter(thr, 0)) != (sbit | (inf - 1)))
        k->ovf++;
    const double big[] = {ldexp(1.0, f->emax + 1), 1e300, 0x1.fffffffffffffp1023, INFINITY};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        if (f->encode(big[i]) != inf || f->encode(-big[i]) != (sbit | inf))
            k->ovf++;

    /* random doubles against MPFR */
    enc_bad = 0;
    uint64_t seed = 12345;
    for (int i = 0; i < 100000; i++, k->nrnd++)
        check_encode(f, t, bits_double(splitmix(&seed)), "random bits");
    for (int i = 0; i < 300000; i++, k->nrnd++) {
        uint64_t r = splitmix(&seed);
        int span = f->emax + 4 - (f->emin - f->precision - 4);
        int e = f->emin - f->precision - 4 + (int)((r >> 1) % (uint64_t)span);
        double x = ldexp(1.0 + (double)(splitmix(&seed) >> 11) * 0x1p-53, e);
        check_encode(f, t, (r & 1) ? -x : x, "random in range");
    }
    for (int i = 0; i < 100000; i++, k->nrnd++) { /* values and midpoints, a few low bits off */
        uint64_t r = splitmix(&seed);
        uint32_t h = (uint32_t)(r % inf) | ((r >> 20) & 1 ? sbit : 0);
        double v = f->decode(h), w = f->decode(f->next_up(h));
        double base = ((r >> 21) & 1) ? v / 2 + w / 2 : v;
        int steps = (int)((r >> 24) % 9) - 4;
        for (; steps > 0; steps--)
            base = nextafter(base, INFINITY);
        for (; steps < 0; steps++)
            base = nextafter(base, -INFINITY);
        check_encode(f, t, base, "near a value or midpoint");
    }
    k->rnd = enc_bad;

    /* next_up / next_down against the sorted list of distinct values */
    static double sorted[65536];
    size_t n = 0;
    for (uint32_t h = 0; h < 65536; h++)
        if (!is_nan_bits(f, h) && h != sbit)
            sorted[n++] = f->decode(h);
    qsort(sorted, n, sizeof sorted[0], cmp_double);
    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t u = f->next_up(h), dn = f->next_down(h);
        mix(u), mix(dn);
        if (is_nan_bits(f, h)) {
            if (u != h || dn != h)
                k->nx++;
            continue;
        }
        double v = f->decode(h);
        size_t lo = 0, hi = n; /* first index with sorted[i] > v */
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (sorted[m] > v)
                hi = m;
            else
                lo = m + 1;
        }
        double up = lo < n ? sorted[lo] : INFINITY;
        lo = 0, hi = n; /* first index with sorted[i] >= v */
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (sorted[m] >= v)
                hi = m;
            else
                lo = m + 1;
        }
        double down = lo > 0 ? sorted[lo - 1] : -INFINITY;
        if (v == INFINITY)
            up = v;
        if (v == -INFINITY)
            down = v;
        if (f->decode(u) != up || f->decode(dn) != down || tp_format_next_above(f, v) != up ||
            tp_format_next_below(f, v) != down) {
            if (k->nx++ < MAX_REPORTED)
                tap_diag("%s: 0x%04x (%a): next_up %a want %a, next_down %a want %a", f->name, h, v, f->decode(u), up,
                         f->decode(dn), down);
        }
    }

    /* ulp: the gap to the next value, every finite positive value below max */
    for (uint32_t h = 0; h + 1 < inf; h++) {
        double v = f->decode(h), gap = f->decode(h + 1) - v; /* exact */
        mixd(f->ulp(v));
        if (f->ulp(v) != gap || f->ulp(-v) != gap) {
            if (k->ulp++ < MAX_REPORTED)
                tap_diag("%s: ulp(%a) = %a, gap to the next value %a", f->name, v, f->ulp(v), gap);
        }
    }
    if (f->ulp(0.0) != f->min_subnormal || f->ulp(f->max_finite) != top_ulp || f->ulp(INFINITY) != top_ulp ||
        f->ulp(1.0) != ldexp(1.0, -f->frac_bits) || f->ulp(-1e300) != top_ulp)
        k->ulp++;

    /* ceil / floor: every value is its own ceil and floor; between two
     * neighbours they are the neighbours */
    for (uint32_t h = 0; h + 1 < inf; h += 7) {
        double a = f->decode(h), b = f->decode(h + 1), mid = a / 2 + b / 2;
        double c1 = tp_format_ceil(f, mid), f1 = tp_format_floor(f, mid), c2 = tp_format_ceil(f, -mid),
               f2 = tp_format_floor(f, -mid);
        mixd(c1), mixd(f1), mixd(c2), mixd(f2);
        if (tp_format_ceil(f, a) != a || tp_format_floor(f, a) != a || c1 != b || f1 != a || c2 != -a || f2 != -b)
            k->cst++;
    }
    if (tp_format_ceil(f, f->max_finite * 1.0000001) != INFINITY ||
        tp_format_floor(f, f->max_finite * 1.0000001) != f->max_finite ||
        tp_format_floor(f, -f->max_finite * 1.0000001) != -INFINITY || !isnan(tp_format_ceil(f, NAN)))
        k->cst++;

    mpfr_clear(t);
    mpfr_default_range();
}

/* ---- binary32, on samples ------------------------------------------------ */

static void sampled32(counts *k)
{
    const tp_format *f = &tp_binary32;
    const uint32_t sbit = 0x80000000u, inf = 0x7f800000u;
    mpfr_t t;
    mpfr_format_range(f);
    mpfr_init2(t, 24);
    uint64_t seed = 777;
    enc_bad = 0;

    /* patterns: every pattern whose low 16 bits are 0, 1, 0xffff or random,
     * which covers every exponent, the subnormals and the boundaries */
    for (uint32_t top = 0; top < 65536; top++) {
        uint32_t lows[4] = {0, 1, 0xffff, (uint32_t)splitmix(&seed) & 0xffff};
        for (int j = 0; j < 4; j++) {
            uint32_t h = top << 16 | lows[j];
            double d = f->decode(h), m;
            mixd(d);
            int inex = mpfr_decode(f, h, &m);
            if (inex != 0 || !same(d, m) || !same(d, tp_ieee_decode(h, 8, 23))) {
                if (k->dec++ < MAX_REPORTED)
                    tap_diag("binary32: decode 0x%08x = %a, MPFR %a, generic %a", h, d, m, tp_ieee_decode(h, 8, 23));
            }
            uint32_t back = f->encode(d);
            mix(back);
            if (is_nan_bits(f, h)) {
                if (!f->is_nan(back))
                    k->nan++;
            } else if (back != h) {
                if (k->rt++ < MAX_REPORTED)
                    tap_diag("binary32: round trip 0x%08x -> %a -> 0x%08x", h, d, back);
            }
            if (f->is_inf(h) != ((h & ~sbit) == inf) || f->is_nan(h) != (isnan(d) != 0))
                k->cls++;
            /* neighbours: as nextafterf gives them */
            if (!is_nan_bits(f, h)) {
                float fl;
                memcpy(&fl, &h, 4);
                float up = nextafterf(fl, INFINITY), dn = nextafterf(fl, -INFINITY);
                uint32_t u = f->next_up(h), w = f->next_down(h);
                mix(u), mix(w);
                if (!same(f->decode(u), (double)up) || !same(f->decode(w), (double)dn)) {
                    /* nextafterf(-0, +inf) and (+0, -inf) agree with ours by value */
                    if (k->nx++ < MAX_REPORTED)
                        tap_diag("binary32: 0x%08x next_up %a (nextafterf %a), next_down %a (%a)", h, f->decode(u),
                                 (double)up, f->decode(w), (double)dn);
                }
                /* midpoint to the next value up: the even one; +-1 double ulp */
                if (isfinite(d) && u != inf && !(h & sbit)) {
                    double a = d, b = f->decode(u), mid = a / 2 + b / 2;
                    if (a != 0 || b != 0) {
                        uint32_t even = (h & 1) ? u : h, g = f->encode(mid);
                        uint32_t ga = f->encode(nextafter(mid, a)), gb = f->encode(nextafter(mid, b));
                        mix(g), mix(ga), mix(gb);
                        k->nmid++;
                        if (g != even && k->mid++ < MAX_REPORTED)
                            tap_diag("binary32: midpoint %a of 0x%08x -> 0x%08x", mid, h, g);
                        if ((ga != h || gb != u) && k->near++ < MAX_REPORTED)
                            tap_diag("binary32: near the midpoint above 0x%08x: 0x%08x, 0x%08x", h, ga, gb);
                    }
                    double gap = b - a; /* exact */
                    if (f->ulp(a) != gap && b != INFINITY && k->ulp++ < MAX_REPORTED)
                        tap_diag("binary32: ulp(%a) = %a, gap %a", a, f->ulp(a), gap);
                }
            }
        }
    }
    /* tiny and overflow boundaries */
    if (f->encode(0x1p-150) != 0 || f->encode(-0x1p-150) != sbit || f->encode(nextafter(0x1p-150, 1)) != 1 ||
        f->encode(0x1.8p-149) != 2)
        k->tiny++;
    const double thr = 0x1.ffffffp127; /* max + half an ulp */
    if (f->encode(thr) != inf || f->encode(nextafter(thr, 0)) != 0x7f7fffffu || f->encode(-thr) != (sbit | inf) ||
        f->encode(0x1.fffffep127) != 0x7f7fffffu || f->encode(1e300) != inf)
        k->ovf++;
    /* random doubles: MPFR, and (float)x in round-to-nearest */
    for (int i = 0; i < 300000; i++, k->nrnd++) {
        uint64_t r = splitmix(&seed);
        double x = (i & 1) ? bits_double(r) : ldexp(1.0 + (double)(r >> 11) * 0x1p-53, -155 + (int)(r % 290));
        check_encode(f, t, x, "random");
        /* volatile: gcc may move a conversion across fesetround even with
         * -frounding-math (gcc bug 34678) */
        volatile double vx = x;
        const int saved = fegetround();
        fesetround(FE_TONEAREST);
        volatile float fl = (float)vx;
        fesetround(saved);
        float fv = fl;
        uint32_t fb;
        memcpy(&fb, &fv, 4);
        if (f->encode(x) != fb && !isnan(x) && enc_bad++ < MAX_REPORTED)
            tap_diag("binary32: encode(%a) = 0x%08x, (float) in FE_TONEAREST 0x%08x", x, f->encode(x), fb);
    }
    k->rnd = enc_bad;
    if (f->ulp(0.0) != 0x1p-149 || f->ulp(0x1.fffffep127) != 0x1p104 || f->ulp(1.0) != 0x1p-23)
        k->ulp++;
    mpfr_clear(t);
    mpfr_default_range();
}

static void report(const tp_format *f, const char *mode, const counts *k, int exhaustive)
{
    const char *scope = exhaustive ? "all 65536 patterns" : "sampled patterns";
    tap_ok(k->dec == 0, "%s [%s]: decode agrees with MPFR on %s (%ld differ)", f->name, mode, scope, k->dec);
    if (f == &tp_bfloat16)
        tap_ok(k->dec2 == 0, "%s [%s]: decode agrees with the upper half of a binary32 (%ld differ)", f->name, mode,
               k->dec2);
    tap_ok(k->rt == 0 && k->nan == 0, "%s [%s]: encode(decode(h)) == h, NaN stays NaN (%ld, %ld wrong)", f->name, mode,
           k->rt, k->nan);
    tap_ok(k->cls == 0, "%s [%s]: is_nan / is_inf classify every pattern (%ld wrong)", f->name, mode, k->cls);
    tap_ok(k->mid == 0, "%s [%s]: %ld midpoints round to the even neighbour (%ld do not)", f->name, mode, k->nmid,
           k->mid);
    tap_ok(k->near == 0, "%s [%s]: midpoint +- one double ulp rounds to the nearer neighbour (%ld do not)", f->name,
           mode, k->near);
    tap_ok(k->tiny == 0, "%s [%s]: half the smallest subnormal ties to +-0, just above to it", f->name, mode);
    tap_ok(k->ovf == 0, "%s [%s]: overflow to infinity from max + ulp/2 on, both signs (%ld wrong)", f->name, mode,
           k->ovf);
    tap_ok(k->rnd == 0, "%s [%s]: encode agrees with MPFR RNDN + subnormalize on %ld random doubles (%ld differ)",
           f->name, mode, k->nrnd, k->rnd);
    tap_ok(k->nx == 0, "%s [%s]: next_up/next_down give the adjacent value (%ld wrong)", f->name, mode, k->nx);
    tap_ok(k->ulp == 0, "%s [%s]: ulp is the gap to the next value (%ld wrong)", f->name, mode, k->ulp);
    if (exhaustive)
        tap_ok(k->cst == 0, "%s [%s]: ceil/floor round up/down to the format (%ld wrong)", f->name, mode, k->cst);
}

/* ---- descriptors, lookups, storage, .npy ------------------------------- */

static void descriptors(void)
{
    const tp_format *b16 = &tp_binary16, *bf = &tp_bfloat16, *b32 = &tp_binary32;
    tap_ok(tp_format_of(TP_F16) == b16 && tp_format_of(TP_BF16) == bf && tp_format_of(TP_F32) == b32 &&
               !tp_format_of(TP_I32) && !tp_format_of(TP_I64),
           "tp_format_of: f16, bf16, f32 have descriptors, i32 and i64 none");
    tap_ok(tp_format_named("binary16") == b16 && tp_format_named("f16") == b16 && tp_format_named("bfloat16") == bf &&
               tp_format_named("bf16") == bf && tp_format_named("binary32") == b32 && tp_format_named("f32") == b32 &&
               !tp_format_named("i32") && !tp_format_named("binary64") && !tp_format_named(NULL),
           "tp_format_named: by format name and by dtype name; unknown names give NULL");
    int n = 0;
    for (const tp_format *const *f = tp_formats(); *f; f++)
        n++;
    tap_ok(n == 3, "tp_formats lists 3 formats");
    tap_ok(b16->size == 2 && bf->size == 2 && b32->size == 4 && b16->precision == 11 && bf->precision == 8 &&
               b32->precision == 24 && b16->emin == -14 && b16->emax == 15 && bf->emin == -126 && bf->emax == 127 &&
               b32->emin == -126 && b32->emax == 127,
           "sizes, precisions and exponent ranges: 2/11/[-14,15], 2/8/[-126,127], 4/24/[-126,127]");
    int cst = 1;
    for (const tp_format *const *p = tp_formats(); *p; p++) {
        const tp_format *f = *p;
        uint32_t inf = tp_ieee_inf_bits(f->exp_bits, f->frac_bits);
        cst &= f->decode(inf - 1) == f->max_finite && f->decode(1u << f->frac_bits) == f->min_normal &&
               f->decode(1) == f->min_subnormal && f->min_normal == ldexp(1.0, f->emin) &&
               f->min_subnormal == ldexp(1.0, f->emin + 1 - f->precision) &&
               f->max_finite == ldexp(2.0 - ldexp(1.0, 1 - f->precision), f->emax) &&
               f->exp_bits + f->frac_bits + 1 == (int)(8 * f->size) && f->precision == f->frac_bits + 1 &&
               f->dtype == tp_format_of(f->dtype)->dtype;
    }
    tap_ok(cst, "max_finite, min_normal, min_subnormal are the decoded extreme patterns (65504, 0x1.fep127, ...)");
    tap_ok(tp_binary16.max_finite == 65504.0 && tp_bfloat16.min_subnormal == 0x1p-133 &&
               tp_binary32.max_finite == 0x1.fffffep127,
           "binary16 max 65504, bfloat16 smallest subnormal 2^-133, binary32 max 0x1.fffffep127");

    /* load / store through the tensor's storage */
    uint16_t h[3];
    float w[3];
    tp_format_store(bf, h, 0, 1.00390625); /* 1 + 2^-8: a tie, to even 1.0 */
    tp_format_store(bf, h, 1, 3.0);
    tp_format_store(bf, h, 2, -1e39); /* overflow */
    tp_format_store(b32, w, 0, 0.1);
    tp_format_store(b32, w, 1, -0.0);
    tp_format_store(b32, w, 2, 0x1p-150);
    tap_ok(h[0] == 0x3f80 && h[1] == 0x4040 && h[2] == 0xff80 && tp_format_load(bf, h, 1) == 3.0 &&
               tp_format_bits(bf, h, 2) == 0xff80 && w[0] == 0.1f && signbit(w[1]) && w[2] == 0.0f &&
               tp_format_load(b32, w, 0) == (double)0.1f,
           "tp_format_store / tp_format_load round and read elements in the tensor's storage");
    tap_ok(tp_dtype_size(TP_BF16) == 2 && strcmp(tp_dtype_name(TP_BF16), "bf16") == 0 &&
               strcmp(tp_npy_descr(TP_BF16), "<V2") == 0,
           "bf16: 2 bytes, named bf16, written to .npy as '<V2'");

    /* .npy round trip of a bf16 tensor, and '|V2' read as bf16 */
    char path[] = "/tmp/tp_test_format_XXXXXX";
    int fd = mkstemp(path);
    int ok = fd >= 0;
    if (fd >= 0)
        close(fd);
    int64_t shape[1] = {3};
    ok = ok && tp_npy_write(path, TP_BF16, 1, shape, h) == 0;
    tp_dtype dt = TP_F16;
    int rank = 0;
    int64_t got_shape[4];
    void *data = NULL;
    char err[300] = "";
    ok = ok && tp_npy_read(path, &dt, &rank, got_shape, &data, err, sizeof err) == 0 && dt == TP_BF16 && rank == 1 &&
         got_shape[0] == 3 && memcmp(data, h, sizeof h) == 0;
    free(data);
    data = NULL;
    char text[200] = "";
    FILE *fp = fopen(path, "rb");
    if (fp) {
        size_t nr = fread(text, 1, sizeof text - 1, fp);
        text[nr] = 0;
        fclose(fp);
    }
    ok = ok && strstr(text + 10, "'descr': '<V2'") != NULL;
    tap_ok(ok, "a bf16 tensor goes to .npy with descr '<V2' and comes back as bf16, bits unchanged%s%s",
           err[0] ? ": " : "", err);
    /* the same file with '|V2' (plain NumPy's void) */
    char *p = strstr(text + 10, "'<V2'");
    ok = p != NULL;
    if (ok && (fp = fopen(path, "r+b"))) {
        fseek(fp, p - text + 1, SEEK_SET);
        fputc('|', fp);
        fclose(fp);
        dt = TP_F16;
        ok = tp_npy_read(path, &dt, &rank, got_shape, &data, err, sizeof err) == 0 && dt == TP_BF16;
        free(data);
    }
    tap_ok(ok, "'|V2' is read as bf16 too");
    remove(path);
}

int main(void)
{
    const tp_format *const sixteen[] = {&tp_binary16, &tp_bfloat16};
    uint64_t digests[3][NMODES];
    const int saved = fegetround();
    for (int m = 0; m < NMODES; m++) {
        for (int i = 0; i < 2; i++) {
            counts k;
            memset(&k, 0, sizeof k);
            digest = 0xcbf29ce484222325ULL;
            fesetround(modes[m]);
            exhaustive16(sixteen[i], &k);
            fesetround(saved);
            digests[i][m] = digest;
            report(sixteen[i], mode_names[m], &k, 1);
        }
        counts k;
        memset(&k, 0, sizeof k);
        digest = 0xcbf29ce484222325ULL;
        fesetround(modes[m]);
        sampled32(&k);
        fesetround(saved);
        digests[2][m] = digest;
        report(&tp_binary32, mode_names[m], &k, 0);
    }
    const char *const names[] = {"binary16", "bfloat16", "binary32"};
    for (int i = 0; i < 3; i++) {
        int same_all = 1;
        for (int m = 1; m < NMODES; m++)
            same_all &= digests[i][m] == digests[i][0];
        tap_ok(same_all, "%s: every codec result is identical in the four rounding modes (digest %016llx)", names[i],
               (unsigned long long)digests[i][0]);
    }
    tap_ok(fegetround() == saved, "the caller's rounding mode is left as it was");
    descriptors();
    mpfr_free_cache();
    return tap_done();
}
