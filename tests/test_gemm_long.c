/* Checks oracles/gemm/gemm_long.c: tp_gemm_exact_long must return hi + lo
 * EXACTLY equal to sum_k a_k b_k for binary16 inputs up to K = 65536, by
 * K-chunks of the proven tp_gemm_exact combined in integers.
 *  - the reference is a 128-bit integer sum: a binary16 value is an integer
 *    times 2^-24 (|integer| < 2^40), so a * b * 2^48 is an integer below
 *    2^80 and 65536 of them sum below 2^96;
 *  - hi and lo are compared exactly: both are integers times 2^-48 below
 *    2^97 (asserted), so hi * 2^48 + lo * 2^48 is computed exactly in
 *    __int128 and must equal the reference;
 *  - RN(hi + lo) (what op_gemm.c reports as the exact value) must be the
 *    correctly rounded reference (its own rounding of the 128-bit integer,
 *    done by hand);
 *  - inputs: the largest sums (every product 65504^2 at K = 65536: S near
 *    2^48, each chunk's hi near 2^45), random binades with random signs,
 *    cancelling halves that leave a tiny residue (the chunks' hi cancel
 *    across chunks while lo carries 2^-48 terms), ties of the split, and K
 *    just above a chunk boundary (8193, 16385) and at 65535, 65536;
 *  - K <= TP_GEMM_K_MAX_EXACT gives the very pairs of one tp_gemm_exact call.
 * Build with -ffp-contract=off. */
#include "tests/test_rng.h"
#include "oracles/gemm/gemm_long.h"
#include "oracles/gemm/proven/gemm.h"
#include "tests/tap.h"
#include "tests/rn_units48.h"
#include "core/tp_fp16.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x13198a2e03707344ULL;
static uint64_t rnd(void) { return tp_test_splitmix64(&rng_state); }

/* A finite binary16 value, every pattern equally likely. */
static float wide_value(void) { return tp_test_finite_f16(&rng_state); }

/* x * 2^24 for a binary16 value x: an integer (exact in double). */
static int64_t units24(float x) { return (int64_t)((double)x * 0x1p24); }

/* A double that is an integer times 2^-48 below 2^97, times 2^48, exactly;
 * *ok = 0 when it is not such a value. */
static __int128 units48(double x, int *ok)
{
    double s = x * 0x1p48; /* exact: a power of two, no overflow */
    if (!(fabs(s) < 0x1p97) || s != floor(s)) {
        *ok = 0;
        return 0;
    }
    /* split into two exact 64-bit halves: s = h 2^48 + r */
    double h = floor(s * 0x1p-48), r = s - h * 0x1p48;
    return (__int128)(int64_t)h * ((__int128)1 << 48) + (int64_t)r;
}

typedef enum { D_BIG, D_WIDE, D_CANCEL, D_TIES } dist;

static void fill(dist d, int M, int N, int K, float *A, float *B)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N;
    switch (d) {
    case D_BIG: /* every product 65504^2 (one column negative): |S| = K 65504^2 */
        for (size_t i = 0; i < na; i++)
            A[i] = 65504.0f;
        for (size_t i = 0; i < nb; i++)
            B[i] = (i % (size_t)N == 1) ? -65504.0f : 65504.0f;
        break;
    case D_WIDE:
        for (size_t i = 0; i < na; i++)
            A[i] = wide_value();
        for (size_t i = 0; i < nb; i++)
            B[i] = wide_value();
        break;
    case D_CANCEL: {
        /* k and k + K/2 cancel (in different chunks when K > 2^14), a tiny
         * product survives at the end when K is odd, else one pair is
         * perturbed by an ulp of b */
        int h = K / 2;
        for (int i = 0; i < M; i++)
            for (int k = 0; k < h; k++) {
                float v = (rnd() & 3) ? 65504.0f - 32.0f * (float)(rnd() % 8) : wide_value();
                A[(size_t)i * K + k] = A[(size_t)i * K + k + h] = v;
            }
        for (int k = 0; k < h; k++)
            for (int j = 0; j < N; j++) {
                float v = (rnd() & 3) ? 65504.0f : wide_value();
                B[(size_t)k * N + j] = v;
                B[(size_t)(k + h) * N + j] = -v;
            }
        if (K & 1)
            for (int i = 0; i < M; i++) {
                A[(size_t)i * K + K - 1] = 0x1p-24f * (float)(1 + rnd() % 1023);
                for (int j = 0; j < N; j++)
                    B[(size_t)(K - 1) * N + j] = (rnd() & 1 ? -1 : 1) * 0x1p-24f * (float)(1 + rnd() % 1023);
            }
        else
            for (int j = 0; j < N; j++) {
                int k = (int)(rnd() % (unsigned)h);
                B[(size_t)(k + h) * N + j] =
                    (float)tp_f16_to_double(tp_f16_next_up(tp_f16_from_double(B[(size_t)(k + h) * N + j])));
            }
        break;
    }
    case D_TIES: /* products odd multiples of 2^-9 and around: ties of the split */
        for (size_t i = 0; i < na; i++)
            A[i] = (float)ldexp((double)(2 * (rnd() % 1024) + 1), -13 + (int)(rnd() % 8));
        for (size_t i = 0; i < nb; i++)
            B[i] = (rnd() & 1 ? -1.0f : 1.0f) * (float)ldexp((double)(2 * (rnd() % 512) + 1), 4 - (int)(rnd() % 8));
        break;
    }
}

static void run(dist d, const char *what, int M, int N, int K)
{
    float *A = malloc((size_t)M * K * sizeof *A), *B = malloc((size_t)K * N * sizeof *B);
    double *hi = malloc((size_t)M * N * sizeof *hi), *lo = malloc((size_t)M * N * sizeof *lo);
    tp_gemm_long_work w = {0};
    if (!A || !B || !hi || !lo || tp_gemm_long_work_alloc(&w, N) != 0) {
        tap_ok(0, "%s %dx%dx%d: out of memory", what, M, N, K);
        exit(1);
    }
    fill(d, M, N, K, A, B);
    int rc = tp_gemm_exact_long(M, N, K, A, B, hi, lo, &w);
    long wrong = rc != 0 ? 1 : 0, misrounded = 0, notgrid = 0;
    double maxs = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            __int128 s = 0;
            for (int k = 0; k < K; k++)
                s += (__int128)units24(A[(size_t)i * K + k]) * units24(B[(size_t)k * N + j]);
            int ok = 1;
            __int128 got = units48(hi[i * N + j], &ok) + units48(lo[i * N + j], &ok);
            notgrid += !ok;
            if (got != s && wrong++ < 3)
                tap_diag("%s %dx%dx%d [%d,%d]: hi %a + lo %a is not the exact sum", what, M, N, K, i, j,
                         hi[i * N + j], lo[i * N + j]);
            double rn = rn_units48(s);
            misrounded += hi[i * N + j] + lo[i * N + j] != rn;
            maxs = fmax(maxs, fabs(rn));
        }
    tap_ok(wrong == 0 && notgrid == 0 && misrounded == 0,
           "%s %dx%dx%d: hi + lo == the 128-bit integer sum on all %d entries, RN(hi + lo) correctly rounded "
           "(largest |S| %a; %ld wrong, %ld off the 2^-48 grid, %ld misrounded)",
           what, M, N, K, M * N, maxs, wrong, notgrid, misrounded);
    tp_gemm_long_work_free(&w);
    free(A);
    free(B);
    free(hi);
    free(lo);
}

int main(void)
{
    run(D_BIG, "largest products", 2, 3, TP_GEMM_K_MAX);
    run(D_BIG, "largest products", 1, 2, 8193);
    run(D_WIDE, "every binade", 3, 5, TP_GEMM_K_MAX);
    run(D_WIDE, "every binade", 2, 7, 16385);
    run(D_CANCEL, "cancelling halves", 2, 5, TP_GEMM_K_MAX);
    run(D_CANCEL, "cancelling halves", 3, 4, TP_GEMM_K_MAX - 1);
    run(D_CANCEL, "cancelling halves", 2, 3, 2 * TP_GEMM_K_MAX_EXACT + 1);
    run(D_TIES, "split ties", 2, 3, TP_GEMM_K_MAX);

    /* at and below one chunk: the pairs of one tp_gemm_exact call */
    {
        enum { M = 3, N = 5, K = TP_GEMM_K_MAX_EXACT };
        float *A = malloc((size_t)M * K * sizeof *A), *B = malloc((size_t)K * N * sizeof *B);
        double h1[M * N], l1[M * N], h2[M * N], l2[M * N];
        tp_gemm_long_work w = {0};
        fill(D_WIDE, M, N, K, A, B);
        tp_gemm_exact(M, N, K, A, B, h1, l1);
        tp_gemm_exact_long(M, N, K, A, B, h2, l2, &w); /* no work space needed at K <= 8192 */
        tap_ok(memcmp(h1, h2, sizeof h1) == 0 && memcmp(l1, l2, sizeof l1) == 0,
               "K = %d: tp_gemm_exact_long returns tp_gemm_exact's own pairs (results recorded below the old "
               "limit keep their bits)",
               K);
        free(A);
        free(B);
    }

    /* a chunk pair off the grid of 2^-48 (here from values that are not
     * binary16: 2^-30 * 2^-30) makes the call fail instead of summing it */
    {
        enum { K = TP_GEMM_K_MAX_EXACT + 1 };
        float *a = calloc(K, sizeof *a), *b = calloc(K, sizeof *b);
        double hi, lo;
        tp_gemm_long_work w = {0};
        tp_gemm_long_work_alloc(&w, 1);
        a[0] = b[0] = 0x1p-30f;
        a[K - 1] = b[K - 1] = 1.0f;
        tap_ok(tp_gemm_exact_long(1, 1, K, a, b, &hi, &lo, &w) != 0,
               "a chunk sum off the grid of 2^-48 (2^-60) is refused, not combined");
        tp_gemm_long_work_free(&w);
        free(a);
        free(b);
    }

    /* plain double accumulation is not exact at this length (why chunks) */
    {
        enum { K = TP_GEMM_K_MAX };
        float *a = malloc(K * sizeof *a), *b = malloc(K * sizeof *b);
        double hi, lo, plain = 0;
        tp_gemm_long_work w = {0};
        tp_gemm_long_work_alloc(&w, 1);
        for (int k = 0; k < K; k++) {
            a[k] = k % 2 ? 0x1p-24f : 65504.0f;
            b[k] = k % 2 ? 0x1p-24f : 65504.0f;
        }
        tp_gemm_exact_long(1, 1, K, a, b, &hi, &lo, &w);
        for (int k = 0; k < K; k++)
            plain += (double)a[k] * b[k];
        __int128 s = (__int128)(K / 2) * ((__int128)65504 * 65504 << 48) + K / 2;
        int ok = 1;
        tap_ok(units48(hi, &ok) + units48(lo, &ok) == s && ok && units48(plain, &ok) != s,
               "32768 x 65504^2 + 32768 x 2^-48: exact pair (%a, %a); plain double %a loses the small terms", hi, lo,
               plain);
        tp_gemm_long_work_free(&w);
        free(a);
        free(b);
    }
    return tap_done();
}
