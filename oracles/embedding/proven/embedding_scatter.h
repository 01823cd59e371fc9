/* The exact per-row sums of the embedding's backward pass
 * (docs/kernels.md#embedding), proved in WP's IEEE float model
 * (embedding_scatter.c). Tables are row-major with D columns. */
#ifndef TP_EMBEDDING_SCATTER_H
#define TP_EMBEDDING_SCATTER_H

#include <limits.h>
#include "embedding.acsl"
#include "../../common/proven/grid.acsl"

/* The exact sums below hold at most this many binary16 terms per element
 * (embedding_scatter.c says why they are exact). */
#define TP_EMBEDDING_MAX_TERMS 8192

/* S[v, d] = sum of g[i, d] over the queries i < n with idx[i] = v, for every
 * row v < V (indices outside [0, V) contribute to no row). g holds binary16
 * values widened to float (exact). Proved in WP's IEEE float model: every
 * double addition is exact for n <= TP_EMBEDDING_MAX_TERMS binary16 terms
 * (oracles/common/proven/exact_sum24.h), so the result is the real sum. */
/*@ requires sizes: 0 <= n && 0 <= V && 0 <= D;
  @ requires exact_range: n <= TP_EMBEDDING_MAX_TERMS;
  @ requires fits_g: 0 <= n * D <= INT_MAX;
  @ requires fits_S: 0 <= V * D <= INT_MAX;
  @ requires valid_idx: \valid_read(idx + (0 .. n - 1));
  @ requires valid_g: \valid_read(g + (0 .. n*D - 1));
  @ requires valid_S: \valid(S + (0 .. V*D - 1));
  @ requires f16: \forall integer i, d; 0 <= i < n && 0 <= d < D ==> f16_float(g[flat(D, i, d)]);
  @ assigns S[0 .. V*D - 1];
  @ ensures result: \forall integer v, d; 0 <= v < V && 0 <= d < D ==>
  @   S[flat(D, v, d)] == scatter_sum(idx, g, D, v, d, n);
  @*/
void tp_embedding_scatter(int n, int V, int D, const int *idx, const float *g, double *S);

#endif
