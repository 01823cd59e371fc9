/* The proven interval evaluator (issue 9, item 2): primitives that turn
 * intervals of binary32 operands into the interval of every binary32 value
 * round-to-nearest can produce, each proven sound (T3) by WP under the IEEE
 * float model. Callers check the `requires` (finite ends, lo <= hi, ends'
 * results within the binary32 range) before calling. */
#ifndef TP_IVAL_H
#define TP_IVAL_H

#include "tp_ival.acsl"

/* A closed interval of binary32 values [lo, hi]. */
typedef struct {
    float lo, hi;
} tp_ival32;

/*@ predicate ival32_ok(tp_ival32 a) = \is_finite(a.lo) && \is_finite(a.hi) && a.lo <= a.hi;
  @ predicate in_ival32(real x, tp_ival32 a) = a.lo <= x <= a.hi;
  @*/

/* { RN32(x + y) : x in a, y in b } is within the result, whose ends are
 * RN32(a.lo + b.lo) and RN32(a.hi + b.hi): the tightest binary32 interval. */
/*@ requires ok: ival32_ok(a) && ival32_ok(b);
  @ requires in_range: rabs(a.lo + b.lo) <= flt_max && rabs(a.hi + b.hi) <= flt_max;
  @ assigns \nothing;
  @ ensures ok: ival32_ok(\result);
  @ ensures ends: (real)\result.lo == (real)\round_float(\NearestEven, a.lo + b.lo) &&
  @               (real)\result.hi == (real)\round_float(\NearestEven, a.hi + b.hi);
  @ ensures sound: \forall real x, y; in_ival32(x, a) ==> in_ival32(y, b) ==>
  @   (real)\result.lo <= (real)\round_float(\NearestEven, x + y) <= (real)\result.hi;
  @*/
tp_ival32 tp_ival32_add(tp_ival32 a, tp_ival32 b);

/* { RN32(x - y) : x in a, y in b }: ends RN32(a.lo - b.hi), RN32(a.hi - b.lo). */
/*@ requires ok: ival32_ok(a) && ival32_ok(b);
  @ requires in_range: rabs(a.lo - b.hi) <= flt_max && rabs(a.hi - b.lo) <= flt_max;
  @ assigns \nothing;
  @ ensures ok: ival32_ok(\result);
  @ ensures ends: (real)\result.lo == (real)\round_float(\NearestEven, a.lo - b.hi) &&
  @               (real)\result.hi == (real)\round_float(\NearestEven, a.hi - b.lo);
  @ ensures sound: \forall real x, y; in_ival32(x, a) ==> in_ival32(y, b) ==>
  @   (real)\result.lo <= (real)\round_float(\NearestEven, x - y) <= (real)\result.hi;
  @*/
tp_ival32 tp_ival32_sub(tp_ival32 a, tp_ival32 b);

#endif
