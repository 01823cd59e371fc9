/* Checks the proven long-row sum bound tp_sum_bound_long_rn (through
 * oracles/common/sum_interval.h's tp_sum_interval_long, as op rowwise calls
 * it) against MPFR on sums of 65537 to 262144 binary16 products:
 *  - sound: [L, H] holds S - e and S + e with e = n*dot_c_long*sum|t| +
 *    n*dot_eta, dot_fp32.c's `bound_long`, computed by MPFR at 400 bits;
 *  - fp32 sums of the terms in three orders (forward, reversed, a pairwise
 *    tree) lie inside;
 *  - not looser than the proof needs: H - S and S - L at most 1.0006 e plus
 *    2^-49 |S| (m = 0x1.024 n terms of 2^-24 0x1.02 is 1.00055 times the
 *    long constant; the rest is the margins of tp_sum_bound.c);
 *  - 262145 terms are refused (0), as are whole numbers past the guard. */
#include "tests/tap.h"
#include "tests/test_rng.h"
#include "core/tp_format.h"
#include "oracles/common/sum_interval.h"
#include "oracles/gemm/proven/gemm.h"

#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rng = 10;

/* A random binary16 value scaled by 2^(band - 16), below 2^band: 11
 * significant bits, so the product of two is exact in fp32, as a kernel's
 * products of binary16 operands are. */
static float rand_f16(int band)
{
    return ldexpf(tp_test_finite_f16(&rng), band - 16);
}

static float tree(const float *t, int n)
{
    if (n == 1)
        return t[0];
    int h = n / 2;
    return tree(t, h) + tree(t + h, n - h);
}

/* One row of n products a_k b_k (exact in fp32: binary16 operands). */
static void one_row(const float *t, int n, const char *what)
{
    mpfr_t S, A, e, x;
    mpfr_inits2(400, S, A, e, x, (mpfr_ptr)0);
    mpfr_set_zero(S, 1);
    mpfr_set_zero(A, 1);
    for (int k = 0; k < n; k++) {
        mpfr_add_d(S, S, t[k], MPFR_RNDN); /* exact at 400 bits */
        mpfr_add_d(A, A, fabsf(t[k]), MPFR_RNDN);
    }
    const double hi = mpfr_get_d(S, MPFR_RNDN);
    mpfr_sub_d(x, S, hi, MPFR_RNDN);
    const double lo = mpfr_get_d(x, MPFR_RNDN); /* hi + lo == S: |S| < 2^51, 2^-48 granularity */
    const double absum = mpfr_get_d(A, MPFR_RNDU);
    double L = 0.0, H = 0.0;
    const int ok = tp_sum_interval_long(hi, lo, absum, n, &L, &H);
    /* e = n dot_c_long A + n dot_eta */
    mpfr_mul_d(e, A, (double)n * TP_DOT_C_LONG, MPFR_RNDN);
    mpfr_set_d(x, (double)n * TP_DOT_ETA, MPFR_RNDN);
    mpfr_add(e, e, x, MPFR_RNDN);
    mpfr_sub(x, S, e, MPFR_RNDN);
    int sound = ok && mpfr_cmp_d(x, L) >= 0;
    mpfr_add(x, S, e, MPFR_RNDN);
    sound = sound && mpfr_cmp_d(x, H) <= 0;
    tap_ok(sound, "%s, n = %d: [L, H] holds S - e and S + e of the long-row bound", what, n);
    float fw = 0.0f, bw = 0.0f;
    for (int k = 0; k < n; k++)
        fw += t[k];
    for (int k = n - 1; k >= 0; k--)
        bw += t[k];
    const float tr = tree(t, n);
    tap_ok(ok && L <= fw && fw <= H && L <= bw && bw <= H && L <= tr && tr <= H,
           "%s, n = %d: fp32 sums forward, reversed and as a tree lie inside", what, n);
    /* slack: (H - S) and (S - L) against 1.0006 e + 2^-49 |S| + 2^-990 */
    const double ed = mpfr_get_d(e, MPFR_RNDU), sd = fabs(hi);
    mpfr_set_d(x, H, MPFR_RNDN);
    mpfr_sub(x, x, S, MPFR_RNDN);
    const double up = mpfr_get_d(x, MPFR_RNDU);
    mpfr_sub_d(x, S, L, MPFR_RNDN);
    const double down = mpfr_get_d(x, MPFR_RNDU);
    const double cap = 1.0006 * ed + 0x1p-49 * sd + 0x1p-990;
    tap_ok(ok && up <= cap && down <= cap, "%s, n = %d: not looser than the proof's margins (%.6g, %.6g of e)", what,
           n, ed > 0 ? up / ed : 0.0, ed > 0 ? down / ed : 0.0);
    mpfr_clears(S, A, e, x, (mpfr_ptr)0);
}

int main(void)
{
    enum { NMAX = 262144 };
    float *t = malloc(sizeof *t * NMAX);
    const int ns[] = {65537, 128256, NMAX};
    for (int i = 0; i < 3; i++) {
        const int n = ns[i];
        for (int k = 0; k < n; k++)
            t[k] = rand_f16(0) * rand_f16(2);
        one_row(t, n, "random signs");
        for (int k = 0; k < n; k++)
            t[k] = fabsf(rand_f16(0));
        one_row(t, n, "positive (softmax-like)");
        for (int k = 0; k < n; k++)
            t[k] = 65504.0f * 65504.0f; /* the largest product, one sign */
        one_row(t, n, "largest products");
    }
    double L, H;
    tap_ok(!tp_sum_interval_long(1.0, 0.0, 1.0, NMAX + 1, &L, &H), "262145 terms: refused (outside the proven range)");
    free(t);
    return tap_done();
}
