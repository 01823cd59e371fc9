/* fp32 emulations of a kernel's dot product over fp16 inputs, proven to stay
 * within the checker's accumulation bound (TP_DOT_C, TP_DOT_ETA in gemm.h)
 * under the standard model of binary32 rounding. */
#ifndef TP_DOT_FP32_H
#define TP_DOT_FP32_H

#include "dot.acsl"
#include "std_model.acsl"

#include "tp_libm.h" /* fmaf's contract */

/* Shared precondition of both emulations: finite binary16-range inputs whose
 * products are exact in fp32 (true of binary16 values), at most 262144 terms.
 * |a b| <= 65504^2 follows from the two magnitude bounds; it is stated as well
 * because that product inequality is nonlinear and costly for the provers.
 * 65504^2 * 262144 (< 2^51) is far below FLT_MAX, so no partial sum overflows. */
/*@ predicate dot_inputs{L}(float *a, float *b, integer n) =
  @   0 <= n <= 262144 &&
  @   \valid_read(a + (0 .. n - 1)) && \valid_read(b + (0 .. n - 1)) &&
  @   (\forall integer k; 0 <= k < n ==>
  @      \is_finite(a[k]) && \is_finite(b[k]) &&
  @      rabs(a[k]) <= 65504.0 && rabs(b[k]) <= 65504.0 &&
  @      rabs((real)a[k] * b[k]) <= f16_prod_max &&
  @      \round_float(\NearestEven, (real)a[k] * b[k]) == (real)a[k] * b[k]);
  @*/

/* Both emulations prove two bounds: `bound` with TP_DOT_C for n <= 65536
 * (the constant of every row up to that length, GEMM's included) and
 * `bound_long` with TP_DOT_C_LONG for every n <= 262144 (oracles/gemm/proven/gemm.h
 * derives both constants). */
/* acc = 0; acc = fmaf(a[k], b[k], acc) for k = 0 .. n-1. */
/*@ requires inputs: dot_inputs(a, b, n);
  @ assigns \nothing;
  @ ensures bound: n <= 65536 ==> rabs(\result - dot(a, b, n)) <= n * dot_c * abs_dot(a, b, n) + n * dot_eta;
  @ ensures bound_long: rabs(\result - dot(a, b, n)) <= n * dot_c_long * abs_dot(a, b, n) + n * dot_eta;
  @*/
float tp_dot_fp32_fma(int n, const float *a, const float *b);

/* acc = 0; acc = acc + a[k]*b[k] (product rounded, then sum rounded). */
/*@ requires inputs: dot_inputs(a, b, n);
  @ assigns \nothing;
  @ ensures bound: n <= 65536 ==> rabs(\result - dot(a, b, n)) <= n * dot_c * abs_dot(a, b, n) + n * dot_eta;
  @ ensures bound_long: rabs(\result - dot(a, b, n)) <= n * dot_c_long * abs_dot(a, b, n) + n * dot_eta;
  @*/
float tp_dot_fp32_mul_add(int n, const float *a, const float *b);

#endif
