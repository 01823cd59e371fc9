/* Exact references of the embedding kernels (docs/kernels.md#embedding):
 * the gather of the forward pass and the per-row sums of the backward pass.
 * Tables are row-major with D columns. The logic they are proven against is
 * oracles/embedding/proven/embedding.acsl. */
#ifndef TP_EMBEDDING_H
#define TP_EMBEDDING_H

#include <limits.h>
#include "embedding.acsl"

/* The exact sums below hold at most this many binary16 terms per element
 * (embedding.c says why they are exact). */
#define TP_EMBEDDING_MAX_TERMS 8192

/* out[i, d] = W[idx[i], d] when 0 <= idx[i] < V, else init[i, d]: the
 * forward kernel's output, bit pattern for bit pattern (binary16 values
 * travel as their 16-bit patterns, so signed zeros are kept). */
/*@ requires sizes: 0 <= n && 0 <= V && 0 <= D;
  @ requires fits_out: n * D <= INT_MAX;
  @ requires fits_W: V * D <= INT_MAX;
  @ requires valid_idx: \valid_read(idx + (0 .. n - 1));
  @ requires valid_W: \valid_read(W + (0 .. V*D - 1));
  @ requires valid_init: \valid_read(init + (0 .. n*D - 1));
  @ requires valid_out: \valid(out + (0 .. n*D - 1));
  @ requires separated_W: \separated(out + (0 .. n*D - 1), W + (0 .. V*D - 1));
  @ requires separated_init: \separated(out + (0 .. n*D - 1), init + (0 .. n*D - 1));
  @ requires separated_idx: \separated(out + (0 .. n*D - 1), idx + (0 .. n - 1));
  @ assigns out[0 .. n*D - 1];
  @ ensures result: \forall integer i, d; 0 <= i < n && 0 <= d < D ==>
  @   out[flat(D, i, d)] == gather_entry(idx, W, init, V, D, i, d);
  @*/
void tp_embedding_gather(int n, int V, int D, const int *idx, const unsigned short *W,
                         const unsigned short *init, unsigned short *out);

/* S[v, d] = sum of g[i, d] over the queries i < n with idx[i] = v, for every
 * row v < V (indices outside [0, V) contribute to no row). g holds binary16
 * values widened to float (exact). The proof (typed model, floats as reals)
 * shows the algorithm computes the exact sums; that each double addition is
 * exact for n <= TP_EMBEDDING_MAX_TERMS is the argument in embedding.c. */
/*@ requires sizes: 0 <= n && 0 <= V && 0 <= D;
  @ requires exact_range: n <= TP_EMBEDDING_MAX_TERMS;
  @ requires fits_g: n * D <= INT_MAX;
  @ requires fits_S: V * D <= INT_MAX;
  @ requires valid_idx: \valid_read(idx + (0 .. n - 1));
  @ requires valid_g: \valid_read(g + (0 .. n*D - 1));
  @ requires valid_S: \valid(S + (0 .. V*D - 1));
  @ assigns S[0 .. V*D - 1];
  @ ensures result: \forall integer v, d; 0 <= v < V && 0 <= d < D ==>
  @   S[flat(D, v, d)] == scatter_sum(idx, g, D, v, d, n);
  @*/
void tp_embedding_scatter(int n, int V, int D, const int *idx, const float *g, double *S);

#endif
