/* The exact sums of one binary16 GEMM op(A) @ op(B) on the CPU, streamed in
 * row blocks: what op gemm's reference computes (oracles/gemm/op_gemm.c),
 * callable by the ops that build on it (op contraction,
 * oracles/generic/op_contraction.c) without a copy of the loop.
 *
 * For every block of at most TP_GEMM_STREAM_ROWS rows of the M x N result,
 * the four normalized exact pairs of each entry: S = hi + lo = sum_k
 * op(A)[m,k] op(B)[k,n] and the abs sum ahi + alo = sum_k |op(A)[m,k]
 * op(B)[k,n]|, from the proven split-double sums (oracles/gemm/proven/
 * gemm.c, exact for K <= 8192) on K-chunks combined exactly beyond
 * (oracles/gemm/gemm_long.c), each pair normalized by TwoSum
 * (tp_gemm_exact_normalize). B is widened once into L2-sized column panels
 * (and their |x| copy), A one row block at a time; the blocks are
 * independent and run on the OpenMP threads in round to nearest. */
#ifndef TP_GEMM_STREAM_H
#define TP_GEMM_STREAM_H
#include "core/tp_tensor.h"

#include <stddef.h>
#include <stdint.h>

#define TP_GEMM_STREAM_ROWS 16

/* Called once per row block, from the thread that computed it (several
 * blocks at once on different threads): rows r0 .. r0 + rows - 1, each
 * array rows x N row-major, normalized. */
typedef void (*tp_gemm_block_fn)(void *ctx, int r0, int rows, int N, const double *hi, const double *lo,
                                 const double *ahi, const double *alo);

/* op(A) (M x K) @ op(B) (K x N) of two binary16 matrices (rank-2 tensors,
 * op the transpose where ta / tb), 0 <= K <= TP_GEMM_K_MAX. 0, or -1 with
 * "OP: ..." in err (out of memory; a chunk off gemm_long.c's grid). */
int tp_gemm_exact_stream(const tp_tensor *A, int ta, const tp_tensor *B, int tb, int M, int N, int K,
                         tp_gemm_block_fn fn, void *ctx, const char *op, char *err, size_t errlen);

/* Rows r0 .. r0+R-1 of op(T) as a row-major float matrix R x C (T^T when
 * transpose): binary16 widens to float exactly. */
void tp_gemm_widen_rows(const tp_tensor *t, int transpose, int64_t r0, int64_t R, float *f);

#endif
