/* Checks oracles/gemm/gemm_tiles.c, op gemm's CPU exact sums by the proven
 * one-pass tile: for every element, hi + lo must be EXACTLY sum_k a_k b_k
 * and ahi + alo EXACTLY sum_k |a_k b_k|, each pair normalized (hi the
 * correctly rounded sum), for binary16 inputs up to K = 65536.
 *  - the references are 128-bit integer sums (binary16 values are
 *    integers times 2^-24);
 *  - inputs: the largest products (65504^2 in every term, one column
 *    negative: the tile's accumulators at the edge of their proven range
 *    at 8192 terms), every binade with random signs, cancelling halves
 *    (the abs sum large where the sum is tiny), ties of the split;
 *  - shapes: one K-block, K-blocks with a short last one, K just above a
 *    chunk (8193) and at 65536; N not a multiple of 8 (padded panels);
 *    transposed B;
 *  - the pairs are the ones tp_gemm_exact gives S, normalized the same way
 *    (tp_gemm_exact_normalize): the one-pass reference keeps the bits. */
#include "tests/test_rng.h"
#include "tests/tap.h"
#include "tests/rn_units48.h"
#include "core/tp_fp16.h"
#include "oracles/gemm/gemm_exact_provider.h" /* tp_gemm_exact_normalize */
#include "oracles/gemm/gemm_tiles.h"
#include "oracles/gemm/proven/gemm.h"
#include "oracles/gemm/proven/gemm_tile.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x243f6a8885a308d3ULL;
static uint64_t rnd(void) { return tp_test_splitmix64(&rng_state); }

static int64_t units24(double x) { return (int64_t)(x * 0x1p24); }

/* x 2^48 for a double on the grid of 2^-48 below 2^97; *ok = 0 otherwise. */
static __int128 units48(double x, int *ok)
{
    double s = x * 0x1p48;
    if (!(fabs(s) < 0x1p97) || s != floor(s)) {
        *ok = 0;
        return 0;
    }
    double h = floor(s * 0x1p-48), r = s - h * 0x1p48;
    return (__int128)(int64_t)h * ((__int128)1 << 48) + (int64_t)r;
}

typedef enum { D_BIG, D_WIDE, D_CANCEL, D_TIES } dist;

static double value(dist d, int k, int K, int sign)
{
    switch (d) {
    case D_BIG:
        return 65504.0 * sign;
    case D_WIDE:
        return tp_test_finite_f16(&rng_state);
    case D_CANCEL: /* terms k and k + K/2 cancel through sign (given by the caller) */
        return (k % 3 ? 65504.0 - 32.0 * (double)(rnd() % 8) : fabs(tp_test_finite_f16(&rng_state))) * sign;
    case D_TIES:
        return sign * ldexp((double)(2 * (rnd() % 512) + 1), 4 - (int)(rnd() % 8));
    }
    (void)K;
    return 0;
}

typedef struct {
    int N, R;
    double *out; /* R x N x 4 */
} sink;

static void collect(void *ctx, int panel, const double *hi, const double *lo, const double *ahi, const double *alo)
{
    sink *s = ctx;
    for (int r = 0; r < s->R; r++)
        for (int c = 0; c < TP_GEMM_TILE_W && panel * TP_GEMM_TILE_W + c < s->N; c++) {
            double *o = s->out + 4 * ((size_t)r * s->N + (size_t)panel * TP_GEMM_TILE_W + (size_t)c);
            const size_t e = (size_t)r * TP_GEMM_TILE_W + (size_t)c;
            o[0] = hi[e];
            o[1] = lo[e];
            o[2] = ahi[e];
            o[3] = alo[e];
        }
}

static void run(dist d, const char *what, int R, int N, int K, int tb)
{
    tp_tensor B;
    memset(&B, 0, sizeof B);
    B.name = "B";
    B.dtype = TP_F16;
    B.rank = 2;
    B.shape[0] = tb ? N : K;
    B.shape[1] = tb ? K : N;
    B.numel = (int64_t)K * N;
    uint16_t *b = malloc((size_t)B.numel * sizeof *b);
    double *a = malloc((size_t)R * K * sizeof *a), *bv = malloc((size_t)K * N * sizeof *bv);
    sink s = {N, R, malloc((size_t)R * N * 4 * sizeof(double))};
    B.data = b;
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            int sign = d == D_BIG ? (j == 1 ? -1 : 1) : d == D_CANCEL ? (k < K / 2 ? 1 : -1) : (rnd() & 1 ? -1 : 1);
            if (d == D_CANCEL && k >= K / 2 && k - K / 2 < K / 2)
                bv[(size_t)k * N + j] = -bv[(size_t)(k - K / 2) * N + j];
            else
                bv[(size_t)k * N + j] = value(d, k, K, sign);
            b[tb ? (size_t)j * K + k : (size_t)k * N + j] = tp_f16_from_double(bv[(size_t)k * N + j]);
        }
    for (int r = 0; r < R; r++)
        for (int k = 0; k < K; k++)
            a[(size_t)r * K + k] = d == D_CANCEL && k >= K / 2 && k - K / 2 < K / 2 ? a[(size_t)r * K + k - K / 2]
                                                                                    : value(d, k, K, 1);
    tp_gemm_panels P;
    tp_gemm_tiles_work *w = tp_gemm_tiles_work_new(R, K);
    int rc = !w || tp_gemm_panels_make(&B, tb, K, N, &P) != 0 ? -1 : tp_gemm_tiles_rows(&P, a, R, w, collect, &s);
    long wrong = rc != 0, notgrid = 0, notnormal = 0;
    double maxa = 0;
    for (int r = 0; r < R && rc == 0; r++)
        for (int j = 0; j < N; j++) {
            __int128 sum = 0, asum = 0;
            for (int k = 0; k < K; k++) {
                const __int128 p = (__int128)units24(a[(size_t)r * K + k]) * units24(bv[(size_t)k * N + j]);
                sum += p;
                asum += p < 0 ? -p : p;
            }
            const double *o = s.out + 4 * ((size_t)r * N + (size_t)j);
            int ok = 1;
            const __int128 got = units48(o[0], &ok) + units48(o[1], &ok), agot = units48(o[2], &ok) + units48(o[3], &ok);
            notgrid += !ok;
            if ((got != sum || agot != asum) && wrong++ < 3)
                tap_diag("%s %dx%dx%d [%d,%d]: (%a, %a) and (%a, %a) are not the exact sums", what, R, N, K, r, j, o[0],
                         o[1], o[2], o[3]);
            notnormal += o[0] != rn_units48(sum) || o[2] != rn_units48(asum);
            maxa = fmax(maxa, o[2]);
        }
    tap_ok(rc == 0 && wrong == 0 && notgrid == 0 && notnormal == 0,
           "%s %dx%dx%d%s: hi + lo and ahi + alo are the 128-bit sums of a b and |a b| on all %d entries, hi and "
           "ahi correctly rounded (largest abs sum %a; %ld wrong, %ld off the grid, %ld not normalized)",
           what, R, N, K, tb ? " (B transposed)" : "", R * N, maxa, wrong, notgrid, notnormal);
    if (rc == 0 && K <= TP_GEMM_K_MAX_EXACT) { /* the same pairs as tp_gemm_exact's, normalized */
        float *af = malloc((size_t)R * K * sizeof *af), *bf = malloc((size_t)K * N * sizeof *bf);
        double *h = malloc((size_t)R * N * sizeof *h), *l = malloc((size_t)R * N * sizeof *l);
        for (size_t i = 0; i < (size_t)R * K; i++)
            af[i] = (float)a[i];
        for (size_t i = 0; i < (size_t)K * N; i++)
            bf[i] = (float)bv[i];
        tp_gemm_exact(R, N, K, af, bf, h, l);
        tp_gemm_exact_normalize((size_t)R * N, h, l);
        long differ = 0;
        for (size_t i = 0; i < (size_t)R * N; i++)
            differ += h[i] != s.out[4 * i] || l[i] != s.out[4 * i + 1];
        tap_ok(differ == 0, "%s %dx%dx%d: the pairs of S are tp_gemm_exact's, normalized (%ld differ)", what, R, N, K,
               differ);
        free(af);
        free(bf);
        free(h);
        free(l);
    }
    if (rc == 0)
        tp_gemm_panels_free(&P);
    tp_gemm_tiles_work_free(w);
    free(b);
    free(a);
    free(bv);
    free(s.out);
}

int main(void)
{
    run(D_BIG, "largest products", 2, 3, TP_EXACT_N_MAX, 0);
    run(D_BIG, "largest products", 1, 9, TP_EXACT_N_MAX + 1, 1);
    run(D_BIG, "largest products", 2, 2, 65536, 0);
    run(D_WIDE, "every binade", 3, 13, 100, 0);
    run(D_WIDE, "every binade", 5, 8, 1000, 1);
    run(D_WIDE, "every binade", 2, 17, 65536, 0);
    run(D_CANCEL, "cancelling halves", 3, 11, 4000, 0);
    run(D_CANCEL, "cancelling halves", 2, 5, 2 * TP_EXACT_N_MAX + 2, 1);
    run(D_TIES, "split ties", 4, 9, 3000, 0);

    /* a tile's accumulators off the grid of 2^-48 (values that are not
     * binary16, 2^-30 * 2^-30, in a chunk of K > 8192) make the rows fail
     * instead of combining them */
    {
        enum { K = TP_EXACT_N_MAX + 1 };
        tp_tensor B;
        memset(&B, 0, sizeof B);
        B.dtype = TP_F16;
        B.rank = 2;
        B.shape[0] = K;
        B.shape[1] = 1;
        B.numel = K;
        uint16_t *b = calloc(K, sizeof *b);
        double *a = calloc(K, sizeof *a), out[4 * TP_GEMM_TILE_W];
        b[0] = b[K - 1] = tp_f16_from_double(1.0);
        B.data = b;
        a[0] = 0x1p-60;
        a[K - 1] = 1.0;
        sink s = {1, 1, out};
        tp_gemm_panels P;
        tp_gemm_tiles_work *w = tp_gemm_tiles_work_new(1, K);
        tap_ok(w && tp_gemm_panels_make(&B, 0, K, 1, &P) == 0 && tp_gemm_tiles_rows(&P, a, 1, w, collect, &s) != 0,
               "a chunk sum off the grid of 2^-48 (2^-60) is refused, not combined");
        tp_gemm_panels_free(&P);
        tp_gemm_tiles_work_free(w);
        free(a);
        free(b);
    }
    return tap_done();
}
