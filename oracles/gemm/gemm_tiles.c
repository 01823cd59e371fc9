/* op gemm's CPU exact sums by one-pass tiles (gemm_tiles.h).
 *
 * Why the sums are exact. The proven tile (oracles/gemm/proven/gemm_tile.h)
 * adds the products of up to TP_EXACT_N_MAX terms in all to accumulator
 * pairs whose sums are exact; it is called on K-blocks of at most
 * TILE_KB terms with the count of terms already in its chunk (k0), so a
 * chunk of TP_EXACT_N_MAX terms is one proven sum split into calls. For K
 * above TP_EXACT_N_MAX each chunk's pairs are added in 128-bit integers at
 * the grid of 2^-48 and split back into an exact pair, as
 * oracles/gemm/gemm_long.c argues for the S-only path (its bound holds for
 * the abs sum too: the same parts, |t| and |p - t|). Every pair is then
 * normalized by TwoSum, so both paths give the representation
 * tp_gemm_exact_normalize gives: the same bits as the two-pass reference
 * it replaces (tests/test_gemm_tiles.c compares them). */
#include "oracles/gemm/gemm_tiles.h"

#include "core/tp_format.h"
#include "core/tp_fp16.h"
#include "oracles/gemm/gemm_admitted.h" /* tp_two_sum */
#include "oracles/gemm/gemm_long.h"
#include "oracles/gemm/proven/gemm_tile.h"

#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Terms per tile call: a block of a panel (TILE_KB x 8 doubles, 16 KiB)
 * and of R rows of A stay in the first-level cache while every row of the
 * block runs over it. */
enum { TILE_KB = 256, W = TP_GEMM_TILE_W };

struct tp_gemm_tiles_work {
    int R, K;
    double *b;         /* TILE_KB x 8: the panel block, widened to double */
    tp_gemm_quad *acc; /* R x 2: each row's tile */
    __int128 *S; /* R x 8 x 2: each element's S and A times 2^48, K > TP_EXACT_N_MAX */
    double *out; /* 4 x R x 8: what emit gets */
};

int tp_gemm_panels_make(const tp_tensor *B, int transpose, int K, int N, tp_gemm_panels *out)
{
    const tp_format *fmt = tp_format_of(B->dtype);
    const int64_t TC = B->shape[1];
    out->K = K;
    out->N = N;
    out->npanels = (N + W - 1) / W;
    out->p = malloc((size_t)out->npanels * (size_t)K * W * sizeof(float) + 1);
    if (!out->p)
        return -1;
#pragma omp parallel for schedule(dynamic, 1)
    for (int q = 0; q < out->npanels; q++) {
        float *p = out->p + (size_t)q * (size_t)K * W;
        for (int64_t k = 0; k < K; k++)
            for (int c = 0; c < W; c++) {
                const int64_t j = (int64_t)q * W + c, at = transpose ? j * TC + k : k * TC + j;
                p[k * W + c] = j >= N                 ? 0.0f
                               : B->dtype == TP_F16 ? (float)tp_f16_to_double(((const uint16_t *)B->data)[at])
                                                    : (float)tp_format_load(fmt, B->data, at);
            }
    }
    return 0;
}

void tp_gemm_panels_free(tp_gemm_panels *p)
{
    free(p->p);
    p->p = NULL;
}

tp_gemm_tiles_work *tp_gemm_tiles_work_new(int R, int K)
{
    tp_gemm_tiles_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->R = R;
    w->K = K;
    w->b = malloc(TILE_KB * W * sizeof *w->b);
    w->acc = malloc((size_t)R * 2 * sizeof *w->acc);
    w->out = malloc(4 * (size_t)R * W * sizeof *w->out);
    w->S = K > TP_EXACT_N_MAX ? malloc((size_t)R * W * 2 * sizeof *w->S) : NULL;
    if (!w->b || !w->acc || !w->out || (K > TP_EXACT_N_MAX && !w->S)) {
        tp_gemm_tiles_work_free(w);
        return NULL;
    }
    return w;
}

void tp_gemm_tiles_work_free(tp_gemm_tiles_work *w)
{
    if (!w)
        return;
    free(w->b);
    free(w->acc);
    free(w->S);
    free(w->out);
    free(w);
}

/* Part 0 .. 3 (hi, lo, ahi, alo) of column c of a tile (two quads). */
static inline double column(const tp_gemm_quad *t, int c, int part)
{
    const tp_gemm_quad *q = t + c / 4;
    const double *v = part == 0 ? q->hi : part == 1 ? q->lo : part == 2 ? q->ahi : q->alo;
    return v[c % 4];
}

/* The chunk just summed into the integers, the accumulators zeroed. */
static int fold(tp_gemm_tiles_work *w, int R)
{
    for (int r = 0; r < R; r++)
        for (int c = 0; c < W; c++)
            for (int s = 0; s < 2; s++) {
                const tp_gemm_quad *acc = w->acc + (size_t)r * 2;
                __int128 h, l;
                if (tp_gemm_grid48(column(acc, c, 2 * s), &h) != 0 ||
                    tp_gemm_grid48(column(acc, c, 2 * s + 1), &l) != 0)
                    return -1;
                w->S[((size_t)r * W + c) * 2 + s] += h + l;
            }
    memset(w->acc, 0, (size_t)R * 2 * sizeof *w->acc);
    return 0;
}

int tp_gemm_tiles_rows(const tp_gemm_panels *P, const double *a, int R, tp_gemm_tiles_work *w,
                       tp_gemm_tiles_emit *emit, void *ctx)
{
    const int K = P->K, long_k = K > TP_EXACT_N_MAX;
    const size_t rw = (size_t)R * W;
    double *hi = w->out, *lo = hi + rw, *ahi = lo + rw, *alo = ahi + rw;
    for (int q = 0; q < P->npanels; q++) {
        const float *pan = P->p + (size_t)q * (size_t)K * W;
        memset(w->acc, 0, (size_t)R * 2 * sizeof *w->acc);
        if (long_k)
            memset(w->S, 0, rw * 2 * sizeof *w->S);
        for (int k0 = 0; k0 < K;) {
            const int kc = k0 % TP_EXACT_N_MAX; /* terms already in this chunk */
            int kb = K - k0 < TILE_KB ? K - k0 : TILE_KB;
            kb = kb < TP_EXACT_N_MAX - kc ? kb : TP_EXACT_N_MAX - kc;
            for (int i = 0; i < kb * W; i++)
                w->b[i] = pan[(size_t)k0 * W + (size_t)i];
            for (int r = 0; r < R; r++)
                tp_gemm_exact_tile(kb, kc, a + (size_t)r * (size_t)K + (size_t)k0, w->b, w->acc + (size_t)r * 2);
            k0 += kb;
            if (long_k && (k0 % TP_EXACT_N_MAX == 0 || k0 == K) && fold(w, R) != 0)
                return -1;
        }
        for (int r = 0; r < R; r++)
            for (int c = 0; c < W; c++) {
                const size_t e = (size_t)r * W + (size_t)c;
                const tp_gemm_quad *acc = w->acc + (size_t)r * 2;
                double h0, l0, h1, l1;
                if (long_k) {
                    tp_gemm_split_exact(w->S[e * 2], &h0, &l0);
                    tp_gemm_split_exact(w->S[e * 2 + 1], &h1, &l1);
                } else {
                    h0 = column(acc, c, 0);
                    l0 = column(acc, c, 1);
                    h1 = column(acc, c, 2);
                    l1 = column(acc, c, 3);
                }
                tp_two_sum(h0, l0, &hi[e], &lo[e]);
                tp_two_sum(h1, l1, &ahi[e], &alo[e]);
            }
        emit(ctx, q, hi, lo, ahi, alo);
    }
    return 0;
}

/* Rows r0 .. r0+R-1 of op(T) as doubles (binary16 widens exactly). */
static void widen_rows_d(const tp_tensor *t, int transpose, int64_t r0, int64_t R, double *f)
{
    const int64_t TR = t->shape[0], TC = t->shape[1], C = transpose ? TR : TC;
    const tp_format *fmt = tp_format_of(t->dtype);
    for (int64_t r = 0; r < R; r++)
        for (int64_t c = 0; c < C; c++) {
            const int64_t at = transpose ? c * TC + r0 + r : (r0 + r) * TC + c;
            f[r * C + c] = t->dtype == TP_F16 ? tp_f16_to_double(((const uint16_t *)t->data)[at])
                                              : tp_format_load(fmt, t->data, at);
        }
}

/* A row block's four R x N arrays, filled panel by panel. */
typedef struct {
    int N, rows;
    double *d[4];
} block_sink;

static void to_block(void *ctx, int panel, const double *hi, const double *lo, const double *ahi, const double *alo)
{
    const block_sink *b = ctx;
    const double *src[4] = {hi, lo, ahi, alo};
    const int j0 = panel * W, w = b->N - j0 < W ? b->N - j0 : W;
    for (int q = 0; q < 4; q++)
        for (int r = 0; r < b->rows; r++)
            memcpy(b->d[q] + (size_t)r * (size_t)b->N + (size_t)j0, src[q] + (size_t)r * W, (size_t)w * sizeof(double));
}

int tp_gemm_exact_stream_tiles(const tp_tensor *A, int ta, const tp_tensor *B, int tb, int M, int N, int K,
                               tp_gemm_block_fn fn, void *ctx, const char *op, char *err, size_t errlen)
{
    /* op(B) packed once; then row blocks, independent of each other, so
     * the sums parallelise without changing a single bit: each thread
     * widens its block of A to double, runs the tiles over every panel
     * into its block's four arrays and hands them to fn. */
    tp_gemm_panels P = {0};
    int rc = tp_gemm_panels_make(B, tb, K, N, &P), offgrid = 0;
    const int mode = fegetround(); /* tp_op_reference's: to nearest */
#pragma omp parallel if (rc == 0)
    {
        /* a worker keeps the rounding mode it was started in: give it this
         * thread's (the split-double sums assume round-to-nearest) */
        const int saved = fegetround();
        fesetround(mode);
        enum { R = TP_GEMM_TILES_ROWS };
        const size_t rn = (size_t)R * (size_t)N;
        double *a = malloc((size_t)R * (size_t)K * sizeof *a + 1), *blk = malloc(4 * rn * sizeof *blk + 1);
        tp_gemm_tiles_work *w = tp_gemm_tiles_work_new(R, K);
        if (!a || !blk || !w) {
#pragma omp atomic write
            rc = -1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int r0 = 0; r0 < M; r0 += R) {
            const int rows = M - r0 < R ? M - r0 : R;
            if (!a || !blk || !w || rc != 0)
                continue;
            widen_rows_d(A, ta, r0, rows, a);
            block_sink bs = {N, rows, {blk, blk + rn, blk + 2 * rn, blk + 3 * rn}};
            if (tp_gemm_tiles_rows(&P, a, rows, w, to_block, &bs) != 0) {
#pragma omp atomic write
                offgrid = 1;
            } else
                fn(ctx, r0, rows, N, bs.d[0], bs.d[1], bs.d[2], bs.d[3]);
        }
        free(a);
        free(blk);
        tp_gemm_tiles_work_free(w);
        fesetround(saved);
    }
    tp_gemm_panels_free(&P);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory for %dx%dx%d", op, M, N, K);
    else if (offgrid) {
        snprintf(err, errlen,
                 "%s: internal error: a K-chunk's exact sum from tp_gemm_exact_tile is off the grid of 2^-48 that "
                 "oracles/gemm/gemm_tiles.c combines (%dx%dx%d)",
                 op, M, N, K);
        rc = -1;
    }
    return rc;
}
