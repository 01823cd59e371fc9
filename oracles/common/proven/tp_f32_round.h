/* The binary32 ends of a double interval (issue 9, item 2: rounding an
 * interval to binary32): round-to-nearest-even of each end, proven (T3,
 * tp_f32_round.c) to be the least (greatest) binary32 result of rounding
 * any real in the binary32 range at or above (below) it, and attained
 * there. C's conversion of a double to float is that rounding only in
 * round-to-nearest mode, which WP's model assumes: callers check
 * fegetround() (oracles/common/round_ends.h). */
#ifndef TP_F32_ROUND_H
#define TP_F32_ROUND_H

#include "tp_ival.acsl"

/*@ requires finite: \is_finite(b);
  @ requires in_range: rabs(b) <= flt_max;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures value: (real)\result == (real)\round_float(\NearestEven, b);
  @ ensures least: \forall real x; b <= x ==> rabs(x) <= flt_max ==>
  @   (real)\result <= (real)\round_float(\NearestEven, x);
  @*/
float tp_f32_lower_end(double b);

/*@ requires finite: \is_finite(b);
  @ requires in_range: rabs(b) <= flt_max;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures value: (real)\result == (real)\round_float(\NearestEven, b);
  @ ensures greatest: \forall real x; x <= b ==> rabs(x) <= flt_max ==>
  @   (real)\round_float(\NearestEven, x) <= (real)\result;
  @*/
float tp_f32_upper_end(double b);

#endif
