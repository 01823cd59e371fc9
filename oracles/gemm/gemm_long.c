/* Exact GEMM sums for TP_GEMM_K_MAX_EXACT < K <= TP_GEMM_K_MAX by K-chunks.
 *
 * Why the combination is exact. It uses only what tp_gemm_exact promises
 * (oracles/gemm/proven/gemm.h: hi_c + lo_c is the exact sum of chunk c, of
 * at most TP_GEMM_K_MAX_EXACT terms) and that both parts lie on the grid
 * of 2^-48, which any split of sums of binary16 products keeps (each
 * product is a multiple of 2^-48; today's split rounds products to
 * multiples of 2^-8 for hi, and lo gathers the remainders). That is
 * checked, not assumed: a part off the grid, or of magnitude 2^75 or
 * more, makes the call fail (a changed split would be caught here, never
 * summed wrongly).
 *  - x * 2^48 for such a part x is an integer below 2^123 in magnitude: the
 *    product by a power of two is exact, and so is its conversion to
 *    __int128;
 *  - the chunk sums are exact sums of at most 2^13 products below 2^32
 *    each, so |hi_c + lo_c| <= 2^45, and over at most TP_GEMM_K_MAX / 2^13
 *    = 8 chunks the running integer sum v of all the parts stays below
 *    8 * 2 * 2^123 = 2^127 whatever the split, and ends at S * 2^48, an
 *    integer below 2^16 * 2^32 * 2^48 = 2^96 in magnitude;
 *  - v is split as v = h + r with h = v rounded toward -inf to its 53
 *    leading bits (h = (v >> s) << s, s = bitlength(|v|) - 53, or s = 0
 *    when v fits in 53 bits) and 0 <= r < 2^s <= 2^44: both are integers
 *    with at most 53 significant bits, so their conversions to double are
 *    exact, and so are the products by 2^-48 (no underflow: the smallest
 *    nonzero result is 2^-48).
 * Hence hi + lo == S with no rounding anywhere, whatever the rounding mode.
 * The caller's hi + lo in round-to-nearest is then RN(S) (one rounding of
 * the exact sum) and its outward-rounded bounds hold as for one call.
 * tests/test_gemm_long.c compares every pair with 128-bit integer sums on
 * adversarial inputs at K = 65536. */
#include "oracles/gemm/gemm_long.h"

#include "oracles/gemm/proven/gemm.h"

#include <math.h>
#include <stdlib.h>

int tp_gemm_long_work_alloc(tp_gemm_long_work *w, int N)
{
    size_t n = (size_t)(N > 0 ? N : 1);
    w->hc = malloc(n * sizeof *w->hc);
    w->lc = malloc(n * sizeof *w->lc);
    w->S = malloc(n * sizeof *w->S);
    if (w->hc && w->lc && w->S)
        return 0;
    tp_gemm_long_work_free(w);
    return -1;
}

void tp_gemm_long_work_free(tp_gemm_long_work *w)
{
    free(w->hc);
    free(w->lc);
    free(w->S);
    w->hc = w->lc = NULL;
    w->S = NULL;
}

/* v = h + r as above: *hi = h 2^-48, *lo = r 2^-48, both exact. */
void tp_gemm_split_exact(__int128 v, double *hi, double *lo)
{
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    int bits = 0;
    while (m >> bits)
        bits++;
    int s = bits > 53 ? bits - 53 : 0;
    __int128 h = (v >> s) * ((__int128)1 << s); /* >> of a negative __int128 is arithmetic in gcc */
    *hi = (double)h * 0x1p-48;
    *lo = (double)(v - h) * 0x1p-48;
}

/* x * 2^48 as an integer, when x is on the grid of 2^-48 below 2^75 in
 * magnitude (then exact, see above); -1 otherwise. */
int tp_gemm_grid48(double x, __int128 *out)
{
    const double s = x * 0x1p48;
    if (!(fabs(s) < 0x1p123) || s != floor(s))
        return -1;
    *out = (__int128)s;
    return 0;
}

int tp_gemm_exact_long(int M, int N, int K, const float *A, const float *B, double *hi, double *lo,
                       tp_gemm_long_work *w)
{
    if (K <= TP_GEMM_K_MAX_EXACT) {
        tp_gemm_exact(M, N, K, A, B, hi, lo);
        return 0;
    }
    for (int i = 0; i < M; i++) {
        const float *a = A + (size_t)i * K;
        for (int j = 0; j < N; j++)
            w->S[j] = 0;
        for (int k0 = 0; k0 < K; k0 += TP_GEMM_K_MAX_EXACT) {
            int kc = K - k0 < TP_GEMM_K_MAX_EXACT ? K - k0 : TP_GEMM_K_MAX_EXACT;
            tp_gemm_exact(1, N, kc, a + k0, B + (size_t)k0 * N, w->hc, w->lc);
            for (int j = 0; j < N; j++) {
                __int128 h, l;
                if (tp_gemm_grid48(w->hc[j], &h) != 0 || tp_gemm_grid48(w->lc[j], &l) != 0)
                    return -1;
                w->S[j] += h + l;
            }
        }
        for (int j = 0; j < N; j++)
            tp_gemm_split_exact(w->S[j], hi + (size_t)i * N + j, lo + (size_t)i * N + j);
    }
    return 0;
}
