/* The proven fused multiply-add of binary32 intervals (issue 9, item 2):
 * the interval of every binary32 value fmaf (one rounding to nearest of
 * x*y + z) can produce from reals in the operand intervals, proven sound
 * (T3) by WP in the IEEE float model (tp_ival_fma.c), with fmaf's contract
 * of tp_libm.h. Callers check the `requires`. */
#ifndef TP_IVAL_FMA_H
#define TP_IVAL_FMA_H

#include "fma_rnd32.acsl"
#include "interval.acsl"
#include "tp_ival.h"

/* { RN32(x*y + z) : x in a, y in b, z in c }: the lower end is the smallest
 * RN32 of the four corner products plus c.lo, the upper end the largest
 * RN32 of the four plus c.hi (RN32 is monotone): the tightest binary32
 * interval. The eight exact corner results must be within the binary32
 * range. fma_box(x, y, z, ...): x in a, y in b and z in c. */
/*@ requires ok: ival32_ok(a) && ival32_ok(b) && ival32_ok(c);
  @ requires in_range: fma_in_range(a.lo, a.hi, b.lo, b.hi, c.lo, c.hi);
  @ assigns \nothing;
  @ ensures ok: ival32_ok(\result);
  @ ensures ends:
  @   (real)\result.lo == rmin(rmin((real)\round_float(\NearestEven, a.lo * b.lo + c.lo), (real)\round_float(\NearestEven, a.lo * b.hi + c.lo)),
  @                            rmin((real)\round_float(\NearestEven, a.hi * b.lo + c.lo), (real)\round_float(\NearestEven, a.hi * b.hi + c.lo))) &&
  @   (real)\result.hi == rmax(rmax((real)\round_float(\NearestEven, a.lo * b.lo + c.hi), (real)\round_float(\NearestEven, a.lo * b.hi + c.hi)),
  @                            rmax((real)\round_float(\NearestEven, a.hi * b.lo + c.hi), (real)\round_float(\NearestEven, a.hi * b.hi + c.hi)));
  @ ensures sound_lo: \forall real x, y, z; fma_box(x, y, z, a.lo, a.hi, b.lo, b.hi, c.lo, c.hi) ==>
  @   (real)\result.lo <= (real)\round_float(\NearestEven, x * y + z);
  @ ensures sound_hi: \forall real x, y, z; fma_box(x, y, z, a.lo, a.hi, b.lo, b.hi, c.lo, c.hi) ==>
  @   (real)\round_float(\NearestEven, x * y + z) <= (real)\result.hi;
  @*/
tp_ival32 tp_ival32_fma(tp_ival32 a, tp_ival32 b, tp_ival32 c);

#endif
