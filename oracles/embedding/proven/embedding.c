/* Exact embedding references.
 *
 * The gather moves 16-bit patterns: nothing is rounded.
 *
 * Why every double addition of the scatter is exact (n <= 8192 = 2^13):
 * each term is a binary16 value, a multiple of 2^-24 with |g| <= 65504 <
 * 2^16, so every partial sum of at most 2^13 terms is a multiple of 2^-24
 * below 2^29 in magnitude: an integer times 2^-24 below 2^53, exact in
 * double whatever the order. gcc must not reassociate (no -ffast-math). */
/* wp: model=typed+real tiers=T1,T2 */
#include "embedding.h"

/* Row di of dst becomes row si of src (both row-major with D columns).
 * Its own contract leaves the gather a frame argument per row: the provers
 * never see a write to out next to a read of W or init, which share out's
 * memory type. Entries are named by flat() throughout: the solvers match a
 * quantified fact on out[flat(D, i, j)], not on out[i*D + j]. */
/*@ requires len: 0 <= D;
  @ requires dst_row: 0 <= di * D && di * D + D <= INT_MAX;
  @ requires src_row: 0 <= si * D && si * D + D <= INT_MAX;
  @ requires valid_src: \valid_read(src + (flat(D, si, 0) .. flat(D, si, D) - 1));
  @ requires valid_dst: \valid(dst + (flat(D, di, 0) .. flat(D, di, D) - 1));
  @ requires separated: \separated(dst + (flat(D, di, 0) .. flat(D, di, D) - 1),
  @                                src + (flat(D, si, 0) .. flat(D, si, D) - 1));
  @ assigns dst[flat(D, di, 0) .. flat(D, di, D) - 1];
  @ ensures copied: \forall integer j; 0 <= j < D ==>
  @   dst[flat(D, di, j)] == \old(src[flat(D, si, j)]);
  @*/
static void copy_row(unsigned short *dst, int di, const unsigned short *src, int si, int D)
{
    /*@ loop invariant range: 0 <= d <= D;
      @ loop invariant copied: \forall integer j; 0 <= j < d ==>
      @   dst[flat(D, di, j)] == \at(src[flat(D, si, j)], Pre);
      @ loop invariant src_kept: \forall integer j; 0 <= j < D ==>
      @   src[flat(D, si, j)] == \at(src[flat(D, si, j)], Pre);
      @ loop assigns d, dst[flat(D, di, 0) .. flat(D, di, D) - 1];
      @ loop variant D - d;
      @*/
    for (int d = 0; d < D; d++) {
        /*@ assert at: di * D + d == flat(D, di, d) && si * D + d == flat(D, si, d); */
        dst[di * D + d] = src[si * D + d];
    }
}

void tp_embedding_gather(int n, int V, int D, const int *idx, const unsigned short *W,
                         const unsigned short *init, unsigned short *out)
{
    /* Rows done so far hold the lookup of the tables as they were on entry;
     * the tables themselves stay as they were (only out is written). */
    /*@ loop invariant range: 0 <= i <= n;
      @ loop invariant done: \forall integer r, d; 0 <= r < i && 0 <= d < D ==>
      @   out[flat(D, r, d)] == gather_entry{Pre}(idx, W, init, V, D, r, d);
      @ loop invariant W_kept: \forall integer k; 0 <= k < V*D ==> W[k] == \at(W[k], Pre);
      @ loop invariant init_kept: \forall integer k; 0 <= k < n*D ==> init[k] == \at(init[k], Pre);
      @ loop assigns i, out[0 .. n*D - 1];
      @ loop variant n - i;
      @*/
    for (int i = 0; i < n; i++) {
        const int r = idx[i];
        /*@ assert rows_before: \forall integer q, j; 0 <= q < i && 0 <= j < D ==> flat(D, q, j) + 1 <= flat(D, i, 0); */
        /*@ assert row_out: flat(D, i, D) <= flat(D, n, 0); */
        /*@ assert row_out_int: 0 <= i * D && i * D + D <= n * D; */
        /*@ assert row_out_in: \forall integer j; 0 <= j < D ==> 0 <= flat(D, i, j) < n * D; */
        if (0 <= r && r < V) {
            /*@ assert row_W: flat(D, r, D) <= flat(D, V, 0); */
            /*@ assert row_W_int: 0 <= r * D && r * D + D <= V * D; */
            /*@ assert row_W_in: \forall integer j; 0 <= j < D ==> 0 <= flat(D, r, j) < V * D; */
            /*@ assert hit_row: \forall integer j; 0 <= j < D ==>
              @   W[flat(D, r, j)] == gather_entry{Pre}(idx, W, init, V, D, i, j); */
            copy_row(out, i, W, r, D);
        } else {
            /*@ assert miss_row: \forall integer j; 0 <= j < D ==>
              @   init[flat(D, i, j)] == gather_entry{Pre}(idx, W, init, V, D, i, j); */
            copy_row(out, i, init, i, D);
        }
        /*@ assert new_row: \forall integer j; 0 <= j < D ==>
          @   out[flat(D, i, j)] == gather_entry{Pre}(idx, W, init, V, D, i, j); */
    }
    /*@ assert tables_kept: \forall integer i, d; 0 <= i < n && 0 <= d < D ==>
      @   gather_entry(idx, W, init, V, D, i, d) == gather_entry{Pre}(idx, W, init, V, D, i, d); */
}

void tp_embedding_scatter(int n, int V, int D, const int *idx, const float *g, double *S)
{
    /*@ loop invariant range: 0 <= k <= V*D;
      @ loop invariant zero: \forall integer v, d; 0 <= v < V && 0 <= d < D && flat(D, v, d) < k ==>
      @   S[flat(D, v, d)] == scatter_sum(idx, g, D, v, d, 0);
      @ loop assigns k, S[0 .. V*D - 1];
      @ loop variant V*D - k;
      @*/
    for (int k = 0; k < V * D; k++) {
        /*@ assert empty: \forall integer v, d; scatter_sum(idx, g, D, v, d, 0) == 0.0; */
        S[k] = 0.0;
    }
    /*@ assert inside: \forall integer v, d; 0 <= v < V && 0 <= d < D ==> flat(D, v, d) + 1 <= flat(D, V, 0); */
    /*@ assert sums_0: \forall integer v, d; 0 <= v < V && 0 <= d < D ==>
      @   S[flat(D, v, d)] == scatter_sum(idx, g, D, v, d, 0); */
    /*@ loop invariant range: 0 <= i <= n;
      @ loop invariant sums: \forall integer v, d; 0 <= v < V && 0 <= d < D ==>
      @   S[flat(D, v, d)] == scatter_sum(idx, g, D, v, d, i);
      @ loop assigns i, S[0 .. V*D - 1];
      @ loop variant n - i;
      @*/
    for (int i = 0; i < n; i++) {
        const int r = idx[i];
        /*@ assert misses: \forall integer v, d; 0 <= v < V && 0 <= d < D && v != r ==>
          @   scatter_sum(idx, g, D, v, d, i + 1) == scatter_sum(idx, g, D, v, d, i); */
        if (r < 0 || r >= V)
            continue;
        /*@ assert row_g: flat(D, i, D) <= flat(D, n, 0); */
        /*@ assert row_S: flat(D, r, D) <= flat(D, V, 0); */
        /*@ assert row_S_int: 0 <= r * D && r * D + D <= V * D; */
        /*@ assert other: \forall integer v, j, d; 0 <= v < V && 0 <= j < D && 0 <= d < D && v != r ==>
          @   flat(D, v, j) < flat(D, r, d) || flat(D, r, d) < flat(D, v, j); */
        /*@ loop invariant range: 0 <= d <= D;
          @ loop invariant other_rows: \forall integer v, j; 0 <= v < V && 0 <= j < D && v != r ==>
          @   S[flat(D, v, j)] == scatter_sum(idx, g, D, v, j, i);
          @ loop invariant done: \forall integer j; 0 <= j < d ==>
          @   S[flat(D, r, j)] == scatter_sum(idx, g, D, r, j, i + 1);
          @ loop invariant todo: \forall integer j; d <= j < D ==>
          @   S[flat(D, r, j)] == scatter_sum(idx, g, D, r, j, i);
          @ loop assigns d, S[flat(D, r, 0) .. flat(D, r, D) - 1];
          @ loop variant D - d;
          @*/
        for (int d = 0; d < D; d++) {
            /*@ assert next: scatter_sum(idx, g, D, r, d, i + 1) == scatter_sum(idx, g, D, r, d, i) + g[flat(D, i, d)]; */
            /*@ assert at: r*D + d == flat(D, r, d) && i*D + d == flat(D, i, d); */
            S[r * D + d] += g[i * D + d];
        }
    }
}
