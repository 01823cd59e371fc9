/* The exact per-row gradient sums of the embedding backward pass for up
 * to TP_EMBEDDING_N_MAX queries: the proven scatter of
 * oracles/embedding/proven/embedding_scatter.c (exact in double for at most
 * TP_EMBEDDING_MAX_TERMS = 8192 queries) called on consecutive chunks of
 * queries, its sums combined in int64 fixed point at scale 2^24
 * (embedding_exact.c argues why every step is exact). */
#ifndef TP_EMBEDDING_EXACT_H
#define TP_EMBEDDING_EXACT_H

#include <stdint.h>

/* The most queries (terms per element) the exact sums take. */
#define TP_EMBEDDING_N_MAX 1048576

/* S[v*D + d] = 2^24 * sum of g[i*D + d] over the queries i < n with idx[i]
 * = v, for every v < V (indices outside [0, V) contribute to no row): an
 * integer, exactly, |S| < 2^20 * 2^16 * 2^24 = 2^60. g holds binary16
 * values widened to float; 0 <= n <= TP_EMBEDDING_N_MAX, n*D and V*D at
 * most INT_MAX. Returns 0, or -1 on bad sizes, out of memory, or a
 * conversion that was not exact (it cannot be: the argument). */
int tp_embedding_scatter_fix(int n, int V, int D, const int *idx, const float *g, int64_t *S);

/* v * 2^-24 rounded to a double in the current rounding mode (one
 * rounding: the int64 conversion; the scaling by 2^-24 is exact). */
double tp_embedding_fix_to_double(int64_t v);

#endif
