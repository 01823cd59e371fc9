/* oracles/gemm/gemm_stream.h: op gemm's CPU exact sums, streamed in row
 * blocks (moved here from op_gemm.c unchanged, the block's use a callback). */
#include "oracles/gemm/gemm_stream.h"

#include "oracles/gemm/gemm_exact_provider.h" /* tp_gemm_abs_copy, tp_gemm_exact_normalize */
#include "oracles/gemm/gemm_long.h"
#include "oracles/gemm/proven/gemm.h"
#include "core/tp_format.h"

#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows r0 .. r0+R-1 of op(T) as a row-major float matrix R x C (T^T when
 * transpose): binary16 widens to float exactly. The stream widens A one row
 * block at a time, where it is used, instead of all of it up front. */
void tp_gemm_widen_rows(const tp_tensor *t, int transpose, int64_t r0, int64_t R, float *f)
{
    const tp_format *fmt = tp_format_of(t->dtype);
    int64_t TR = t->shape[0], TC = t->shape[1];
    if (!transpose)
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < TC; c++)
                f[r * TC + c] = (float)tp_format_load(fmt, t->data, (r0 + r) * TC + c);
    else /* row r of T^T is column r of T */
        for (int64_t k = 0; k < TR; k++)
            for (int64_t r = 0; r < R; r++)
                f[r * TR + k] = (float)tp_format_load(fmt, t->data, k * TC + r0 + r);
}

/* op(B) (K x N) widened to float and cut into panels of `w` columns, each
 * a row-major K x w matrix (the last one narrower), one after the other:
 * a panel of at most TP_GEMM_PANEL_BYTES stays in a core's L2 cache while
 * every row of a row block runs over it, so B comes from memory once per
 * row block instead of once per row. The sums are those of the whole
 * matrix: panels change which entries a call computes, not how. */
#define TP_GEMM_PANEL_BYTES (512 * 1024)

static int panel_width(int N, int K)
{
    if ((int64_t)N * K * (int64_t)sizeof(float) <= TP_GEMM_PANEL_BYTES)
        return N > 0 ? N : 1;
    int w = (int)(TP_GEMM_PANEL_BYTES / ((int64_t)K * (int64_t)sizeof(float))) & ~15;
    w = w < 64 ? 64 : w; /* narrower rows cost more loop overhead than the cache saves */
    return w < N ? w : N;
}

static float *widen_panels(const tp_tensor *t, int transpose, int K, int N, int w)
{
    float *f = malloc((size_t)K * (size_t)N * sizeof *f + 1);
    const tp_format *fmt = tp_format_of(t->dtype);
    int64_t TC = t->shape[1];
    int npanels = f ? (N + w - 1) / w : 0;
#pragma omp parallel for schedule(dynamic, 1)
    for (int pi = 0; pi < npanels; pi++) {
        int j0 = pi * w, wp = N - j0 < w ? N - j0 : w;
        float *p = f + (size_t)K * (size_t)j0;
        for (int64_t k = 0; k < K; k++)
            for (int j = 0; j < wp; j++) {
                int64_t r = transpose ? j0 + j : k, c = transpose ? k : j0 + j;
                p[k * wp + j] = (float)tp_format_load(fmt, t->data, r * TC + c);
            }
    }
    return f;
}

int tp_gemm_exact_stream(const tp_tensor *A, int ta, const tp_tensor *B, int tb, int M, int N, int K,
                         tp_gemm_block_fn fn, void *ctx, const char *op, char *err, size_t errlen)
{
    /* The CPU path streams: B widened once into L2-sized panels (and their
     * |x| copy), then row blocks of 16, independent of each other, so the
     * reference parallelises without changing a single bit of its result.
     * Each thread widens its block of A, computes the block's exact pairs
     * of S and of the abs sum (tp_gemm_exact_long, K-chunks above 8192) in
     * buffers it reuses, normalizes them as tp_gemm_exact_sums does (one
     * representation of S whichever path gave it) and hands them to fn at
     * once: nothing of size M x N here. */
    int w = panel_width(N, K);
    float *b = widen_panels(B, tb, K, N, w);
    float *ab = b ? tp_gemm_abs_copy(b, (size_t)K * (size_t)N) : NULL;
    int rc = b && ab ? 0 : -1, offgrid = 0;
    const int mode = fegetround(); /* tp_op_reference's: to nearest */
#pragma omp parallel
    {
        /* a worker keeps the rounding mode it was started in: give it this
         * thread's (the split-double sums assume round-to-nearest) */
        int saved = fegetround();
        fesetround(mode);
        enum { R = TP_GEMM_STREAM_ROWS };
        size_t rn = (size_t)R * (size_t)N, rw = (size_t)R * (size_t)w, rk = (size_t)R * (size_t)K;
        float *a = malloc(2 * rk * sizeof *a + 1);
        double *blk = malloc(4 * rn * sizeof *blk + 1), *ph = malloc(4 * rw * sizeof *ph + 1);
        tp_gemm_long_work work = {0};
        int ok = a && blk && ph && (K <= TP_GEMM_K_MAX_EXACT || tp_gemm_long_work_alloc(&work, w) == 0);
        if (!ok) {
#pragma omp atomic write
            rc = -1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int r0 = 0; r0 < M; r0 += R) {
            int rows = M - r0 < R ? M - r0 : R;
            if (!ok || rc != 0)
                continue;
            float *aa = a + rk;
            tp_gemm_widen_rows(A, ta, r0, rows, a);
            for (size_t i = 0; i < (size_t)rows * (size_t)K; i++)
                aa[i] = fabsf(a[i]);
            /* hi, lo, ahi, alo of the block, R x N each */
            double *bd[4] = {blk, blk + rn, blk + 2 * rn, blk + 3 * rn};
            for (int j0 = 0; j0 < N; j0 += w) {
                int wp = N - j0 < w ? N - j0 : w;
                size_t off = (size_t)K * (size_t)j0;
                double *pd[4] = {ph, ph + rw, ph + 2 * rw, ph + 3 * rw};
                double **d = wp == N ? bd : pd;
                if (tp_gemm_exact_long(rows, wp, K, a, b + off, d[0], d[1], &work) != 0 ||
                    tp_gemm_exact_long(rows, wp, K, aa, ab + off, d[2], d[3], &work) != 0) {
#pragma omp atomic write
                    offgrid = 1;
                }
                for (int r = 0; wp != N && r < rows; r++)
                    for (int q = 0; q < 4; q++)
                        memcpy(bd[q] + (size_t)r * N + j0, pd[q] + (size_t)r * wp, (size_t)wp * sizeof(double));
            }
            size_t bn = (size_t)rows * (size_t)N;
            tp_gemm_exact_normalize(bn, bd[0], bd[1]);
            tp_gemm_exact_normalize(bn, bd[2], bd[3]);
            fn(ctx, r0, rows, N, bd[0], bd[1], bd[2], bd[3]);
        }
        free(a);
        free(blk);
        free(ph);
        tp_gemm_long_work_free(&work);
        fesetround(saved);
    }
    free(b);
    free(ab);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory for %dx%dx%d", op, M, N, K);
    else if (offgrid) {
        snprintf(err, errlen,
                 "%s: internal error: a K-chunk's exact sum from tp_gemm_exact is off the grid of 2^-48 that "
                 "oracles/gemm/gemm_long.c combines (%dx%dx%d)",
                 op, M, N, K);
        rc = -1;
    }
    return rc;
}
