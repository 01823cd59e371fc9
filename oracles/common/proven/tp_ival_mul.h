/* The proven product of binary32 intervals (issue 9, item 2): the interval
 * of every binary32 value round-to-nearest multiplication can produce from
 * reals in the operand intervals, proven sound (T3) by WP in the IEEE float
 * model (tp_ival_mul.c). Callers check the `requires`. */
#ifndef TP_IVAL_MUL_H
#define TP_IVAL_MUL_H

#include "mul_rnd32.acsl"
#include "interval.acsl"
#include "tp_ival.h"

/* { RN32(x * y) : x in a, y in b }: ends the smallest and the largest RN32
 * of the four corner products, which are RN32 of the smallest and the
 * largest exact corner product (RN32 is monotone): the tightest binary32
 * interval. The corner products must be within the binary32 range.
 * mul_box(x, y, a.lo, a.hi, b.lo, b.hi): x in a and y in b. */
/*@ requires ok: ival32_ok(a) && ival32_ok(b);
  @ requires in_range: -flt_max <= a.lo * b.lo <= flt_max && -flt_max <= a.lo * b.hi <= flt_max &&
  @                    -flt_max <= a.hi * b.lo <= flt_max && -flt_max <= a.hi * b.hi <= flt_max;
  @ assigns \nothing;
  @ ensures ok: ival32_ok(\result);
  @ ensures ends:
  @   (real)\result.lo == rmin(rmin((real)\round_float(\NearestEven, a.lo * b.lo), (real)\round_float(\NearestEven, a.lo * b.hi)),
  @                            rmin((real)\round_float(\NearestEven, a.hi * b.lo), (real)\round_float(\NearestEven, a.hi * b.hi))) &&
  @   (real)\result.hi == rmax(rmax((real)\round_float(\NearestEven, a.lo * b.lo), (real)\round_float(\NearestEven, a.lo * b.hi)),
  @                            rmax((real)\round_float(\NearestEven, a.hi * b.lo), (real)\round_float(\NearestEven, a.hi * b.hi)));
  @ ensures sound_lo: \forall real x, y; mul_box(x, y, a.lo, a.hi, b.lo, b.hi) ==>
  @   (real)\result.lo <= (real)\round_float(\NearestEven, x * y);
  @ ensures sound_hi: \forall real x, y; mul_box(x, y, a.lo, a.hi, b.lo, b.hi) ==>
  @   (real)\round_float(\NearestEven, x * y) <= (real)\result.hi;
  @*/
tp_ival32 tp_ival32_mul(tp_ival32 a, tp_ival32 b);

#endif
