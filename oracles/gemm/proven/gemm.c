/* Exact GEMM for fp16 inputs by split-double accumulation, proven in WP's
 * IEEE float model: every term goes through tp_exact_row_madd
 * (oracles/common/proven/exact_row.c), whose double operations are proven
 * exact for binary16 factors and at most TP_GEMM_K_MAX_EXACT = 2^13 terms
 * (the argument: oracles/common/proven/exact_sum.h). Here, one output row:
 * the loop over the terms, with no float operation of its own.
 *
 * Loop order k, j (the rows i: gemm_rows.c): the inner loop
 * (tp_exact_row_madd) runs over a contiguous row of B and of the
 * accumulators, so it vectorises. */
/* wp: model=typed tiers=T1,T2 */
#include "gemm.h"

void tp_gemm_exact_row(int N, int K, const float *a, const float *b, double *hi, double *lo)
{
    /*@ loop invariant range: 0 <= j <= N;
      @ loop invariant zero: \forall integer jj; 0 <= jj < j ==> hi[jj] == 0.0 && lo[jj] == 0.0;
      @ loop assigns j, hi[0 .. N - 1], lo[0 .. N - 1];
      @ loop variant N - j;
      @*/
    for (int j = 0; j < N; j++) {
        hi[j] = 0.0;
        lo[j] = 0.0;
    }
    /*@ assert start: \forall integer jj; 0 <= jj < N ==>
      @   exact_acc_ok(hi[jj], lo[jj], 0) && hi[jj] + lo[jj] == row_col_dot(a, b, N, jj, 0);
      @*/
    const float *bk = b;
    int k = 0;
    /*@ loop invariant range: 0 <= k <= K;
      @ loop invariant row_k: bk == mat_row(b, N, k);
      @ loop invariant acc: \forall integer jj; 0 <= jj < N ==> exact_acc_ok(hi[jj], lo[jj], k);
      @ loop invariant partial: \forall integer jj; 0 <= jj < N ==>
      @   hi[jj] + lo[jj] == row_col_dot(a, b, N, jj, k);
      @ loop assigns k, bk, hi[0 .. N - 1], lo[0 .. N - 1];
      @ loop variant K - k;
      @*/
    for (; k < K; k++) {
        /*@ assert row_valid: \valid_read(bk + (0 .. N - 1)); */
        /*@ assert row_f16: \forall integer jj; 0 <= jj < N ==> f16_float(bk[jj]); */
        /*@ assert row_next: \forall integer jj; 0 <= jj < N ==>
          @   row_col_dot(a, b, N, jj, k + 1) == row_col_dot(a, b, N, jj, k) + mul_real(a[k], bk[jj]);
          @*/
        tp_exact_row_madd(N, k, a[k], bk, hi, lo);
        bk += N;
    }
    /*@ assert all: k == K; */
}
