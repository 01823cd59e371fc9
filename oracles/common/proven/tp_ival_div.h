/* The proven quotient of binary32 intervals by a positive one (issue 9,
 * item 2): the interval of every binary32 value round-to-nearest division
 * can produce from reals in the operand intervals, proven sound (T3) by WP
 * in the IEEE float model (tp_ival_div.c). Callers check the `requires`
 * (oracles/common/ival_guard.h). A divisor interval that holds zero or
 * negative values has no use in the ops (softmax divides by a sum of
 * exponentials) and is refused. */
#ifndef TP_IVAL_DIV_H
#define TP_IVAL_DIV_H

#include "div_box.acsl"
#include "rnd32_minmax.acsl"
#include "tp_ival.h"

/* { RN32(x / y) : x in a, y in b } for b > 0: the lower end is the smaller
 * RN32 of a.lo / b.lo and a.lo / b.hi (which one depends on a.lo's sign),
 * the upper end the larger of a.hi / b.lo and a.hi / b.hi: the tightest
 * binary32 interval. div_box(x, y, a.lo, a.hi, b.lo, b.hi): x in a, y in b,
 * b.lo > 0. */
/*@ requires ok: ival32_ok(a) && ival32_ok(b);
  @ requires positive: 0.0 < b.lo;
  @ requires in_range: -flt_max <= a.lo / b.lo <= flt_max && -flt_max <= a.lo / b.hi <= flt_max &&
  @                    -flt_max <= a.hi / b.lo <= flt_max && -flt_max <= a.hi / b.hi <= flt_max;
  @ assigns \nothing;
  @ ensures ok: ival32_ok(\result);
  @ ensures ends:
  @   (real)\result.lo == rmin((real)\round_float(\NearestEven, a.lo / b.lo), (real)\round_float(\NearestEven, a.lo / b.hi)) &&
  @   (real)\result.hi == rmax((real)\round_float(\NearestEven, a.hi / b.lo), (real)\round_float(\NearestEven, a.hi / b.hi));
  @ ensures sound_lo: \forall real x, y; div_box(x, y, a.lo, a.hi, b.lo, b.hi) ==>
  @   (real)\result.lo <= (real)\round_float(\NearestEven, x / y);
  @ ensures sound_hi: \forall real x, y; div_box(x, y, a.lo, a.hi, b.lo, b.hi) ==>
  @   (real)\round_float(\NearestEven, x / y) <= (real)\result.hi;
  @*/
tp_ival32 tp_ival32_div(tp_ival32 a, tp_ival32 b);

#endif
