/* Checks the proven interval evaluator (oracles/common/proven/tp_ival*.c)
 * against MPFR, for each primitive in `tested`: for intervals built
 * from edge values (signed zeros,
 * subnormals, powers of two and their neighbours, values near the binary32
 * overflow threshold) and from random binary32 values over the whole
 * exponent range (wide intervals, and narrow ones of comparable operands),
 *  - soundness: RN32(x op y), computed with MPFR (exact or 2200-bit result,
 *    then one rounding to 24 bits in the binary32 exponent range with
 *    subnormals), lies in the result, for the corners and for random real
 *    (double) operands inside the intervals;
 *  - tightness: each end equals RN32 of the smallest / largest exact corner
 *    result, so both ends are attained and the widening factor is 1;
 *  - only inputs the contract's `requires` admits are passed (ends' exact
 *    results within the binary32 range, divisor interval positive,
 *    sqrt operand >= 0, finite ends: infinities are among the edge
 *    values); the others are counted;
 *  - the ops' conservative check of those requires
 *    (oracles/common/ival_guard.h) admits no input outside them, and
 *    none at all under a directed rounding mode.
 * Build with -ffp-contract=off -frounding-math. */
#include "tests/tap.h"
#include "oracles/common/ival_guard.h"
#include "oracles/common/proven/tp_ival.h"
#include "oracles/common/proven/tp_ival_mul.h"
#include "oracles/common/proven/tp_ival_div.h"
#include "oracles/common/proven/tp_ival_fma.h"
#include "oracles/common/proven/tp_ival_sqrt.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTED 5

enum { ADD, SUB, MUL, DIV, FMA, SQRT, NOPS };
static const char *const names[NOPS] = {"tp_ival32_add", "tp_ival32_sub", "tp_ival32_mul",
                                        "tp_ival32_div", "tp_ival32_fma", "tp_ival32_sqrt"};

static mpfr_t ex, r24, ma, mb, mc;

/* RN32(x op y [+ z]) for doubles: the result at 2200 bits (exact for add,
 * sub, mul and fma of doubles; for div and sqrt a 2200-bit rounding cannot
 * move across a 24-bit midpoint), then one rounding to binary32 (24 bits,
 * emin -148, emax 128, subnormals). *in_range: |exact| <= FLT_MAX. */
static float rn32(int op, double x, double y, double z, int *in_range)
{
    mpfr_set_d(ma, x, MPFR_RNDN);
    mpfr_set_d(mb, y, MPFR_RNDN);
    mpfr_set_d(mc, z, MPFR_RNDN);
    switch (op) {
    case ADD: mpfr_add(ex, ma, mb, MPFR_RNDN); break;
    case SUB: mpfr_sub(ex, ma, mb, MPFR_RNDN); break;
    case MUL: mpfr_mul(ex, ma, mb, MPFR_RNDN); break;
    case DIV: mpfr_div(ex, ma, mb, MPFR_RNDN); break;
    case FMA: mpfr_fma(ex, ma, mb, mc, MPFR_RNDN); break;
    default: mpfr_sqrt(ex, ma, MPFR_RNDN); break;
    }
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
    long calls, outside, unsound, loose, samples, guarded, guard_unsafe;
} stats;

/* The primitive under test (each op in `tested` has one). */
static tp_ival32 call(int op, tp_ival32 a, tp_ival32 b, tp_ival32 c)
{
    switch (op) {
    case ADD: return tp_ival32_add(a, b);
    case SUB: return tp_ival32_sub(a, b);
    case MUL: return tp_ival32_mul(a, b);
    case DIV: return tp_ival32_div(a, b);
    case FMA: return tp_ival32_fma(a, b, c);
    default: return tp_ival32_sqrt(a);
    }
}

/* The proven primitives (tp_ival*.c). */
static const int tested[] = {ADD, SUB, MUL, DIV, FMA, SQRT};

static void check(int op, tp_ival32 a, tp_ival32 b, tp_ival32 c, stats *st)
{
    /* The contract's requires, and the tightest ends: RN32 of the smallest
     * and largest exact corner result. */
    const int nargs = op == SQRT ? 1 : op == FMA ? 3 : 2;
    /* the ops' check of the requires (oracles/common/ival_guard.h): it may
     * refuse more than the contract does, never admit more */
    const int guard = op == MUL                ? tp_ival32_mul_ok(a, b)
                      : op == DIV              ? tp_ival32_div_ok(a, b)
                      : op == FMA              ? tp_ival32_fma_ok(a, b, c)
                      : op == ADD || op == SUB ? tp_ival32_addsub_ok(a, b)
                                               : 0;
    st->guarded += guard;
    const int finite = isfinite(a.lo) && isfinite(a.hi) && (nargs < 2 || (isfinite(b.lo) && isfinite(b.hi))) &&
                       (nargs < 3 || (isfinite(c.lo) && isfinite(c.hi)));
    if (!finite || (op == DIV && !(b.lo > 0)) || (op == SQRT && !(a.lo >= 0))) {
        st->outside++;
        st->guard_unsafe += guard;
        return;
    }
    float want_lo = INFINITY, want_hi = -INFINITY;
    int ok = 1;
    const float ax[2] = {a.lo, a.hi}, bx[2] = {b.lo, b.hi}, cx[2] = {c.lo, c.hi};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < (op == SQRT ? 1 : 2); j++)
            for (int k = 0; k < (op == FMA ? 2 : 1); k++) {
                int in;
                float v = rn32(op, ax[i], op == SUB ? bx[1 - j] : bx[j], cx[k], &in);
                ok &= in;
                want_lo = v < want_lo ? v : want_lo;
                want_hi = v > want_hi ? v : want_hi;
            }
    if (!ok) {
        st->outside++;
        st->guard_unsafe += guard;
        return;
    }
    tp_ival32 r = call(op, a, b, c);
    st->calls++;
    if (r.lo != want_lo || r.hi != want_hi) {
        if (st->loose++ < MAX_REPORTED)
            tap_diag("%s [%a, %a] [%a, %a] [%a, %a]: got [%a, %a], tightest [%a, %a]", names[op], a.lo, a.hi, b.lo,
                     b.hi, c.lo, c.hi, r.lo, r.hi, want_lo, want_hi);
    }
    for (int k = 0; k < 12; k++) {
        double x = k < 2 ? (k ? a.hi : a.lo) : rand_in(a.lo, a.hi);
        double y = k < 4 ? ((k & 1) ? b.hi : b.lo) : rand_in(b.lo, b.hi);
        double z = rand_in(c.lo, c.hi);
        int in;
        float v = rn32(op, x, y, z, &in);
        st->samples++;
        if (!(r.lo <= v && v <= r.hi)) {
            if (st->unsound++ < MAX_REPORTED)
                tap_diag("%s: RN32 at x=%a y=%a z=%a is %a, outside [%a, %a]", names[op], x, y, z, v, r.lo, r.hi);
        }
    }
}

static const float edges[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, -0x1p-126f, 0x1.fffffcp-127f,
                              1.0f, -1.0f, 0x1.fffffep-1f, 0x1.000002p0f, 2.0f, -0x1.fffffep0f, 0x1p24f,
                              0x1.fffffep23f, 65504.0f, -65504.0f, 0x1p127f, -0x1p127f, 0x1.fffffep127f,
                              -0x1.fffffep127f, 0x1.fffffcp127f, 3.0f, 0.1f, -0.1f, 0x1p64f, 0x1p-64f,
                              /* outside every primitive's requires: counted, never passed */
                              INFINITY, -INFINITY};
#define NEDGE ((int)(sizeof edges / sizeof edges[0]))

static tp_ival32 ival(float x, float y)
{
    tp_ival32 r = {x < y ? x : y, x < y ? y : x};
    return r;
}

int main(void)
{
    mpfr_inits2(2200, ex, (mpfr_ptr)0);
    mpfr_inits2(53, ma, mb, mc, (mpfr_ptr)0);
    mpfr_init2(r24, 24);
    for (size_t t = 0; t < sizeof tested / sizeof tested[0]; t++) {
        const int op = tested[t];
        stats st = {0};
        for (int i = 0; i < NEDGE; i++)
            for (int j = 0; j < NEDGE; j++)
                for (int k = 0; k < NEDGE; k += 3)
                    for (int l = 0; l < NEDGE; l += 2) {
                        const float c0 = edges[(i + k) % NEDGE], c1 = edges[(j + l) % NEDGE];
                        check(op, ival(edges[i], edges[j]), ival(edges[k], edges[l]), ival(c0, c1), &st);
                    }
        for (int n = 0; n < 200000; n++) {
            float x = rand_f32(), y = rand_f32(), z = rand_f32(), w = rand_f32(), u = rand_f32(), v = rand_f32();
            if (n & 1) { /* narrow intervals, operands of comparable size: cancellation */
                y = nextafterf(x, (n & 2) ? INFINITY : -INFINITY);
                if (n & 8)
                    z = ldexpf(z, ilogbf(x) - ilogbf(z));
                w = nextafterf(z, (n & 4) ? INFINITY : -INFINITY);
                u = ldexpf(u, ilogbf(x) + ilogbf(z) - ilogbf(u));
                v = nextafterf(u, INFINITY);
            }
            if (op == DIV && (n & 16)) { /* the contract's divisors are positive: more of them */
                z = fabsf(z);
                w = fabsf(w);
            }
            check(op, ival(x, y), ival(z, w), ival(u, v), &st);
        }
        tap_ok(st.unsound == 0 && st.calls > 100000,
               "%s sound: %ld calls, %ld sampled results (MPFR RN32) all inside; %ld inputs outside the requires",
               names[op], st.calls, st.samples, st.outside);
        tap_ok(st.loose == 0, "%s tight: both ends equal RN32 of the extreme exact corner results in %ld of %ld "
                              "calls (widening factor 1)", names[op], st.calls - st.loose, st.calls);
        if (op != SQRT)
            tap_ok(st.guard_unsafe == 0 && st.guarded > 100000,
                   "%s: oracles/common/ival_guard.h admits %ld inputs, none outside the requires (%ld are)",
                   names[op], st.guarded, st.guard_unsafe);
    }
    /* The proofs are in round-to-nearest: under a directed rounding mode
     * the checks refuse inputs they admit otherwise. */
    const tp_ival32 one = {1.0f, 2.0f};
    const int admitted_rn = tp_ival32_addsub_ok(one, one) && tp_ival32_mul_ok(one, one) &&
                            tp_ival32_div_ok(one, one) && tp_ival32_fma_ok(one, one, one);
    int refused_directed = 1;
    const int modes[] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    for (int k = 0; k < 3; k++) {
        fesetround(modes[k]);
        refused_directed &= !tp_ival32_addsub_ok(one, one) && !tp_ival32_mul_ok(one, one) &&
                            !tp_ival32_div_ok(one, one) && !tp_ival32_fma_ok(one, one, one);
        fesetround(FE_TONEAREST);
    }
    tap_ok(admitted_rn && refused_directed,
           "oracles/common/ival_guard.h admits [1, 2] op [1, 2] in round-to-nearest, refuses it under the three "
           "directed modes");
    mpfr_clears(ex, r24, ma, mb, mc, (mpfr_ptr)0);
    return tap_done();
}
