/* Exact column sums of a binary16 matrix by split-double accumulation
 * (the method of layernorm.c), row by row so that the inner loop runs over
 * contiguous memory. The rows go through tp_exact_row_madd
 * (oracles/common/proven/exact_row.c, its own proof) with the multiplier 1,
 * exact; here, only the loop over rows, proven in the IEEE float model with
 * no float operation of its own. */
/* wp: model=typed tiers=T1,T2 */
#include "layernorm_cols.h"

void tp_ln_col_sums(int R, int C, const float *a, double *hi, double *lo)
{
    /*@ loop invariant range: 0 <= c <= C;
      @ loop invariant zero: \forall integer cc; 0 <= cc < c ==> hi[cc] == 0.0 && lo[cc] == 0.0;
      @ loop assigns c, hi[0 .. C - 1], lo[0 .. C - 1];
      @ loop variant C - c;
      @*/
    for (int c = 0; c < C; c++) {
        hi[c] = 0.0;
        lo[c] = 0.0;
    }
    /*@ assert start: \forall integer cc; 0 <= cc < C ==>
      @   exact_acc_ok(hi[cc], lo[cc], 0) && hi[cc] + lo[cc] == ln_col_sum(a, C, cc, 0);
      @*/
    const float *ar = a;
    /*@ loop invariant range: 0 <= r <= R;
      @ loop invariant row_r: ar == mat_row(a, C, r);
      @ loop invariant acc: \forall integer cc; 0 <= cc < C ==> exact_acc_ok(hi[cc], lo[cc], r);
      @ loop invariant partial: \forall integer cc; 0 <= cc < C ==> hi[cc] + lo[cc] == ln_col_sum(a, C, cc, r);
      @ loop assigns r, ar, hi[0 .. C - 1], lo[0 .. C - 1];
      @ loop variant R - r;
      @*/
    for (int r = 0; r < R; r++) {
        /*@ assert row_valid: \valid_read(ar + (0 .. C - 1)); */
        /*@ assert row_f16: \forall integer cc; 0 <= cc < C ==> f16_float(ar[cc]); */
        /*@ assert row_next: \forall integer cc; 0 <= cc < C ==>
          @   ln_col_sum(a, C, cc, r + 1) == ln_col_sum(a, C, cc, r) + ar[cc];
          @*/
        /*@ assert one: f16_float(1.0f); */
        tp_exact_row_madd(C, r, 1.0f, ar, hi, lo);
        ar += C;
    }
}
