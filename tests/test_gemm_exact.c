/* Checks oracles/gemm/proven/gemm.c: tp_gemm_exact must return hi + lo EXACTLY equal
 * to sum_k a_k b_k for binary16 inputs, K <= TP_GEMM_K_MAX_EXACT.
 *  - the reference is MPFR at 256 bits (every product and every partial
 *    sum of fp16 products fits in 93 bits, so each MPFR operation is exact;
 *    the test asserts their ternary values are 0);
 *  - hi + lo is compared exactly (mpfr_add of hi and lo at 256 bits), and
 *    the binary16 rounding of the exact value (MPFR, subnormalize) with the
 *    rounding of the pair (hi, lo) done without double rounding;
 *  - inputs: normal-range values, every finite binary16 pattern (wide:
 *    subnormals to +-65504), cancelling pairs that leave a tiny sum,
 *    products near 2^32 summed to nearly 2^45 at K = 8192, ties of the split;
 *    shapes that are multiples of nothing;
 *  - plain double accumulation is shown NOT to be exact on such inputs (the
 *    reason for the split).
 *  The sum of |products| the GEMM bound needs is tp_gemm_exact on |A| and
 *  |B| (what op_gemm.c does): checked exact the same way.
 * Build with -ffp-contract=off. */
#include "tests/test_rng.h"
#include "oracles/gemm/proven/gemm.h"
#include "tests/tap.h"
#include "core/tp_fp16.h"

#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTED 5
#define PREC 256

static uint64_t rng_state = 0x243f6a8885a308d3ULL;
static uint64_t rnd(void) { return tp_test_splitmix64(&rng_state); }
static double unif(void) { return (double)(rnd() >> 11) * 0x1p-53; }
static float f16(double x) { return (float)tp_f16_to_double(tp_f16_from_double(x)); }

/* A finite binary16 pattern, uniformly: every binade from subnormals to
 * 65504 equally likely per pattern. */
static float wide_value(void) { return tp_test_finite_f16(&rng_state); }

/* ---- binary16 rounding of the exact value ---------------------------- */

/* RN16 of an MPFR number, in the binary16 exponent range: round to 11 bits
 * with unbounded exponent, then mpfr_check_range + mpfr_subnormalize (the
 * MPFR idiom for emulating a format with gradual underflow). */
static double mpfr_rn16(mpfr_srcptr x)
{
    mpfr_t t;
    mpfr_init2(t, 11);
    int inex = mpfr_set(t, x, MPFR_RNDN);
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-23);
    mpfr_set_emax(16);
    inex = mpfr_check_range(t, inex, MPFR_RNDN);
    inex = mpfr_subnormalize(t, inex, MPFR_RNDN);
    double d = mpfr_get_d(t, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clear(t);
    return d;
}

/* RN16 of the unevaluated sum hi + lo, without the double rounding of
 * RN16(fl(hi + lo)): when fl(hi + lo) is inexact and lands on a rounding
 * boundary of binary16, the error term decides the side. */
static double rn16_pair(double hi, double lo)
{
    double s = hi + lo, bb = s - hi, err = (hi - (s - bb)) + (lo - bb); /* 2Sum */
    uint16_t r = tp_f16_from_double(s);
    if (err != 0 &&
        tp_f16_from_double(nextafter(s, INFINITY)) != tp_f16_from_double(nextafter(s, -INFINITY)))
        r = tp_f16_from_double(nextafter(s, err > 0 ? INFINITY : -INFINITY));
    return tp_f16_to_double(r);
}

/* ---- one comparison against MPFR --------------------------------------- */

typedef struct {
    long entries, bad_exact, bad_rn16, naive_rn16_differs, plain_differs, plain_rn16_differs, mpfr_inexact;
    long abs_bad;
} stats;

/* Compares tp_gemm_exact (and tp_gemm_abs) on A (MxK), B (KxN) with MPFR. */
static void compare(const char *what, int M, int N, int K, const float *A, const float *B, stats *st)
{
    size_t n = (size_t)M * N;
    double *hi = malloc(n * sizeof *hi), *lo = malloc(n * sizeof *lo);
    double *ahi = malloc(n * sizeof *ahi), *alo = malloc(n * sizeof *alo);
    float *Aa = malloc((size_t)M * K * sizeof *Aa), *Ba = malloc((size_t)K * N * sizeof *Ba);
    for (size_t i = 0; i < (size_t)M * K; i++)
        Aa[i] = fabsf(A[i]);
    for (size_t i = 0; i < (size_t)K * N; i++)
        Ba[i] = fabsf(B[i]);
    double *plain = calloc(n, sizeof *plain);
    /* sentinels: the function must write every entry */
    for (size_t i = 0; i < n; i++)
        hi[i] = lo[i] = ahi[i] = alo[i] = NAN;
    tp_gemm_exact(M, N, K, A, B, hi, lo);
    tp_gemm_exact(M, N, K, Aa, Ba, ahi, alo);
    /* plain double accumulation, loop order i, k, j */
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            double a = A[(size_t)i * K + k];
            for (int j = 0; j < N; j++)
                plain[(size_t)i * N + j] += a * (double)B[(size_t)k * N + j];
        }
    mpfr_t acc, aacc, p, pair;
    mpfr_inits2(PREC, acc, aacc, p, pair, (mpfr_ptr)0);
    long bad0 = st->bad_exact, badr0 = st->bad_rn16, abs0 = st->abs_bad;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            size_t e = (size_t)i * N + j;
            mpfr_set_zero(acc, 1);
            mpfr_set_zero(aacc, 1);
            for (int k = 0; k < K; k++) {
                int t = mpfr_set_d(p, A[(size_t)i * K + k], MPFR_RNDN);
                t |= mpfr_mul_d(p, p, B[(size_t)k * N + j], MPFR_RNDN);
                t |= mpfr_add(acc, acc, p, MPFR_RNDN);
                t |= mpfr_abs(p, p, MPFR_RNDN);
                t |= mpfr_add(aacc, aacc, p, MPFR_RNDN);
                if (t)
                    st->mpfr_inexact++;
            }
            st->entries++;
            int t = mpfr_set_d(pair, hi[e], MPFR_RNDN);
            t |= mpfr_add_d(pair, pair, lo[e], MPFR_RNDN);
            if (t)
                st->mpfr_inexact++;
            if (!mpfr_equal_p(pair, acc)) {
                if (st->bad_exact++ - bad0 < MAX_REPORTED)
                    mpfr_fprintf(stdout, "# %s [%d,%d]: hi + lo = %a + %a, exact %.40Rg\n", what, i, j, hi[e], lo[e],
                                 acc);
            }
            double want16 = mpfr_rn16(acc);
            if (rn16_pair(hi[e], lo[e]) != want16) {
                if (st->bad_rn16++ - badr0 < MAX_REPORTED)
                    tap_diag("%s [%d,%d]: RN16(hi + lo) = %a, RN16(exact) = %a", what, i, j, rn16_pair(hi[e], lo[e]),
                             want16);
            }
            if (tp_f16_to_double(tp_f16_from_double(hi[e] + lo[e])) != want16)
                st->naive_rn16_differs++;
            mpfr_set_d(pair, plain[e], MPFR_RNDN);
            if (!mpfr_equal_p(pair, acc))
                st->plain_differs++;
            if (tp_f16_to_double(tp_f16_from_double(plain[e])) != want16)
                st->plain_rn16_differs++;
            t = mpfr_set_d(pair, ahi[e], MPFR_RNDN);
            t |= mpfr_add_d(pair, pair, alo[e], MPFR_RNDN);
            if (t)
                st->mpfr_inexact++;
            if (!mpfr_equal_p(pair, aacc)) {
                if (st->abs_bad++ - abs0 < MAX_REPORTED)
                    mpfr_fprintf(stdout, "# %s [%d,%d]: |A| |B|: hi + lo = %a + %a, exact %.40Rg\n", what, i, j, ahi[e],
                                 alo[e], aacc);
            }
        }
    mpfr_clears(acc, aacc, p, pair, (mpfr_ptr)0);
    free(hi);
    free(lo);
    free(ahi);
    free(alo);
    free(Aa);
    free(Ba);
    free(plain);
}

static int report(const char *what, int M, int N, int K, const stats *st, const stats *before)
{
    long e = st->entries - before->entries;
    int ok = tap_ok(st->bad_exact == before->bad_exact && st->mpfr_inexact == before->mpfr_inexact,
                    "%s %dx%dx%d: hi + lo == exact (MPFR %d bits) for all %ld entries (%ld differ)", what, M, N, K,
                    PREC, e, st->bad_exact - before->bad_exact);
    ok &= tap_ok(st->bad_rn16 == before->bad_rn16, "%s %dx%dx%d: RN16(hi + lo) == RN16(exact) (%ld differ)", what, M,
                 N, K, st->bad_rn16 - before->bad_rn16);
    ok &= tap_ok(st->abs_bad == before->abs_bad, "%s %dx%dx%d: hi + lo of |A| |B| == sum|ab| exactly (%ld differ)",
                 what, M, N, K, st->abs_bad - before->abs_bad);
    tap_diag("  plain double: %ld of %ld sums inexact, %ld round to a different binary16", st->plain_differs - before->plain_differs, e,
             st->plain_rn16_differs - before->plain_rn16_differs);
    return ok;
}

typedef enum { D_NORMAL, D_WIDE, D_CANCEL, D_BIG, D_TIES, D_EXTREME } dist;

/* Fills A (MxK) and B (KxN). */
static void fill(dist d, int M, int N, int K, float *A, float *B)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N;
    switch (d) {
    case D_NORMAL: /* sum of 4 uniforms: roughly normal, |x| < 4 */
        for (size_t i = 0; i < na; i++)
            A[i] = f16(2 * (unif() + unif() + unif() + unif() - 2));
        for (size_t i = 0; i < nb; i++)
            B[i] = f16(2 * (unif() + unif() + unif() + unif() - 2));
        break;
    case D_WIDE: /* any finite binary16 value */
        for (size_t i = 0; i < na; i++)
            A[i] = wide_value();
        for (size_t i = 0; i < nb; i++)
            B[i] = wide_value();
        /* make sure the extremes occur */
        A[0] = 65504.0f;
        B[0] = -65504.0f;
        if (na > 1)
            A[1] = 0x1p-24f;
        if (nb > (size_t)N)
            B[N] = -0x1p-24f;
        break;
    case D_CANCEL: {
        /* k and k + K/2 cancel exactly (a copied, b negated), then one
         * tiny product per row/column pair survives at k = K - 1 (odd K) or
         * at a chosen position: the exact sum is tiny while the terms are
         * up to 2^32 */
        int h = K / 2;
        for (int i = 0; i < M; i++)
            for (int k = 0; k < h; k++) {
                float v = wide_value();
                A[(size_t)i * K + k] = v;
                A[(size_t)i * K + k + h] = v;
            }
        for (int k = 0; k < h; k++)
            for (int j = 0; j < N; j++) {
                float v = wide_value();
                B[(size_t)k * N + j] = v;
                B[(size_t)(k + h) * N + j] = -v;
            }
        if (K & 1) /* the odd one out: tiny */
            for (int i = 0; i < M; i++) {
                A[(size_t)i * K + K - 1] = f16(ldexpf(1.0f + (float)(rnd() % 1024) / 1024, -24 + (int)(rnd() % 4)));
                for (int j = 0; j < N; j++)
                    B[(size_t)(K - 1) * N + j] = (rnd() & 1 ? -1 : 1) * 0x1p-24f * (float)(1 + rnd() % 1023);
            }
        else if (K >= 2) /* perturb one b so one pair leaves a residue of a * ulp(b) */
            for (int j = 0; j < N; j++) {
                int k = (int)(rnd() % (unsigned)h);
                B[(size_t)(k + h) * N + j] = (float)tp_f16_to_double(
                    tp_f16_next_up(tp_f16_from_double(B[(size_t)(k + h) * N + j])));
            }
        break;
    }
    case D_BIG: /* products near 2^32, one sign per row: |sum| near K 2^32 */
        for (size_t i = 0; i < na; i++)
            A[i] = (rnd() & 7) ? 65504.0f - 32.0f * (float)(rnd() % 4) : wide_value();
        for (size_t i = 0; i < nb; i++)
            B[i] = (rnd() & 7) ? 65504.0f : (float)(0x1p-24 * (double)(1 + rnd() % 1023));
        break;
    case D_TIES: /* products a multiple of 2^-9 but not of 2^-8: ties of the split at 2^-8 */
        for (size_t i = 0; i < na; i++)
            A[i] = (float)ldexp((double)(2 * (rnd() % 1024) + 1), -13 + (int)(rnd() % 8)); /* odd * 2^-13.. */
        for (size_t i = 0; i < nb; i++)
            B[i] = (rnd() & 1 ? -1.0f : 1.0f) * (float)ldexp((double)(2 * (rnd() % 512) + 1), 4 - (int)(rnd() % 8));
        break;
    case D_EXTREME: /* all products +65504^2: the largest |hi| the proof allows at K = 8192 */
        for (size_t i = 0; i < na; i++)
            A[i] = (i % 5 == 3) ? 0x1p-24f : 65504.0f;
        for (size_t i = 0; i < nb; i++)
            B[i] = (i % 7 == 2) ? 0x1.ff8p-15f /* largest subnormal */ : 65504.0f;
        break;
    }
}

static void run(dist d, const char *what, int M, int N, int K, stats *st)
{
    float *A = malloc(((size_t)M * K + 1) * sizeof *A), *B = malloc(((size_t)K * N + 1) * sizeof *B);
    fill(d, M, N, K, A, B);
    stats before = *st;
    compare(what, M, N, K, A, B, st);
    report(what, M, N, K, st, &before);
    free(A);
    free(B);
}

int main(void)
{
    stats st = {0};
    /* shapes that are multiples of nothing, and a few larger ones */
    run(D_NORMAL, "normal", 1, 1, 1, &st);
    run(D_NORMAL, "normal", 3, 5, 7, &st);
    run(D_NORMAL, "normal", 17, 33, 65, &st);
    run(D_NORMAL, "normal", 64, 96, 1024, &st);
    run(D_WIDE, "wide", 1, 1, 1, &st);
    run(D_WIDE, "wide", 3, 5, 7, &st);
    run(D_WIDE, "wide", 17, 33, 65, &st);
    run(D_WIDE, "wide", 48, 64, 2048, &st);
    run(D_CANCEL, "cancelling", 3, 5, 7, &st);
    run(D_CANCEL, "cancelling", 17, 33, 65, &st);
    run(D_CANCEL, "cancelling", 32, 32, 4096, &st);
    run(D_CANCEL, "cancelling", 2, 7, 8191, &st);
    run(D_BIG, "products near 2^32", 5, 9, 1024, &st);
    run(D_TIES, "split ties", 17, 33, 65, &st);
    run(D_EXTREME, "extreme K = 8192", 2, 3, TP_GEMM_K_MAX_EXACT, &st);
    tap_ok(st.mpfr_inexact == 0, "every MPFR operation of the reference was exact (%ld were not)", st.mpfr_inexact);

    /* Hand-made sums whose exact values need more than 53 bits. */
    {
        /* 65504^2 + 2^-48 - 65504^2: exact 2^-48, plain double 0 */
        float A[3] = {65504.0f, 0x1p-24f, 65504.0f}, B[3] = {65504.0f, 0x1p-24f, -65504.0f};
        double hi, lo, plain = 0;
        tp_gemm_exact(1, 1, 3, A, B, &hi, &lo);
        for (int k = 0; k < 3; k++)
            plain += (double)A[k] * B[k];
        tap_ok(hi + lo == 0x1p-48 && plain == 0,
               "65504^2 + 2^-48 - 65504^2: split gives %a, plain double gives %a (exact 2^-48)", hi + lo, plain);
        /* 683 * 1.5 + 2^-24 * 2^-24 = 1024.5 + 2^-48: RN16 is 1025, but
         * fl(1024.5 + 2^-48) = 1024.5 is a tie that goes to 1024: plain
         * double AND RN16(fl(hi + lo)) round to the wrong binary16 */
        float C[2] = {683.0f, 0x1p-24f}, D[2] = {1.5f, 0x1p-24f};
        plain = 0;
        tp_gemm_exact(1, 1, 2, C, D, &hi, &lo);
        for (int k = 0; k < 2; k++)
            plain += (double)C[k] * D[k];
        tap_ok(rn16_pair(hi, lo) == 1025.0 && tp_f16_to_double(tp_f16_from_double(plain)) == 1024.0,
               "1024.5 + 2^-48: pair (%a, %a) rounds to 1025 in binary16; plain double %a rounds to %g", hi, lo,
               plain, tp_f16_to_double(tp_f16_from_double(plain)));
        tap_diag("  (RN16(fl(hi + lo)) = %g there: a consumer of the pair must not round hi + lo twice)",
                 tp_f16_to_double(tp_f16_from_double(hi + lo)));
    }
    tap_ok(st.plain_differs > 0 && st.plain_rn16_differs > 0,
           "plain double accumulation is NOT exact on these inputs: %ld of %ld sums differ, %ld round to a "
           "different binary16",
           st.plain_differs, st.entries, st.plain_rn16_differs);
    tap_diag("RN16(fl(hi + lo)) (double rounding) differs from RN16(exact) on %ld of %ld random entries",
             st.naive_rn16_differs, st.entries);
    mpfr_free_cache();
    return tap_done();
}
