/* Exact column sums of a binary16 matrix by split-double accumulation
 * (the method of layernorm.c).
 *
 * Proven in the real model only (floats read as reals): the algorithm
 * computes the exact sum. Not yet proven in the IEEE float model: there the
 * row-major index facts of the outer loop (r*C + C <= R*C, the validity of
 * row r, the binary16 precondition at a[r*C + c]) time out in the provers
 * (z3 and CVC4 with the float axioms in context), so the exactness of each
 * double operation rests on the argument of oracles/common/proven/exact_sum.h
 * (the same operations layernorm.c proves exact) for R <= TP_LN_N_MAX. */
/* wp: model=typed+real tiers=T1,T2 */
#include "layernorm_cols.h"

/* Row by row, so the inner loop runs over contiguous memory. */
void tp_ln_col_sums(int R, int C, const float *a, double *hi, double *lo)
{
    /*@ loop invariant range: 0 <= c <= C;
      @ loop invariant zero: \forall integer cc; 0 <= cc < c ==> hi[cc] + lo[cc] == ln_col_sum(a, C, cc, 0);
      @ loop assigns c, hi[0 .. C - 1], lo[0 .. C - 1];
      @ loop variant C - c;
      @*/
    for (int c = 0; c < C; c++) {
        hi[c] = 0.0;
        lo[c] = 0.0;
    }
    const float *ar = a;
    /*@ loop invariant range: 0 <= r <= R;
      @ loop invariant row_r: ar == a + r*C;
      @ loop invariant partial: \forall integer cc; 0 <= cc < C ==> hi[cc] + lo[cc] == ln_col_sum(a, C, cc, r);
      @ loop assigns r, ar, hi[0 .. C - 1], lo[0 .. C - 1];
      @ loop variant R - r;
      @*/
    for (int r = 0; r < R; r++) {
        /*@ assert row_end: r * C + C <= R * C; */
        /*@ assert row_valid: \valid_read(ar + (0 .. C - 1)); */
        /*@ loop invariant range: 0 <= c <= C;
          @ loop invariant done: \forall integer cc; 0 <= cc < c ==> hi[cc] + lo[cc] == ln_col_sum(a, C, cc, r + 1);
          @ loop invariant todo: \forall integer cc; c <= cc < C ==> hi[cc] + lo[cc] == ln_col_sum(a, C, cc, r);
          @ loop assigns c, hi[0 .. C - 1], lo[0 .. C - 1];
          @ loop variant C - c;
          @*/
        for (int c = 0; c < C; c++) {
            /*@ assert next: ln_col_sum(a, C, c, r + 1) == ln_col_sum(a, C, c, r) + ar[c]; */
            const double p = ar[c];
            const double t = (p + TP_LN_SPLIT) - TP_LN_SPLIT;
            hi[c] += t;
            lo[c] += p - t;
        }
        ar += C;
    }
}
