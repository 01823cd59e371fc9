/* Proven row reductions of the softmax references (op_softmax_fwd.c,
 * op_softmax_xent_bwd.c): the exact maximum of a row and the exact dot
 * product of two rows of binary16 values (widened to float, exactly). */
#ifndef TP_SOFTMAX_H
#define TP_SOFTMAX_H

#include "softmax.acsl"

/* Longest row tp_row_dot_exact accepts: the split-double argument of
 * oracles/gemm/proven/gemm.c (softmax.c repeats it) holds for at most 2^13 terms.
 * Longer rows are summed in chunks by the caller. */
#define TP_ROW_DOT_MAX 8192

/* The split scale, as in oracles/gemm/proven/gemm.h: adding and subtracting 1.5*2^44
 * rounds a product to a multiple of 2^-8. */
#define TP_ROW_SPLIT 0x1.8p44

/* max_{k < n} x[k]: every comparison of two floats is exact, so the value
 * returned is the maximum itself (for finite or infinite x; NaN-free rows
 * only, which the callers check). */
/*@ requires size: 1 <= n;
  @ requires valid_x: \valid_read(x + (0 .. n - 1));
  @ assigns \nothing;
  @ ensures result: \result == row_max(x, n);
  @*/
float tp_row_max(int n, const float *x);

/* sum_{k < n} a[k]*b[k] as the unevaluated pair *hi + *lo. Each product p
 * (a multiple of 2^-48, |p| < 2^32) is split at TP_ROW_SPLIT into
 * t = (p + TP_ROW_SPLIT) - TP_ROW_SPLIT and p - t, accumulated into *hi and
 * *lo; softmax.c argues why each of those double operations is exact for
 * binary16 a, b and n <= TP_ROW_DOT_MAX. The WP proof (typed+real model)
 * shows the algorithm computes the exact sum. */
/*@ requires size: 0 <= n <= TP_ROW_DOT_MAX;
  @ requires valid_a: \valid_read(a + (0 .. n - 1));
  @ requires valid_b: \valid_read(b + (0 .. n - 1));
  @ requires valid_hi: \valid(hi);
  @ requires valid_lo: \valid(lo);
  @ requires separated: \separated(hi, lo);
  @ assigns *hi, *lo;
  @ ensures result: *hi + *lo == row_dot(a, b, n);
  @*/
void tp_row_dot_exact(int n, const float *a, const float *b, double *hi, double *lo);

/* sum_{k < n} |a[k]*b[k]| in plain double (only the real-model sum is
 * proven; the caller inflates it by n*2^-52 relative to an upper bound). */
/*@ requires size: 0 <= n;
  @ requires valid_a: \valid_read(a + (0 .. n - 1));
  @ requires valid_b: \valid_read(b + (0 .. n - 1));
  @ assigns \nothing;
  @ ensures result: \result == row_abs_dot(a, b, n);
  @*/
double tp_row_abs_dot(int n, const float *a, const float *b);

#endif
