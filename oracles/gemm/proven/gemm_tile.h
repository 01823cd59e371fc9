/* The one-pass exact GEMM tile: one row of A against 8 columns of B, the
 * sum of products and the sum of |products| (the two sums an admitted
 * interval needs: oracles/gemm/gemm_admitted.h) in one pass over the
 * products. op gemm's CPU reference is made of these tiles
 * (oracles/gemm/gemm_tiles.c). */
#ifndef TP_GEMM_TILE_H
#define TP_GEMM_TILE_H

/* gemm.acsl first: the lemmas a file declares earlier are hypotheses of
 * the later ones, and Mat_Row's proved in 0.1 s after gemm.acsl's own
 * includes but timed out (CVC4, 60 s) after grid.acsl's binary16 ones. */
#include "gemm.acsl"
#include "../../common/proven/exact_row.h" /* exact_acc_ok, madd_exact, TP_EXACT_N_MAX */
#include "gemm_tile.acsl"

/* Columns of a tile. */
#define TP_GEMM_TILE_W 8

/* The accumulators of 4 columns: column j's sum of products is hi[j] +
 * lo[j], its sum of |products| ahi[j] + alo[j]. A tile has two quads
 * (columns 0-3, then 4-7): the compiler keeps them in eight vector
 * registers of four doubles. Four arrays rather than one: WP's provers
 * met the offsets of one array (q[j], q[4 + j], ...) with matching loops
 * (every fact about q[i] instantiated again at q[4 + i]) and timed out on
 * goals as simple as reading an invariant back. */
typedef struct {
    double hi[4], lo[4], ahi[4], alo[4];
} tp_gemm_quad;

/*@ // Column j (0 .. 3) of quad q within exact_acc_ok after k terms: of a
  @ // value, and of the quad a pointer points to.
  @ predicate quad_ok(tp_gemm_quad q, integer j, integer k) =
  @   exact_acc_ok(q.hi[j], q.lo[j], k) && exact_acc_ok(q.ahi[j], q.alo[j], k);
  @ predicate quad_acc_ok{L}(tp_gemm_quad *q, integer j, integer k) =
  @   exact_acc_ok(q->hi[j], q->lo[j], k) && exact_acc_ok(q->ahi[j], q->alo[j], k);
  @*/

/* tp_gemm_exact_tile adds K terms to a tile's two quads acc[0], acc[1]:
 * the products a[k] * b[8k + c] of a row a of A (doubles holding binary16
 * values) and a panel b of 8 columns of B (K rows of 8 such doubles), for
 * k < K, to column c (quad c / 4, entry c % 4), after k0 terms added
 * before (0 for a fresh tile, zeroed accumulators). Every product p is
 * split at the fixed scale 1.5*2^44 as the exact GEMM's are
 * (oracles/gemm/proven/gemm.h): t = (p + 1.5*2^44) - 1.5*2^44, hi += t,
 * lo += p - t; and with c = copysign(1, p), ahi += c t, alo += c (p - t),
 * whose sum is c p = |p|. Every double operation is proven exact in WP's
 * IEEE float model for at most TP_EXACT_N_MAX = 2^13 terms in all, and
 * each pair's sum proven equal to the real sum (gemm_tile.c). The sums
 * are stated over a and b as they were on entry (\old), so acc may lie
 * anywhere: the function reads a and b and writes acc[0 .. 1] once, at
 * the end. */
/*@ requires sizes: 0 <= k0 && 0 <= K && k0 + K <= TP_EXACT_N_MAX;
  @ requires valid_a: \valid_read(a + (0 .. K - 1));
  @ requires a_f16: \forall integer k; 0 <= k < K ==> \is_finite(a[k]) && f16_fmt(a[k]);
  @ requires valid_b: \forall integer k; 0 <= k < K ==> \valid_read(mat_row_d(b, 8, k) + (0 .. 7));
  @ requires b_f16: \forall integer k, c; 0 <= k < K && 0 <= c < 8 ==>
  @   \is_finite(mat_row_d(b, 8, k)[c]) && f16_fmt(mat_row_d(b, 8, k)[c]);
  @ requires valid_acc: \valid(acc + (0 .. 1));
  @ requires acc: \forall integer j; 0 <= j < 4 ==> quad_acc_ok(&acc[0], j, k0) && quad_acc_ok(&acc[1], j, k0);
  @ assigns acc[0 .. 1];
  @ ensures acc: \forall integer j; 0 <= j < 4 ==> quad_acc_ok(&acc[0], j, k0 + K) && quad_acc_ok(&acc[1], j, k0 + K);
  @ ensures sum0: \forall integer j; 0 <= j < 4 ==>
  @   acc[0].hi[j] + acc[0].lo[j] == \old(acc[0].hi[j] + acc[0].lo[j] + tile_dot(a, b, j, K));
  @ ensures abs0: \forall integer j; 0 <= j < 4 ==>
  @   acc[0].ahi[j] + acc[0].alo[j] == \old(acc[0].ahi[j] + acc[0].alo[j] + tile_absdot(a, b, j, K));
  @ ensures sum1: \forall integer j; 0 <= j < 4 ==>
  @   acc[1].hi[j] + acc[1].lo[j] == \old(acc[1].hi[j] + acc[1].lo[j] + tile_dot(a, b, 4 + j, K));
  @ ensures abs1: \forall integer j; 0 <= j < 4 ==>
  @   acc[1].ahi[j] + acc[1].alo[j] == \old(acc[1].ahi[j] + acc[1].alo[j] + tile_absdot(a, b, 4 + j, K));
  @*/
void tp_gemm_exact_tile(int K, int k0, const double *a, const double *b, tp_gemm_quad *acc);

#endif
