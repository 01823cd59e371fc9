/* Exact row and column sums of binary16 data by split-double accumulation.
 *
 * Why every double operation is exact (n <= TP_LN_N_MAX = 2^13 terms):
 *  - a term p is a binary16 value (a multiple of 2^-24 with |p| <= 65504)
 *    or a product of two (a multiple of 2^-48 with |p| < 2^32 and 22
 *    significant bits): exact in double either way;
 *  - p + TP_LN_SPLIT lies in [2^44, 2^45) where the double ulp is 2^-8, so
 *    subtracting TP_LN_SPLIT back is exact (Sterbenz): t is p rounded to a
 *    multiple of 2^-8, |t| <= 2^32;
 *  - p - t is a multiple of 2^-48 with |p - t| <= 2^-9: exact;
 *  - hi sums multiples of 2^-8 with |hi| <= n 2^32 <= 2^45: below 2^53 ulps;
 *  - lo sums multiples of 2^-48 with |lo| <= n 2^-9 <= 2^4: below 2^52 ulps.
 * gcc must neither contract (-ffp-contract=off) nor reassociate these. */
/* wp: model=typed+real tiers=T1,T2 */
#include "layernorm.h"

void tp_ln_row_sum(int n, const float *a, double *hi, double *lo)
{
    double h = 0.0, l = 0.0;
    /*@ loop invariant range: 0 <= j <= n;
      @ loop invariant partial: h + l == ln_row_sum(a, j);
      @ loop assigns j, h, l;
      @ loop variant n - j;
      @*/
    for (int j = 0; j < n; j++) {
        const double p = a[j];
        const double t = (p + TP_LN_SPLIT) - TP_LN_SPLIT;
        h += t;
        l += p - t;
    }
    *hi = h;
    *lo = l;
}

void tp_ln_row_dot(int n, const float *a, const float *b, double *hi, double *lo)
{
    double h = 0.0, l = 0.0;
    /*@ loop invariant range: 0 <= j <= n;
      @ loop invariant partial: h + l == ln_row_dot(a, b, j);
      @ loop assigns j, h, l;
      @ loop variant n - j;
      @*/
    for (int j = 0; j < n; j++) {
        const double p = (double)a[j] * (double)b[j];
        const double t = (p + TP_LN_SPLIT) - TP_LN_SPLIT;
        h += t;
        l += p - t;
    }
    *hi = h;
    *lo = l;
}

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
