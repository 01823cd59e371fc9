/* The hand-written exp enclosure (oracles/common/exp_enclose.c) against
 * MPFR's exp at 200 bits: on random points of [-745, 709], on points near
 * multiples of ln2 / 2 (where the reduction switches k) and near 0, on
 * narrow intervals, and on the ends of its range: every enclosure holds
 * the value, and is within 2^-48 relative of it where exp is normal. */
#include "oracles/common/exp_enclose.h"
#include "tests/tap.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

typedef struct {
    long n, outside, wide;
    double worst; /* largest relative width seen where exp is normal */
} tally;

/* One interval [a, b]: enclosed in FE_UPWARD, checked in round-to-nearest. */
static void check(const tp_exp_ctx *c, double a, double b, mpfr_t t, tally *s)
{
    double lo, hi;
    fesetround(FE_UPWARD);
    tp_exp_enclose_up(c, a, b, &lo, &hi);
    fesetround(FE_TONEAREST);
    s->n++;
    mpfr_set_d(t, a, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDD); /* below exp(a): lo must not exceed exp(a) */
    const int lo_ok = mpfr_cmp_d(t, lo) >= 0 || lo == 0.0;
    mpfr_set_d(t, a, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    const int lo_le = mpfr_cmp_d(t, lo) >= 0;
    const double ea = mpfr_get_d(t, MPFR_RNDN);
    mpfr_set_d(t, b, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDU);
    const int hi_ok = mpfr_cmp_d(t, hi) <= 0;
    if (!(lo_ok && lo_le && hi_ok && lo <= hi)) {
        if (s->outside++ < 3)
            tap_diag("exp over [%.17g, %.17g]: enclosure [%.17g, %.17g] does not hold it", a, b, lo, hi);
        return;
    }
    if (a == b && a >= -708.0) {
        const double w = (hi - lo) / ea;
        if (w > s->worst)
            s->worst = w;
        s->wide += w > 0x1p-48;
    }
}

int main(void)
{
    fesetround(FE_UPWARD);
    tp_exp_ctx c;
    tp_exp_ctx_init(&c);
    fesetround(FE_TONEAREST);
    mpfr_t t;
    mpfr_init2(t, 200);
    tally s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < 400000; i++) {
        const double x = -745.0 + 1454.0 * uniform();
        check(&c, x, x, t, &s);
    }
    for (int i = 0; i < 200000; i++) { /* scores minus a row maximum: mostly in [-30, 0] */
        const double x = -30.0 * uniform();
        check(&c, x, x, t, &s);
    }
    for (int k = -1100; k <= 1100; k++) /* around the switches of k */
        for (int d = -2; d <= 2; d++) {
            const double x = k * 0.34657359027997264 + d * 1e-15;
            if (x >= -745.0 && x <= 709.0)
                check(&c, x, x, t, &s);
        }
    for (int e = -1074; e <= 0; e += 3) { /* near 0, both signs */
        check(&c, ldexp(1.0, e), ldexp(1.0, e), t, &s);
        check(&c, -ldexp(1.0, e), -ldexp(1.0, e), t, &s);
    }
    check(&c, 0.0, 0.0, t, &s);
    check(&c, -708.0, -708.0, t, &s);
    check(&c, -708.5, -708.4, t, &s);
    check(&c, 709.0, 709.0, t, &s);
    for (int i = 0; i < 100000; i++) { /* narrow intervals */
        const double x = -100.0 * uniform(), w = x * 1e-12 * uniform();
        check(&c, x + w, x, t, &s);
    }
    tap_ok(s.outside == 0, "exp enclosure holds MPFR's exp on %ld arguments and intervals (%ld not)", s.n, s.outside);
    tap_ok(s.wide == 0, "and is within 2^-48 relative where exp is normal (%ld wider; widest %.3g = 2^%.1f)", s.wide,
           s.worst, log2(s.worst));
    double lo, hi;
    fesetround(FE_UPWARD);
    tp_exp_enclose_up(&c, -800.0, -790.0, &lo, &hi);
    fesetround(FE_TONEAREST);
    tap_ok(lo == 0.0 && hi == 0x1p-1020, "below -708: [0, 2^-1020]");
    fesetround(FE_UPWARD);
    tp_exp_enclose_up(&c, 710.0, 720.0, &lo, &hi);
    fesetround(FE_TONEAREST);
    tap_ok(lo > 8e307 && isinf(hi), "above 709: a finite lower end and an infinite upper end");
    mpfr_clear(t);
    return tap_done();
}
