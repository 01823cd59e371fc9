/* Exact GEMM sums for TP_GEMM_K_MAX_EXACT < K <= TP_GEMM_K_MAX by K-chunks.
 *
 * Why the combination is exact. Chunk c (at most TP_GEMM_K_MAX_EXACT =
 * 2^13 terms) comes back from the proven tp_gemm_exact as hi_c + lo_c ==
 * its exact sum, where (oracles/gemm/proven/gemm.c) hi_c is a sum of
 * products rounded to multiples of 2^-8, |hi_c| <= 2^13 * 2^32 = 2^45, and
 * lo_c a sum of remainders, multiples of 2^-48 with |lo_c| <= 2^13 * 2^-9
 * = 2^4. So:
 *  - hi_c * 2^8 is an integer of magnitude <= 2^53 and lo_c * 2^48 one of
 *    magnitude <= 2^52: both products by powers of two are exact, and the
 *    conversions to int64_t are exact (integers below 2^63);
 *  - over at most TP_GEMM_K_MAX / 2^13 = 8 chunks, H = sum hi_c 2^8 stays
 *    below 2^56 and L = sum lo_c 2^48 below 2^55 in magnitude: int64_t
 *    additions, no overflow;
 *  - S * 2^48 = H * 2^40 + L, an integer below 2^97 in magnitude: exact in
 *    __int128;
 *  - v = S * 2^48 is split as v = h + r with h = v rounded toward -inf to
 *    its 53 leading bits (h = (v >> s) << s, s = bitlength(|v|) - 53, or
 *    s = 0 when v fits in 53 bits) and 0 <= r < 2^s <= 2^44: both are
 *    integers with at most 53 significant bits, so their conversions to
 *    double are exact, and so are the products by 2^-48 (no underflow:
 *    the smallest nonzero result is 2^-48).
 * Hence hi + lo == S with no rounding anywhere, whatever the rounding mode.
 * The caller's hi + lo in round-to-nearest is then RN(S) (one rounding of
 * the exact sum) and its outward-rounded bounds hold as for one call.
 * tests/test_gemm_long.c compares every pair with 128-bit integer sums on
 * adversarial inputs at K = 65536. */
#include "oracles/gemm/gemm_long.h"

#include "oracles/gemm/proven/gemm.h"

#include <stdlib.h>

int tp_gemm_long_work_alloc(tp_gemm_long_work *w, int N)
{
    size_t n = (size_t)(N > 0 ? N : 1);
    w->hc = malloc(n * sizeof *w->hc);
    w->lc = malloc(n * sizeof *w->lc);
    w->H = malloc(n * sizeof *w->H);
    w->L = malloc(n * sizeof *w->L);
    if (w->hc && w->lc && w->H && w->L)
        return 0;
    tp_gemm_long_work_free(w);
    return -1;
}

void tp_gemm_long_work_free(tp_gemm_long_work *w)
{
    free(w->hc);
    free(w->lc);
    free(w->H);
    free(w->L);
    w->hc = w->lc = NULL;
    w->H = w->L = NULL;
}

/* v = h + r as above: *hi = h 2^-48, *lo = r 2^-48, both exact. */
static void split_exact(__int128 v, double *hi, double *lo)
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

void tp_gemm_exact_long(int M, int N, int K, const float *A, const float *B, double *hi, double *lo,
                        tp_gemm_long_work *w)
{
    if (K <= TP_GEMM_K_MAX_EXACT) {
        tp_gemm_exact(M, N, K, A, B, hi, lo);
        return;
    }
    for (int i = 0; i < M; i++) {
        const float *a = A + (size_t)i * K;
        for (int j = 0; j < N; j++)
            w->H[j] = w->L[j] = 0;
        for (int k0 = 0; k0 < K; k0 += TP_GEMM_K_MAX_EXACT) {
            int kc = K - k0 < TP_GEMM_K_MAX_EXACT ? K - k0 : TP_GEMM_K_MAX_EXACT;
            tp_gemm_exact(1, N, kc, a + k0, B + (size_t)k0 * N, w->hc, w->lc);
            for (int j = 0; j < N; j++) {
                w->H[j] += (int64_t)(w->hc[j] * 0x1p8);
                w->L[j] += (int64_t)(w->lc[j] * 0x1p48);
            }
        }
        for (int j = 0; j < N; j++)
            split_exact((__int128)w->H[j] * ((__int128)1 << 40) + w->L[j], hi + (size_t)i * N + j,
                        lo + (size_t)i * N + j);
    }
}
