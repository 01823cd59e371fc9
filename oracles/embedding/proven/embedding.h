/* Exact reference of the embedding lookup (docs/kernels.md#embedding): the
 * gather of the forward pass (the backward pass's sums: embedding_scatter.h).
 * Tables are row-major with D columns. The logic they are proven against is
 * oracles/embedding/proven/embedding.acsl. */
#ifndef TP_EMBEDDING_H
#define TP_EMBEDDING_H

#include <limits.h>
#include "embedding.acsl"

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

#endif
