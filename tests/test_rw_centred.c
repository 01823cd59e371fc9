/* The centred-sum bound of op rowwise (oracles/generic/rw_centred.h):
 *  - which terms it recognizes: (x - c) * (x - c) and (c - x) * (c - x),
 *    c constant along the row; not x * x, not two different factors, not
 *    a c that reads the row's element, not a sum with more after the
 *    product;
 *  - soundness: on rows of binary16 values (normal, a large mean with a
 *    tiny spread, constant, mixed magnitudes down to subnormals, lengths 1
 *    to 4096), for intervals of c around the mean and away from it, every
 *    binary32 evaluation the kernel may run lands in [L, H]: c at both
 *    ends, next to the mean and at random inside; d = x - c rounded; the
 *    squares rounded then added, or fused (fmaf), in order, reversed and
 *    in a pairwise tree;
 *  - tightness: with c a point, the width is within the sum bound's own
 *    2 (n C + 3 u) T (1 + 1e-3); with an interval of c holding the mean it
 *    grows only by n (width(c) / 2)^2, T's own growth, with no first-order
 *    term 2 width(c) sum |x - c| (the per-term hull's, printed);
 *  - refusals: an overflowing square, a non-finite c.
 * Built with -ffp-contract=off: a * b + c below is two roundings. */
#include "core/tp_fp16.h"
#include "core/tp_rng.h"
#include "oracles/common/sum_bound.h"
#include "oracles/generic/rw_centred.h"
#include "tests/tap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the project's counter-based generator (core/tp_rng.h), one stream */
static uint64_t counter;
static uint64_t next(void) { return tp_rng_u64(0x243f6a8885a308d3u, 1, counter++); }
static double uniform(void) { return tp_rng_uniform(0x243f6a8885a308d3u, 1, counter++); }
static double normal(void)
{
    const double u = uniform() + 0x1p-60, v = uniform();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}
static float f16(double v) { return (float)tp_f16_to_double(tp_f16_from_double(v)); }

/* A setup of one varying input x, one reduction s1 and one dim cols, as
 * op rowwise lays out LayerNorm's variance term. */
static rw_setup setup(void)
{
    rw_setup s;
    memset(&s, 0, sizeof s);
    s.nin = 1, s.nred = 1, s.ndims = 1;
    s.where[0] = RW_AT_ELEMENT;
    return s;
}

static int matches(const char *text, rw_centred *m)
{
    static const char *const names[] = {"x", "s1", "cols"};
    ew_prog p;
    tp_grammar_error e;
    const rw_setup s = setup();
    if (ew_parse(text, 3, names, &p, &e) != 0)
        return -1;
    return rw_centred_match(&s, &p, m);
}

static void test_match(void)
{
    rw_centred m = {-1, -1};
    tap_ok(matches("(x - s1 / cols) * (x - s1 / cols)", &m) == 1 && m.x == 0,
           "(x - s1 / cols) * (x - s1 / cols) is a centred sum of input x");
    tap_ok(matches("(s1 / cols - x) * (s1 / cols - x)", &m) == 1 && m.x == 0, "so is (s1 / cols - x) * (s1 / cols - x)");
    tap_ok(matches("(x - s1) * (x - s1)", &m) == 1, "and (x - s1) * (x - s1)");
    tap_ok(matches("x * x", &m) == 0, "x * x is not (no centre)");
    tap_ok(matches("(x - s1 / cols) * (x - s1)", &m) == 0, "two different factors are not");
    tap_ok(matches("(x - x / cols) * (x - x / cols)", &m) == 0, "a centre that reads the row's element is not");
    tap_ok(matches("(x - s1 / cols) * (x - s1 / cols) + 1.0f", &m) == 0, "a term with more after the product is not");
    tap_ok(matches("(x + s1) * (x + s1)", &m) == 0, "a sum, not a difference, is not");
}

/* The kernel's binary32 sum of the squares of RN32(x_j - c): fused or
 * not, in order (0), reversed (1) or as a pairwise tree (2). */
static float tree(const float *d, long long lo, long long hi, int fused)
{
    if (hi - lo == 1)
        return fused ? fmaf(d[lo], d[lo], 0.0f) : d[lo] * d[lo];
    const long long mid = lo + (hi - lo) / 2;
    return tree(d, lo, mid, fused) + tree(d, mid, hi, fused);
}
static float kernel_sum(const float *x, long long n, float c, int fused, int order, float *d)
{
    for (long long j = 0; j < n; j++)
        d[j] = x[j] - c;
    if (order == 2)
        return tree(d, 0, n, fused);
    float acc = 0.0f;
    for (long long k = 0; k < n; k++) {
        const float v = d[order ? n - 1 - k : k];
        acc = fused ? fmaf(v, v, acc) : acc + v * v;
    }
    return acc;
}

/* T(c) = sum (x - c)^2 in MPFR, exactly enough for a tightness figure. */
static double exact_t(const float *x, long long n, double c)
{
    mpfr_t s, t;
    mpfr_inits2(256, s, t, (mpfr_ptr)0);
    mpfr_set_zero(s, 1);
    for (long long j = 0; j < n; j++) {
        mpfr_set_flt(t, x[j], MPFR_RNDN);
        mpfr_sub_d(t, t, c, MPFR_RNDN);
        mpfr_sqr(t, t, MPFR_RNDN);
        mpfr_add(s, s, t, MPFR_RNDN);
    }
    const double r = mpfr_get_d(s, MPFR_RNDN);
    mpfr_clears(s, t, (mpfr_ptr)0);
    return r;
}

typedef struct {
    rw_centred_ws w;
    mpfr_t *terms;
    mpfr_ptr *ptrs;
    float *d;
} bench;

static void row(long long n, int shape, float *x)
{
    const double mean = shape == 1 ? 1000.0 : normal();
    for (long long j = 0; j < n; j++) {
        double v;
        switch (shape) {
        case 0: v = mean + normal(); break;
        case 1: v = mean + 2.0 * normal(); break; /* binary16 spacing 0.5 there */
        case 2: v = 3.5; break;
        default: v = ldexp(normal(), (int)(next() % 40) - 26); break; /* 2^-26 .. 2^13: subnormals too */
        }
        x[j] = f16(v);
    }
}

static int sound_row(bench *b, const float *x, long long n, tp_ival32 cv, long long *evals)
{
    double L, H;
    if (!rw_centred_sum(&b->w, x, n, cv, b->terms, b->ptrs, &L, &H))
        return tap_ok(0, "the bound applies to a row of %lld terms, c in [%.9g, %.9g]", n, cv.lo, cv.hi);
    double mean = 0.0;
    for (long long j = 0; j < n; j++)
        mean += x[j];
    mean /= (double)n;
    float cs[6] = {cv.lo, cv.hi, (float)mean, nextafterf((float)mean, INFINITY), 0, 0};
    cs[4] = (float)(cv.lo + (cv.hi - cv.lo) * uniform());
    cs[5] = (float)(cv.lo + (cv.hi - cv.lo) * uniform());
    for (int k = 0; k < 6; k++) {
        if (!(cs[k] >= cv.lo && cs[k] <= cv.hi))
            continue;
        for (int fused = 0; fused < 2; fused++)
            for (int order = 0; order < 3; order++) {
                const float r = kernel_sum(x, n, cs[k], fused, order, b->d);
                ++*evals;
                if (!(r >= L && r <= H))
                    return tap_ok(0, "n = %lld, c = %.9g, fused %d, order %d: %.9g outside [%.17g, %.17g]", n, cs[k],
                                  fused, order, r, L, H);
            }
    }
    return 1;
}

static void test_sound(bench *b)
{
    static const long long lens[] = {1, 2, 3, 7, 64, 77, 1000, 1024, 4096};
    long long evals = 0;
    int ok = 1, rows = 0;
    float *x = malloc(sizeof(float) * 4096);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0] && ok; li++)
        for (int shape = 0; shape < 4 && ok; shape++)
            for (int rep = 0; rep < 6 && ok; rep++) {
                const long long n = lens[li];
                row(n, shape, x);
                double mean = 0.0;
                for (long long j = 0; j < n; j++)
                    mean += x[j];
                mean /= (double)n;
                /* a point, a few ulps around the mean, a wide interval, one beside the mean */
                const float m = (float)mean;
                const float spread = (float)(fabs(mean) * 0x1p-12 + 0x1p-20);
                const tp_ival32 cvs[4] = {{m, m},
                                          {nextafterf(nextafterf(m, -INFINITY), -INFINITY),
                                           nextafterf(nextafterf(m, INFINITY), INFINITY)},
                                          {m - spread, m + spread},
                                          {m + spread, m + 2 * spread}};
                for (int k = 0; k < 4 && ok; k++, rows++)
                    ok = sound_row(b, x, n, cvs[k], &evals);
            }
    free(x);
    tap_ok(ok, "every kernel evaluation lies in [L, H]: %d rows and intervals of c, %lld evaluations", rows, evals);
}

static void test_tight(bench *b)
{
    const long long n = 1024;
    float *x = malloc(sizeof(float) * n);
    row(n, 1, x); /* mean 1000, spread 2: the per-term hull's worst case */
    double mean = 0.0;
    for (long long j = 0; j < n; j++)
        mean += x[j];
    mean /= (double)n;
    const float m = (float)mean;
    const double T = exact_t(x, n, m), C = tp_sum_c(n), u = 0x1p-24;
    double L, H;
    const tp_ival32 point = {m, m};
    rw_centred_sum(&b->w, x, n, point, b->terms, b->ptrs, &L, &H);
    const double own = 2.0 * ((double)n * C + 3.0 * u) * T * (1.0 + 1e-3) + 4.0 * n * 0x1p-149;
    tap_ok(H - L <= own, "c a point: width %.6g <= 2 (n C + 3 u) T = %.6g (T = %.9g)", H - L, own, T);
    const float w = 0.0625f; /* 1000 +- 1/32: about the mean interval of a 1024-term fp32 sum */
    const tp_ival32 wide = {m - w / 2, m + w / 2};
    rw_centred_sum(&b->w, x, n, wide, b->terms, b->ptrs, &L, &H);
    const double r = w / 2 + fabs((double)m - mean); /* the farthest c from the mean */
    const double T2 = exact_t(x, n, mean + r);
    const double second = own * (T2 / T) + (double)n * r * r * (1.0 + 1e-6);
    double dev = 0.0;
    for (long long j = 0; j < n; j++)
        dev += fabs(x[j] - (double)m);
    tap_ok(H - L <= second,
           "c in an interval of width %g around the mean: width %.6g <= the bound's own at the far end plus n (w/2)^2 = "
           "%.6g "
           "(the per-term hull would add 2 w sum |x - c| = %.6g)",
           (double)w, H - L, second, 2.0 * w * dev);
    free(x);
}

static void test_refusals(bench *b)
{
    const float x[2] = {65504.0f, -65504.0f};
    double L, H;
    const tp_ival32 far = {-0x1p70f, -0x1p70f}, inf = {0.0f, INFINITY};
    tap_ok(!rw_centred_sum(&b->w, x, 2, far, b->terms, b->ptrs, &L, &H),
           "a square that may overflow binary32: not applied (the per-term bound decides, and refuses)");
    tap_ok(!rw_centred_sum(&b->w, x, 2, inf, b->terms, b->ptrs, &L, &H), "a centre with an infinite end: not applied");
}

int main(void)
{
    bench b;
    rw_centred_ws_init(&b.w);
    const long long most = 4096;
    b.terms = malloc(sizeof(mpfr_t) * 2 * most);
    b.ptrs = malloc(sizeof(mpfr_ptr) * 2 * most);
    b.d = malloc(sizeof(float) * most);
    for (long long j = 0; j < 2 * most; j++) {
        mpfr_init2(b.terms[j], 53);
        b.ptrs[j] = b.terms[j];
    }
    test_match();
    test_sound(&b);
    test_tight(&b);
    test_refusals(&b);
    for (long long j = 0; j < 2 * most; j++)
        mpfr_clear(b.terms[j]);
    free(b.terms), free(b.ptrs), free(b.d);
    rw_centred_ws_clear(&b.w);
    return tap_done();
}
