/* The proven square root of a binary32 interval (issue 9, item 2): the
 * interval of every binary32 value round-to-nearest sqrt can produce from a
 * real in the operand interval, proven sound (T3) by WP in the IEEE float
 * model (tp_ival_sqrt.c). Callers check the `requires`. */
#ifndef TP_IVAL_SQRT_H
#define TP_IVAL_SQRT_H

#include "tp_ival.h"
#include "sqrt_mono.acsl"

/* { RN32(sqrt(x)) : x in a } for a >= 0 (-0.0 included): ends
 * RN32(sqrt(a.lo)) and RN32(sqrt(a.hi)), sqrt and RN32 being monotone: the
 * tightest binary32 interval. */
/*@ requires ok: ival32_ok(a);
  @ requires nonneg: 0.0 <= a.lo;
  @ assigns \nothing;
  @ ensures ok: ival32_ok(\result);
  @ ensures ends: (real)\result.lo == (real)\round_float(\NearestEven, \sqrt(a.lo)) &&
  @               (real)\result.hi == (real)\round_float(\NearestEven, \sqrt(a.hi));
  @ ensures sound_lo: \forall real x; in_ival32(x, a) ==> (real)\result.lo <= (real)\round_float(\NearestEven, \sqrt(x));
  @ ensures sound_hi: \forall real x; in_ival32(x, a) ==> (real)\round_float(\NearestEven, \sqrt(x)) <= (real)\result.hi;
  @*/
tp_ival32 tp_ival32_sqrt(tp_ival32 a);

#endif
