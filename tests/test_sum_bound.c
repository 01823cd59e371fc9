/* Checks the proven any-order sum bound (oracles/common/proven/tp_sum_bound.c)
 * against MPFR, on dot products of binary16 values (random, and constructed
 * worst cases: every product at 65504^2 with one sign, cancelling sums,
 * all-zero and single-term vectors, K up to the exact reference's 8192):
 *  - soundness: [L, H] holds S - e and S + e, e = K*TP_DOT_C*sum|a b| +
 *    K*TP_DOT_ETA, all computed exactly by MPFR (and, for the faithful model,
 *    with 2K terms: 2e); the n = 0 call holds S itself;
 *  - the kernels' arithmetic lands inside: the proven emulations
 *    tp_dot_fp32_fma / tp_dot_fp32_mul_add (sequential order), the same on
 *    a reversed and a shuffled copy (any permutation is the same theorem on
 *    permuted inputs), and a pairwise tree (not covered by dot_fp32's proof:
 *    reported, expected inside by the textbook bound);
 *  - tightness against the old directed-rounding interval of op_gemm.c
 *    (fesetround up/down): the widening in doubles (largest, relative to e)
 *    and the number of binary16 ends RN16(L), RN16(H) that differ from
 *    the old ones (reported).
 * Build with -ffp-contract=off -frounding-math. */
#include "tests/tap.h"
#include "core/tp_format.h"
#include "oracles/common/proven/dot_fp32.h"
#include "oracles/common/proven/tp_sum_bound.h"
#include "oracles/gemm/proven/gemm.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng = 0x243f6a8885a308d3u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random binary16 value: random pattern, finite, scaled to a chosen
 * exponent band so that sums both cancel and grow. */
static float rand_f16(int band)
{
    for (;;) {
        double v = tp_binary16.round(ldexp((double)(next() % 2048) / 1024.0 - 1.0, band - (int)(next() % 8)));
        if (isfinite(v))
            return (float)v;
    }
}

typedef struct {
    long cases, unsound, emul_out, tree_out, f16_diff, f16_narrower, loose;
    double widen_rel, widen_ulps;
} stats;

/* The old op_gemm.c interval: e = RU(K C (absum RU(1 + K 2^-52)) + K eta),
 * ends RD((hi - e) + lo), RU((hi + e) + lo); absum the plain double sum. */
static void old_interval(int K, int faith, double hi, double lo, double absum, double *ol, double *oh)
{
    int saved = fegetround();
    fesetround(FE_UPWARD);
    double grow = 1.0 + (double)K * 0x1p-52, kc = (double)K * (faith ? 0x1.02p-23 : TP_DOT_C),
           keta = (double)K * (faith ? 0x1p-148 : TP_DOT_ETA);
    double e = kc * (absum * grow) + keta;
    *oh = (hi + e) + lo;
    fesetround(FE_DOWNWARD);
    *ol = (hi - e) + lo;
    fesetround(saved);
}

static float tree(const float *a, const float *b, int n)
{
    if (n == 1)
        return a[0] * b[0];
    int h = n / 2;
    return tree(a, b, h) + tree(a + h, b + h, n - h);
}

static void one_case(const float *a, const float *b, int K, stats *st, const char *what)
{
    double hi, lo, ahi, alo, absum = 0;
    float *aa = malloc((size_t)K * sizeof *aa), *ab = malloc((size_t)K * sizeof *ab);
    for (int k = 0; k < K; k++) {
        aa[k] = fabsf(a[k]);
        ab[k] = fabsf(b[k]);
        absum += fabs((double)a[k] * b[k]);
    }
    tp_gemm_exact(1, 1, K, a, b, &hi, &lo);
    tp_gemm_exact(1, 1, K, aa, ab, &ahi, &alo);
    mpfr_t S, A, e, t;
    mpfr_inits2(400, S, A, e, t, (mpfr_ptr)0);
    mpfr_set_d(S, hi, MPFR_RNDN);
    mpfr_add_d(S, S, lo, MPFR_RNDN); /* exact in 400 bits */
    mpfr_set_d(A, ahi, MPFR_RNDN);
    mpfr_add_d(A, A, alo, MPFR_RNDN);
    for (int faith = 0; faith < 2; faith++) {
        double n = faith ? 2.0 * K : (double)K;
        tp_ival64 v = tp_sum_bound_rn(hi, lo, ahi, alo, n);
        mpfr_mul_d(e, A, TP_DOT_C, MPFR_RNDN);
        mpfr_mul_d(e, e, n, MPFR_RNDN);
        mpfr_set_d(t, TP_DOT_ETA, MPFR_RNDN);
        mpfr_mul_d(t, t, n, MPFR_RNDN);
        mpfr_add(e, e, t, MPFR_RNDN); /* all exact in 400 bits */
        mpfr_sub(t, S, e, MPFR_RNDN);
        int bad = mpfr_cmp_d(t, v.lo) < 0;
        mpfr_add(t, S, e, MPFR_RNDN);
        bad |= mpfr_cmp_d(t, v.hi) > 0;
        tp_ival64 x = tp_sum_bound_rn(hi, lo, 0.0, 0.0, 0.0);
        bad |= mpfr_cmp_d(S, x.lo) < 0 || mpfr_cmp_d(S, x.hi) > 0;
        if (bad && st->unsound++ < 5)
            tap_diag("%s K=%d faith=%d: [%a, %a] misses S +- e (S = %a + %a)", what, K, faith, v.lo, v.hi, hi, lo);
        if (!faith) {
            float r[4];
            r[0] = tp_dot_fp32_fma(K, a, b);
            r[1] = tp_dot_fp32_mul_add(K, a, b);
            float *ra = malloc((size_t)K * sizeof *ra), *rb = malloc((size_t)K * sizeof *rb);
            for (int k = 0; k < K; k++) {
                ra[k] = a[K - 1 - k];
                rb[k] = b[K - 1 - k];
            }
            r[2] = tp_dot_fp32_fma(K, ra, rb);
            for (int k = K - 1; k > 0; k--) { /* shuffle */
                int j = (int)(next() % (uint64_t)(k + 1));
                float ta = ra[k], tb = rb[k];
                ra[k] = ra[j], rb[k] = rb[j];
                ra[j] = ta, rb[j] = tb;
            }
            r[3] = tp_dot_fp32_mul_add(K, ra, rb);
            for (int i = 0; i < 4; i++)
                if (!(v.lo <= r[i] && r[i] <= v.hi) && st->emul_out++ < 5)
                    tap_diag("%s K=%d: emulation %d = %a outside [%a, %a]", what, K, i, r[i], v.lo, v.hi);
            if (K > 0) {
                float tr = tree(a, b, K);
                st->tree_out += !(v.lo <= tr && tr <= v.hi);
            }
            free(ra);
            free(rb);
        }
        double ol, oh;
        old_interval(K, faith, hi, lo, absum, &ol, &oh);
        double w = fmax(ol - v.lo, v.hi - oh), ed = mpfr_get_d(e, MPFR_RNDN);
        double s = hi + lo;
        /* the proof's margins: 2^-40 e (C1), 3 n eta (w = 4 n eta), 2^-50 |s|, 2^-1000 */
        if (!(w <= 0x1p-39 * ed + 3 * n * TP_DOT_ETA + 0x1p-49 * fabs(s) + 0x1p-999) && st->loose++ < 5)
            tap_diag("%s K=%d: widening %a over e = %a, s = %a", what, K, w, ed, s);
        if (ed > 0x1p-30 * fabs(s))
            st->widen_rel = fmax(st->widen_rel, w / ed);
        if (s != 0)
            st->widen_ulps = fmax(st->widen_ulps, w / ldexp(1.0, ilogb(s) - 52));
        double n16l = tp_binary16.round(v.lo), n16h = tp_binary16.round(v.hi), o16l = tp_binary16.round(ol),
               o16h = tp_binary16.round(oh);
        st->f16_diff += n16l != o16l || n16h != o16h;
        st->f16_narrower += n16l > o16l || n16h < o16h;
        st->cases++;
    }
    mpfr_clears(S, A, e, t, (mpfr_ptr)0);
    free(aa);
    free(ab);
}

int main(void)
{
    static float a[8192], b[8192];
    stats st = {0};
    const int Ks[] = {0, 1, 2, 3, 16, 100, 513, 4096, 8192};
    for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++) {
        int K = Ks[ki];
        int reps = K > 1000 ? 20 : 300;
        for (int r = 0; r < reps; r++) {
            int band = (int)(next() % 30) - 14;
            for (int k = 0; k < K; k++) {
                a[k] = rand_f16(band);
                b[k] = rand_f16((int)(next() % 30) - 14);
            }
            one_case(a, b, K, &st, "random");
        }
        /* every product 65504^2, one sign; then alternating signs (S = 0 or one
         * product, A maximal) */
        for (int k = 0; k < K; k++)
            a[k] = b[k] = 65504.0f;
        one_case(a, b, K, &st, "max same sign");
        for (int k = 0; k < K; k++)
            a[k] = (k & 1) ? -65504.0f : 65504.0f;
        one_case(a, b, K, &st, "max alternating");
        /* zeros; and the smallest subnormal products */
        for (int k = 0; k < K; k++)
            a[k] = b[k] = 0.0f;
        one_case(a, b, K, &st, "zeros");
        for (int k = 0; k < K; k++)
            a[k] = b[k] = 0x1p-24f;
        one_case(a, b, K, &st, "tiny");
        /* a large sum with a small remainder: hi and lo of opposite signs */
        for (int k = 0; k < K; k++) {
            a[k] = (k & 1) ? 0x1.ffcp15f : -0x1.ffcp15f;
            b[k] = (k & 1) ? 65504.0f : 65472.0f;
        }
        if (K > 0)
            a[0] = 0x1p-24f;
        one_case(a, b, K, &st, "cancel");
    }
    tap_ok(st.unsound == 0, "sound: %ld intervals hold S - e and S + e (MPFR, 400 bits), both models, and S", st.cases);
    tap_ok(st.emul_out == 0, "the proven emulations (fma, mul+add; forward, reversed, shuffled) lie inside");
    tap_diag("pairwise-tree sums outside the interval (order not covered by dot_fp32's proof): %ld", st.tree_out);
    tap_ok(st.tree_out == 0, "pairwise-tree sums lie inside too (textbook bound)");
    tap_diag("widening over the old directed-rounding interval: at most %.3g of e (where e > 2^-30 |S|), "
             "%.3g double ulps of S", st.widen_rel, st.widen_ulps);
    tap_diag("binary16 ends that differ from the old ones: %ld of %ld (narrower: %ld)", st.f16_diff, st.cases,
             st.f16_narrower);
    tap_ok(st.loose == 0, "tight: widening at most 2^-39 e + 3 n eta + 2^-49 |S| + 2^-999 (the proof's margins)");
    return tap_done();
}
