/* op gemm's CPU exact sums from the proven one-pass tile
 * (oracles/gemm/proven/gemm_tile.h): both sums of every element, S = sum a b
 * and A = sum |a b|, in one pass over the products, for any K up to
 * TP_GEMM_K_MAX (K-chunks of TP_EXACT_N_MAX terms combined exactly in
 * 128-bit integers, as oracles/gemm/gemm_long.c argues). The glue around
 * the tile (packing, blocking, the chunk combination) is plain C, tested
 * against MPFR and 128-bit integer sums (tests/test_gemm_tiles.c). */
#ifndef TP_GEMM_TILES_H
#define TP_GEMM_TILES_H

#include "core/tp_case.h"
#include "oracles/gemm/gemm_stream.h" /* tp_gemm_block_fn */

#include <stddef.h>

/* op(B) (K x N) as panels of 8 columns, each K rows of 8 binary16 values
 * widened to float (exact), the last panel padded with zero columns. */
typedef struct {
    int K, N, npanels;
    float *p; /* panel q at p + q * K * 8 */
} tp_gemm_panels;

/* 0, or -1 when out of memory. Parallel (OpenMP). */
int tp_gemm_panels_make(const tp_tensor *B, int transpose, int K, int N, tp_gemm_panels *out);
void tp_gemm_panels_free(tp_gemm_panels *p);

/* One thread's work space for tp_gemm_tiles_rows on blocks of up to R rows. */
typedef struct tp_gemm_tiles_work tp_gemm_tiles_work;
tp_gemm_tiles_work *tp_gemm_tiles_work_new(int R, int K);
void tp_gemm_tiles_work_free(tp_gemm_tiles_work *w);

/* The rows a (R x K doubles holding binary16 values, row-major, R at most
 * the work space's) against every panel: for each panel q, emit(ctx, q,
 * hi, lo, ahi, alo) with four R x 8 row-major arrays (columns 8q ..
 * 8q + 7, padding included) where hi + lo == S and ahi + alo == A exactly,
 * each pair normalized as tp_gemm_exact_normalize does (hi = RN(hi + lo)),
 * in the caller's rounding mode, which must be to nearest. 0, or -1 when
 * a chunk's sum is off the grid of 2^-48 the combination needs (never, for
 * the proven tile: the check catches a changed one). */
typedef void tp_gemm_tiles_emit(void *ctx, int panel, const double *hi, const double *lo, const double *ahi,
                                const double *alo);
int tp_gemm_tiles_rows(const tp_gemm_panels *P, const double *a, int R, tp_gemm_tiles_work *w,
                       tp_gemm_tiles_emit *emit, void *ctx);

/* tp_gemm_exact_stream (oracles/gemm/gemm_stream.h) by the one-pass tiles:
 * the same call and the same normalized pairs, bit for bit, in row blocks
 * of at most TP_GEMM_TILES_ROWS rows. op gemm's CPU reference. */
#define TP_GEMM_TILES_ROWS 32
int tp_gemm_exact_stream_tiles(const tp_tensor *A, int ta, const tp_tensor *B, int tb, int M, int N, int K,
                               tp_gemm_block_fn fn, void *ctx, const char *op, char *err, size_t errlen);

#endif
