/* Chunked exact embedding gradient sums (see embedding_exact.h).
 *
 * Why every step is exact. The queries are taken in chunks of at most
 * TP_EMBEDDING_MAX_TERMS = 2^13. The rows a chunk hits are renumbered
 * 0 .. u-1 (u <= 2^13) and the proven scatter (embedding_scatter.c: the
 * exact sum per row of its queries, each double addition proven exact in
 * WP's IEEE float model for at most 2^13 binary16 terms, every partial sum
 * a multiple of 2^-24 below 2^13 * 65504 < 2^29) runs on the chunk with
 * the renumbered indices: row k of its result is the sum, over the chunk's queries of the original row v_k, of
 * their gradients -- the renumbering is a bijection between the hit rows
 * and 0 .. u-1, so it changes which row a query adds to by name only. That
 * chunk sum is a multiple of 2^-24 below 2^29 in magnitude: times 2^24
 * (exact, a power of two) an integer below 2^53, converted to int64
 * exactly (checked: converting back gives the same double). Adding the
 * chunks' integers in int64 is exact as long as no sum leaves int64: all
 * n <= 2^20 terms together stay below 2^20 * 65504 * 2^24 < 2^60.
 * Nothing depends on the rounding mode (every operation is exact). */
#include "oracles/embedding/embedding_exact.h"

#include "oracles/embedding/proven/embedding_scatter.h"

#include <limits.h>
#include <stdlib.h>

int tp_embedding_scatter_fix(int n, int V, int D, const int *idx, const float *g, int64_t *S)
{
    if (n < 0 || V < 0 || D < 0 || n > TP_EMBEDDING_N_MAX || (int64_t)n * D > INT_MAX || (int64_t)V * D > INT_MAX)
        return -1;
    const int chunk = TP_EMBEDDING_MAX_TERMS;
    int *local = malloc((size_t)(V ? V : 1) * sizeof *local);   /* original row -> chunk row, or -1 */
    int *rows = malloc((size_t)chunk * sizeof *rows);             /* chunk row -> original row */
    int *cidx = malloc((size_t)chunk * sizeof *cidx);             /* the chunk's renumbered indices */
    /* rows of one chunk's sums: at most min(n, chunk, V), so never more
     * than the V x D the scatter alone would have needed */
    const int most = n < chunk ? (n < V ? n : V) : (chunk < V ? chunk : V);
    double *cs = malloc((size_t)(most ? most : 1) * (size_t)(D ? D : 1) * sizeof *cs);
    int rc = 0;
    if (!local || !rows || !cidx || !cs) {
        rc = -1;
        goto out;
    }
    for (int v = 0; v < V; v++)
        local[v] = -1;
    for (int64_t k = 0; k < (int64_t)V * D; k++)
        S[k] = 0;
    for (int i0 = 0; i0 < n && rc == 0; i0 += chunk) {
        const int m = n - i0 < chunk ? n - i0 : chunk;
        int u = 0;
        for (int i = 0; i < m; i++) {
            const int v = idx[i0 + i];
            if (v < 0 || v >= V) {
                cidx[i] = -1; /* outside [0, V): no row, as in the scatter */
                continue;
            }
            if (local[v] < 0) {
                local[v] = u;
                rows[u++] = v;
            }
            cidx[i] = local[v];
        }
        tp_embedding_scatter(m, u, D, cidx, g + (size_t)i0 * D, cs);
        for (int k = 0; k < u; k++) {
            const int v = rows[k];
            local[v] = -1;
            for (int d = 0; d < D; d++) {
                const double s = cs[(size_t)k * D + d] * 0x1p24;
                if (!(s > -0x1p53 && s < 0x1p53)) {
                    rc = -1;
                    break;
                }
                const int64_t f = (int64_t)s;
                if ((double)f != s)
                    rc = -1;
                S[(size_t)v * D + d] += f;
            }
        }
    }
out:
    free(local), free(rows), free(cidx), free(cs);
    return rc;
}

double tp_embedding_fix_to_double(int64_t v) { return (double)v * 0x1p-24; }
