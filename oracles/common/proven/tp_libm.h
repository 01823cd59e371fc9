/* The C library functions the proven interval primitives call, with the
 * contracts IEEE 754 and C11 Annex F give them, seen by Frama-C only (a C
 * compiler reads <math.h>). Frama-C 25's libc states no rounding for them.
 * Part of the trusted base (proofs/TRUSTED.md): each `requires` is exactly
 * where its `ensures` holds (finite operands, a finite exact result), and
 * outside it the contract says nothing (no claim about NaN or infinities). */
#ifndef TP_LIBM_H
#define TP_LIBM_H

#include "real_abs.acsl"

#ifdef __FRAMAC__
/* C11 F.10.10.1: fmaf computes x*y + z as if to infinite precision and
 * rounds once. For finite operands and a result within the binary32 range
 * (it says nothing of NaN, infinities or overflow, where a real-valued
 * `ensures` would claim too much). */
/*@ requires finite: \is_finite(x) && \is_finite(y) && \is_finite(z);
  @ requires in_range: rabs(x * y + z) <= 0x1.fffffep127;
  @ assigns \result \from x, y, z;
  @ ensures rounded_once: \result == \round_float(\NearestEven, x * y + z);
  @ ensures finite: \is_finite(\result);
  @*/
float fmaf(float x, float y, float z);

/* C11 F.10.4.5 / IEEE 754 5.4.1: sqrtf is correctly rounded. For finite
 * x >= 0 (-0.0 included, whose square root is -0.0, real value 0) the
 * result is RN32(sqrt(x)), finite since sqrt(x) <= x for x >= 1. */
/*@ requires finite: \is_finite(x);
  @ requires nonneg: 0.0 <= x;
  @ assigns \result \from x;
  @ ensures finite: \is_finite(\result);
  @ ensures rounded: (real)\result == (real)\round_float(\NearestEven, \sqrt(x));
  @*/
float sqrtf(float x);

/* C11 F.10.8.1 / IEEE 754 5.5.1: copysign(x, y) is x with the sign bit of
 * y, an exact operation on the bits. For finite operands the result has
 * x's magnitude and, where y is nonzero, y's sign (y = -0.0 gives -|x|,
 * which this contract leaves open: it says only that the result is x or
 * -x). Used by the exact GEMM tile (oracles/gemm/proven/gemm_tile.c) for
 * the sign of a product. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ assigns \result \from x, y;
  @ ensures finite: \is_finite(\result);
  @ ensures magnitude: \result == x || \result == -x;
  @ ensures positive: y > 0.0 ==> \result >= 0.0;
  @ ensures negative: y < 0.0 ==> \result <= 0.0;
  @*/
double copysign(double x, double y);
#else
#include <math.h>
#endif

#endif
