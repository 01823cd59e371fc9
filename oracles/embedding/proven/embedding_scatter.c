/* The embedding gradient's exact scatter sums, proved in WP's IEEE float
 * model: every double addition is exact for n <= 8192 = 2^13 binary16
 * terms per entry (oracles/common/proven/exact_sum24.h), so each entry is
 * the real sum of its queries' gradients. */
/* wp: model=typed tiers=T1,T2 provers=gappatp,cvc4nofp,z3nofp,z3tp alone=cvc4nofp:tp_embedding_scatter,add_row24 */
#include "embedding_scatter.h"
#ifndef __FRAMAC__
/* row_start is read only by the ACSL \at(..., row_start) the compiler does not see */
#pragma GCC diagnostic ignored "-Wunused-label"
#endif
#include "../../common/proven/exact_sum24.h"

/* r * D + d, named flat(D, r, d) for the provers: an entry read at an
 * index they see as arithmetic (d + D*r) was not matched with the loop
 * invariants' flat(D, r, j) (CVC4 and z3 timed out at 20 s). */
/*@ requires 0 <= r * D + d <= INT_MAX && 0 <= r * D <= INT_MAX;
  @ assigns \nothing;
  @ ensures \result == flat(D, r, d);
  @*/
static inline int flat_index(int D, int r, int d)
{
    return r * D + d;
}

/* Row r of S gains row i of g: S[r, j] += g[i, j] for every column j, each
 * addition exact. A function of its own so that its loop's goals see only
 * this row (in the scatter's loop, with the other rows' facts beside them,
 * CVC4 and z3 timed out at 20 s on reading back an invariant's entry). */
/*@ requires sizes: 0 <= D && 0 <= m && m + 1 <= TP_EMBEDDING_MAX_TERMS;
  @ requires row_S: 0 <= flat(D, r, 0) && flat(D, r, D) <= INT_MAX;
  @ requires row_g: 0 <= flat(D, i, 0) && flat(D, i, D) <= INT_MAX;
  @ requires int_S: r * D + D <= INT_MAX && 0 <= r * D;
  @ requires int_g: i * D + D <= INT_MAX && 0 <= i * D;
  @ requires valid_S: \valid(S + (flat(D, r, 0) .. flat(D, r, D) - 1));
  @ requires valid_g: \valid_read(g + (flat(D, i, 0) .. flat(D, i, D) - 1));
  @ requires f16: \forall integer j; 0 <= j < D ==> f16_float(g[flat(D, i, j)]);
  @ requires ok: \forall integer j; 0 <= j < D ==> sum24_ok(S[flat(D, r, j)], m);
  @ assigns S[flat(D, r, 0) .. flat(D, r, D) - 1];
  @ ensures added: \forall integer j; 0 <= j < D ==>
  @   S[flat(D, r, j)] == \old(S[flat(D, r, j)]) + g[flat(D, i, j)];
  @ ensures ok: \forall integer j; 0 <= j < D ==> sum24_ok(S[flat(D, r, j)], m + 1);
  @*/
static void add_row24(double *S, int r, const float *g, int i, int D, int m)
{
    (void)m; /* read only by the contract */
    /*@ loop invariant range: 0 <= d <= D;
      @ loop invariant done: \forall integer j; 0 <= j < d ==>
      @   S[flat(D, r, j)] == \at(S[flat(D, r, j)], Pre) + g[flat(D, i, j)];
      @ loop invariant done_ok: \forall integer j; 0 <= j < d ==> sum24_ok(S[flat(D, r, j)], m + 1);
      @ loop invariant todo: \forall integer j; d <= j < D ==> S[flat(D, r, j)] == \at(S[flat(D, r, j)], Pre);
      @ loop invariant todo_ok: \forall integer j; d <= j < D ==> sum24_ok(S[flat(D, r, j)], m);
      @ loop assigns d, S[flat(D, r, 0) .. flat(D, r, D) - 1];
      @ loop variant D - d;
      @*/
    for (int d = 0; d < D; d++) {
        /*@ assert in_rows: flat(D, r, 0) <= flat(D, r, d) < flat(D, r, D) &&
          @                 flat(D, i, 0) <= flat(D, i, d) < flat(D, i, D); */
        /*@ assert before_d: \forall integer j; 0 <= j < d ==> flat(D, r, j) < flat(D, r, d); */
        const int gk = flat_index(D, i, d), sk = flat_index(D, r, d);
        const double x = tp_exact_widen24(g[gk]);
        const double s = S[sk];
        /*@ assert sum_range: -0x1p29 <= s + x <= 0x1p29; */
        const double t = tp_exact_add24(s, x);
        /*@ assert t_ok: sum24_ok(t, m + 1); */
        /*@ assert t_val: \let j = d; t == \at(S[flat(D, r, j)], Pre) + g[flat(D, i, j)]; */
        S[sk] = t;
        /*@ assert stored: \let j = d; S[flat(D, r, j)] == \at(S[flat(D, r, j)], Pre) + g[flat(D, i, j)]; */
    }
}

/* A lemma function (no code): where row r lies among the rows of a
 * V x D array, proved in a context of its own. As assertions in the
 * scatter's loop, beside its quantified facts, two of them (row_S_int,
 * rows_above) ran CVC4 and z3 into the 5 s limit before z3 with the
 * real-model driver proved them. */
/*@ requires 0 <= r < V && 0 <= D;
  @ assigns \nothing;
  @ ensures row_int: 0 <= r * D && r * D + D <= V * D;
  @ ensures row_end: flat(D, r, D) <= flat(D, V, 0);
  @ ensures rows_below: \forall integer v, j; 0 <= v < r && 0 <= j < D ==> flat(D, v, j) < flat(D, r, 0);
  @ ensures rows_above: \forall integer v, j; r < v < V && 0 <= j < D ==> flat(D, r, D) <= flat(D, v, j);
  @*/
static inline void row_place(int V, int D, int r)
{
    (void)V, (void)D, (void)r;
}

void tp_embedding_scatter(int n, int V, int D, const int *idx, const float *g, double *S)
{
    /*@ loop invariant range: 0 <= k <= V*D;
      @ loop invariant zero: \forall integer v, d; 0 <= v < V && 0 <= d < D && flat(D, v, d) < k ==>
      @   S[flat(D, v, d)] == scatter_sum(idx, g, D, v, d, 0) && S[flat(D, v, d)] == 0.0;
      @ loop assigns k, S[0 .. V*D - 1];
      @ loop variant V*D - k;
      @*/
    for (int k = 0; k < V * D; k++) {
        /*@ assert empty: \forall integer v, d; scatter_sum(idx, g, D, v, d, 0) == 0.0; */
        S[k] = 0.0;
    }
    /*@ assert inside: \forall integer v, d; 0 <= v < V && 0 <= d < D ==> flat(D, v, d) + 1 <= flat(D, V, 0); */
    /*@ assert sums_0: \forall integer v, d; 0 <= v < V && 0 <= d < D ==>
      @   S[flat(D, v, d)] == scatter_sum(idx, g, D, v, d, 0) && S[flat(D, v, d)] == 0.0; */
    /*@ assert zero_fmt: \is_finite((double)0.0) && on_grid_24(0.0); */
    /* Every entry stays a finite multiple of 2^-24 no larger in magnitude
     * than 65504 per query so far: what makes the next addition exact. */
    /*@ loop invariant range: 0 <= i <= n;
      @ loop invariant sums: \forall integer v, d; 0 <= v < V && 0 <= d < D ==>
      @   S[flat(D, v, d)] == scatter_sum(idx, g, D, v, d, i);
      @ loop invariant fmt: \forall integer v, d; 0 <= v < V && 0 <= d < D ==>
      @   sum24_ok(S[flat(D, v, d)], i);
      @ loop assigns i, S[0 .. V*D - 1];
      @ loop variant n - i;
      @*/
    for (int i = 0; i < n; i++) {
        const int r = idx[i];
        /*@ assert misses: \forall integer v, d; 0 <= v < V && 0 <= d < D && v != r ==>
          @   scatter_sum(idx, g, D, v, d, i + 1) == scatter_sum(idx, g, D, v, d, i); */
        /*@ assert fmt_next: \forall integer v, d; 0 <= v < V && 0 <= d < D ==>
          @   sum24_ok(S[flat(D, v, d)], i + 1); */
        if (r < 0 || r >= V)
            continue;
        row_place(n, D, i); /* row i of g */
        row_place(V, D, r); /* row r of S */
        /*@ assert row_f16: \forall integer j; 0 <= j < D ==> f16_float(g[flat(D, i, j)]); */
        /*@ assert row_ok: \forall integer j; 0 <= j < D ==> sum24_ok(S[flat(D, r, j)], i); */
        /*@ assert row_next: \forall integer j; 0 <= j < D ==>
          @   scatter_sum(idx, g, D, r, j, i + 1) == scatter_sum(idx, g, D, r, j, i) + g[flat(D, i, j)]; */
        /*@ assert row_sums: \forall integer j; 0 <= j < D ==> S[flat(D, r, j)] == scatter_sum(idx, g, D, r, j, i); */
        /*@ assert others_apart: \forall integer v, j; 0 <= v < V && 0 <= j < D && v != r ==>
          @   \separated(S + flat(D, v, j), S + (flat(D, r, 0) .. flat(D, r, D) - 1)); */
    row_start:
        add_row24(S, r, g, i, D, i);
        /*@ assert row_done: \forall integer j; 0 <= j < D ==> S[flat(D, r, j)] == scatter_sum(idx, g, D, r, j, i + 1); */
        /*@ assert row_fmt: \forall integer j; 0 <= j < D ==> sum24_ok(S[flat(D, r, j)], i + 1); */
        /*@ assert others_kept: \forall integer v, j; 0 <= v < V && 0 <= j < D && v != r ==>
          @   S[flat(D, v, j)] == \at(S[flat(D, v, j)], row_start); */
        /*@ assert others_fmt: \forall integer v, j; 0 <= v < V && 0 <= j < D && v != r ==>
          @   sum24_ok(S[flat(D, v, j)], i + 1); */
    }
}
