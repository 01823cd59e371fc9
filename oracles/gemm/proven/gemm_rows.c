/* The exact GEMM over all rows: tp_gemm_exact_row (gemm.c) on each row,
 * proven in WP's IEEE float model (the rows' contract, gemm.h). The row
 * pointers are carried from one row to the next (ai += K, ...) and named by
 * mat_row / mat_row_d in the invariants, so the provers see row i as one
 * term, not as the offset i*K. */
/* wp: model=typed tiers=T1,T2 provers=gappatp,cvc4nofp,z3nofp,z3tp alone=cvc4nofp:tp_gemm_exact */
#include "gemm.h"
#ifndef __FRAMAC__
/* row_start is read only by the ACSL \at(..., row_start) the compiler does not see */
#pragma GCC diagnostic ignored "-Wunused-label"
#endif

/* Lemma functions (no code): facts proved in a context of their own. In
 * the loop's context, with its quantified facts about rows beside them,
 * CVC4 and z3 did not prove them in 40 s. */

/*@ requires 0 <= i < M && 0 <= N;
  @ assigns \nothing;
  @ ensures row_inside: 0 <= i * N && i * N + N <= M * N;
  @*/
static inline void row_offsets(int M, int N, int i)
{
    /*@ assert signs: 0 <= i * N && 0 <= (M - i - 1) * N; */
    (void)M, (void)N, (void)i;
}

/*@ requires 0 <= i < M && 0 <= N;
  @ requires separated: \forall integer q, r; 0 <= q < M && 0 <= r < M ==>
  @   \separated(mat_row_d(hi, N, q) + (0 .. N - 1), mat_row_d(lo, N, r) + (0 .. N - 1));
  @ assigns \nothing;
  @ ensures earlier_apart: \forall integer q, j; 0 <= q < i && 0 <= j < N ==>
  @   \separated(mat_row_d(hi, N, q) + j, mat_row_d(hi, N, i) + (0 .. N - 1)) &&
  @   \separated(mat_row_d(lo, N, q) + j, mat_row_d(lo, N, i) + (0 .. N - 1));
  @ ensures cross_apart: \forall integer q, j; 0 <= q < i && 0 <= j < N ==>
  @   \separated(mat_row_d(hi, N, q) + j, mat_row_d(lo, N, i) + (0 .. N - 1)) &&
  @   \separated(mat_row_d(lo, N, q) + j, mat_row_d(hi, N, i) + (0 .. N - 1));
  @*/
static inline void rows_apart(double *hi, double *lo, int M, int N, int i)
{
    /*@ assert pairs: \forall integer q; 0 <= q < i ==>
      @   \separated(mat_row_d(hi, N, q) + (0 .. N - 1), mat_row_d(lo, N, i) + (0 .. N - 1)) &&
      @   \separated(mat_row_d(lo, N, q) + (0 .. N - 1), mat_row_d(hi, N, i) + (0 .. N - 1)); */
    (void)hi, (void)lo, (void)M, (void)N, (void)i;
}

void tp_gemm_exact(int M, int N, int K, const float *A, const float *B, double *hi, double *lo)
{
    const float *ai = A;
    double *hi_i = hi, *lo_i = lo;
    int i = 0;
    /*@ loop invariant range: 0 <= i <= M;
      @ loop invariant row_a: ai == mat_row(A, K, i);
      @ loop invariant row_hi: hi_i == mat_row_d(hi, N, i);
      @ loop invariant row_lo: lo_i == mat_row_d(lo, N, i);
      @ loop invariant done: \forall integer q, j; 0 <= q < i && 0 <= j < N ==>
      @   mat_row_d(hi, N, q)[j] + mat_row_d(lo, N, q)[j] == row_col_dot(mat_row(A, K, q), B, N, j, K);
      @ loop assigns i, ai, hi_i, lo_i, hi[0 .. M*N - 1], lo[0 .. M*N - 1];
      @ loop variant M - i;
      @*/
    for (; i < M; i++) {
        row_offsets(M, N, i);
        rows_apart(hi, lo, M, N, i);
    row_start:
        tp_gemm_exact_row(N, K, ai, B, hi_i, lo_i);
        /*@ assert new_row: \forall integer j; 0 <= j < N ==>
          @   mat_row_d(hi, N, i)[j] + mat_row_d(lo, N, i)[j] == row_col_dot(mat_row(A, K, i), B, N, j, K); */
        /*@ assert kept_hi: \forall integer q, j; 0 <= q < i && 0 <= j < N ==>
          @   mat_row_d(hi, N, q)[j] == \at(mat_row_d(hi, N, q)[j], row_start); */
        /*@ assert kept_lo: \forall integer q, j; 0 <= q < i && 0 <= j < N ==>
          @   mat_row_d(lo, N, q)[j] == \at(mat_row_d(lo, N, q)[j], row_start); */
        /* kept_sum is a step for done_kept: with it CVC4 takes 0.9 s on
         * done_kept, without it 26 s. */
        /*@ assert kept_sum: \forall integer q, j; 0 <= q < i && 0 <= j < N ==>
          @   mat_row_d(hi, N, q)[j] + mat_row_d(lo, N, q)[j] ==
          @   \at(mat_row_d(hi, N, q)[j] + mat_row_d(lo, N, q)[j], row_start); */
        /*@ assert done_kept: \forall integer q, j; 0 <= q < i && 0 <= j < N ==>
          @   mat_row_d(hi, N, q)[j] + mat_row_d(lo, N, q)[j] == row_col_dot(mat_row(A, K, q), B, N, j, K); */
        ai += K;
        hi_i += N;
        lo_i += N;
    }
}
