/* The any-order binary32 sum bound of the proven interval evaluator
 * (issue 9, item 2): from the exact sum S = hi + lo of n products (a double
 * pair, as oracles/gemm/proven/gemm.c computes it) and an upper bound
 * A = ahi + alo of sum |a_k b_k| (also a pair), the double interval [L, H]
 * that holds every real the accumulation bound
 *     |r - S| <= n*dot_c*A + n*dot_eta          (dot.acsl; TP_DOT_C/ETA)
 * admits. dot_fp32.c proves that bound (T3) for a kernel's sequential fp32
 * dot product, fused or not; lemma Dot_Interval (tp_sum_bound.acsl) ties
 * its `bound` ensures to this interval (D = dot, X = abs_dot). The ends are computed in
 * round-to-nearest, then widened by a margin the proof shows covers every
 * rounding made here (no fesetround: WP does not model it). */
#ifndef TP_SUM_BOUND_H
#define TP_SUM_BOUND_H

#include "../../../core/tp_hd.h" /* TP_HD: the GPU element check compiles this code too */
#include "tp_sum_bound.acsl"
#include "std_model64.acsl"

/* A closed interval of doubles [lo, hi]. */
typedef struct {
    double lo, hi;
} tp_ival64;

/* Shared precondition: finite pairs within 2^60 (GEMM: |hi| <= 2^45,
 * |lo| <= 2^5), a nonnegative abs sum, 0 <= n <= 2^20 terms (n is a double
 * so that the contract needs no int conversion; the caller passes a whole
 * number, and the bound holds for any n in the range). */
/*@ predicate sum_bound_inputs(double hi, double lo, double ahi, double alo, double n) =
  @   \is_finite(hi) && \is_finite(lo) && \is_finite(ahi) && \is_finite(alo) && \is_finite(n) &&
  @   rabs(hi) <= 0x1p60 && rabs(lo) <= 0x1p60 && rabs(ahi) <= 0x1p60 && rabs(alo) <= 0x1p60 &&
  @   0.0 <= ahi + alo && 0.0 <= n <= 0x1p20;
  @ predicate ival64_ok(tp_ival64 v) = \is_finite(v.lo) && \is_finite(v.hi) && v.lo <= v.hi;
  @*/

/* Round-to-nearest fp32 accumulation (accumulation = "fp32"). */
/*@ requires inputs: sum_bound_inputs(hi, lo, ahi, alo, n);
  @ assigns \nothing;
  @ ensures ok: ival64_ok(\result);
  @ ensures sound: sum_admits(hi + lo, ahi + alo, n, \result.lo, \result.hi);
  @ ensures lo_end: \result.lo <= (hi + lo) - dot_c * rmul(n, ahi + alo) - n * dot_eta;
  @ ensures hi_end: (hi + lo) + dot_c * rmul(n, ahi + alo) + n * dot_eta <= \result.hi;
  @*/
TP_HD tp_ival64 tp_sum_bound_rn(double hi, double lo, double ahi, double alo, double n);

/* Round-to-nearest fp32 accumulation of 65536 < n <= 262144 terms, whose
 * T3 bound is dot_fp32.h's `bound_long` (constant dot_c_long =
 * 2^-24 0x1.042): the interval tp_sum_bound_rn gives for m = 0x1.024 n
 * terms of dot_c (dot_c 0x1.024 = 2^-24 0x1.02 0x1.024 >= dot_c_long, and
 * m >= n covers n dot_eta). The bound is written with pmul(n, t), which is
 * n t (lemma Pmul_Def): an atom the provers reason about linearly. The
 * caller passes m (exact: n 1033 / 1024 is a double for whole n < 2^40). */
/*@ requires inputs: sum_bound_inputs(hi, lo, ahi, alo, m);
  @ requires terms: 0.0 <= n && m == 0x1.024p0 * n;
  @ assigns \nothing;
  @ ensures ok: ival64_ok(\result);
  @ ensures sound_long: \forall real r, t; 0.0 <= t <= ahi + alo ==>
  @   rabs(r - (hi + lo)) <= dot_c_long * pmul(n, t) + n * dot_eta ==> \result.lo <= r <= \result.hi;
  @*/
TP_HD tp_ival64 tp_sum_bound_long_rn(double hi, double lo, double ahi, double alo, double n, double m);

/* Faithful fp32 accumulation (accumulation = "fp32_faithful": every step one
 * of the two neighbours of its exact value) has the constants faith_c =
 * 2 dot_c, faith_eta = 2 dot_eta (derived in oracles/gemm/op_gemm.c, not by
 * WP): call tp_sum_bound_rn with 2n terms; lemma Admits_Faithful
 * (tp_sum_bound.acsl) turns its `sound` into the faithful bound for n. */

#endif
