/* fp32 emulations of a kernel's dot product over fp16 inputs, proven to stay
 * within the checker's accumulation bound (TP_DOT_C, TP_DOT_ETA in gemm.h)
 * under the standard model of binary32 rounding. */
#ifndef TP_DOT_FP32_H
#define TP_DOT_FP32_H

#include "dot.acsl"
#include "std_model.acsl"

#ifdef __FRAMAC__
/* C11 F.10.10.1: fmaf computes x*y + z as if to infinite precision and rounds
 * once. Frama-C 25's libc gives it no functional contract; this is it, for
 * the case the callers need: finite operands and a result within the
 * binary32 range (it says nothing of NaN, infinities or overflow, where a
 * real-valued `ensures` would claim too much). Part of the trusted base. */
/*@ requires finite: \is_finite(x) && \is_finite(y) && \is_finite(z);
  @ requires in_range: rabs(x * y + z) <= 0x1.fffffep127;
  @ assigns \result \from x, y, z;
  @ ensures rounded_once: \result == \round_float(\NearestEven, x * y + z);
  @ ensures finite: \is_finite(\result);
  @*/
float fmaf(float x, float y, float z);
#endif

/* Shared precondition of both emulations: finite binary16-range inputs whose
 * products are exact in fp32 (true of binary16 values), at most 65536 terms.
 * |a b| <= 65504^2 follows from the two magnitude bounds; it is stated as well
 * because that product inequality is nonlinear and costly for the provers.
 * 65504^2 * 65536 is far below FLT_MAX, so no partial sum overflows. */
/*@ predicate dot_inputs{L}(float *a, float *b, integer n) =
  @   0 <= n <= 65536 &&
  @   \valid_read(a + (0 .. n - 1)) && \valid_read(b + (0 .. n - 1)) &&
  @   (\forall integer k; 0 <= k < n ==>
  @      \is_finite(a[k]) && \is_finite(b[k]) &&
  @      rabs(a[k]) <= 65504.0 && rabs(b[k]) <= 65504.0 &&
  @      rabs((real)a[k] * b[k]) <= f16_prod_max &&
  @      \round_float(\NearestEven, (real)a[k] * b[k]) == (real)a[k] * b[k]);
  @*/

/* acc = 0; acc = fmaf(a[k], b[k], acc) for k = 0 .. n-1. */
/*@ requires inputs: dot_inputs(a, b, n);
  @ assigns \nothing;
  @ ensures bound: rabs(\result - dot(a, b, n)) <= n * dot_c * abs_dot(a, b, n) + n * dot_eta;
  @*/
float tp_dot_fp32_fma(int n, const float *a, const float *b);

/* acc = 0; acc = acc + a[k]*b[k] (product rounded, then sum rounded). */
/*@ requires inputs: dot_inputs(a, b, n);
  @ assigns \nothing;
  @ ensures bound: rabs(\result - dot(a, b, n)) <= n * dot_c * abs_dot(a, b, n) + n * dot_eta;
  @*/
float tp_dot_fp32_mul_add(int n, const float *a, const float *b);

#endif
