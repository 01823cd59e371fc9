/* The exact embedding lookup: it moves 16-bit patterns, nothing is
 * rounded, so WP's real model proves it as it is (no floating-point
 * operation). The scatter sums are in embedding_scatter.c, proved in the
 * IEEE float model. */
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
