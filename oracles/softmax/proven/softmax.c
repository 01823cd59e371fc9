/* Exact row reductions for the softmax references.
 *
 * tp_row_dot_exact: why every double operation is exact (binary16 a, b,
 * n <= TP_ROW_DOT_MAX = 2^13; the argument of oracles/gemm/proven/gemm.c):
 *  - p = a*b is a multiple of 2^-48 with |p| <= 65504^2 < 2^32 and at most
 *    22 significant bits: exact in double;
 *  - p + TP_ROW_SPLIT lies in [2^44, 2^45), where the double ulp is 2^-8,
 *    so it is p rounded to a multiple of 2^-8 plus TP_ROW_SPLIT, and the
 *    subtraction of TP_ROW_SPLIT is exact (Sterbenz): t = round_{2^-8}(p);
 *  - p - t is a multiple of 2^-48 with |p - t| <= 2^-9: exact;
 *  - hi sums multiples of 2^-8 with |hi| <= n*2^32 <= 2^45: exact;
 *  - lo sums multiples of 2^-48 with |lo| <= n*2^-9 <= 2^4: exact.
 * Built with -ffp-contract=off and without -ffast-math, so gcc neither
 * fuses nor reassociates these operations. */
/* wp: model=typed+real tiers=T1,T2 */
#include "softmax.h"

float tp_row_max(int n, const float *x)
{
    float m = x[0];
    /*@ loop invariant range: 1 <= k <= n;
      @ loop invariant partial: m == row_max(x, k);
      @ loop assigns k, m;
      @ loop variant n - k;
      @*/
    for (int k = 1; k < n; k++) {
        /*@ assert next: row_max(x, k + 1) == rmax(row_max(x, k), (real)x[k]); */
        if (x[k] > m)
            m = x[k];
    }
    return m;
}

void tp_row_dot_exact(int n, const float *a, const float *b, double *hi, double *lo)
{
    double h = 0.0, l = 0.0;
    /*@ loop invariant range: 0 <= k <= n;
      @ loop invariant partial: h + l == row_dot(a, b, k);
      @ loop assigns k, h, l;
      @ loop variant n - k;
      @*/
    for (int k = 0; k < n; k++) {
        /*@ assert next: row_dot(a, b, k + 1) == row_dot(a, b, k) + (real)a[k] * (real)b[k]; */
        const double p = (double)a[k] * (double)b[k];
        const double t = (p + TP_ROW_SPLIT) - TP_ROW_SPLIT;
        h += t;
        l += p - t;
    }
    *hi = h;
    *lo = l;
}

double tp_row_abs_dot(int n, const float *a, const float *b)
{
    double s = 0.0;
    /*@ loop invariant range: 0 <= k <= n;
      @ loop invariant partial: s == row_abs_dot(a, b, k);
      @ loop assigns k, s;
      @ loop variant n - k;
      @*/
    for (int k = 0; k < n; k++) {
        /*@ assert next: row_abs_dot(a, b, k + 1) == row_abs_dot(a, b, k) + rabs((real)a[k] * (real)b[k]); */
        const double p = (double)a[k] * (double)b[k];
        s += p < 0.0 ? -p : p;
    }
    return s;
}
