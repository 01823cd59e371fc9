/* wp: model=typed tiers=T1,T3 */
/* The proven interval evaluator: see tp_ival.h for each primitive's
 * contract. Every end is one binary32 operation in round-to-nearest, linked
 * to \round_float in a small helper (its context free of the interval
 * logic), and the soundness over all real operands in the intervals comes
 * from the monotonicity lemmas of tp_ival.acsl. */
#include "tp_ival.h"

/* One binary32 addition is one rounding of the exact sum. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires in_range: rabs(x + y) <= flt_max;
  @ assigns \nothing;
  @ ensures rounded: \is_finite(\result) && (real)\result == (real)\round_float(\NearestEven, x + y);
  @*/
static float add_rn(float x, float y)
{
    return x + y;
}

/* One binary32 subtraction is one rounding of the exact difference. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires in_range: rabs(x - y) <= flt_max;
  @ assigns \nothing;
  @ ensures rounded: \is_finite(\result) && (real)\result == (real)\round_float(\NearestEven, x - y);
  @*/
static float sub_rn(float x, float y)
{
    return x - y;
}

tp_ival32 tp_ival32_add(tp_ival32 a, tp_ival32 b)
{
    tp_ival32 r;
    r.lo = add_rn(a.lo, b.lo);
    r.hi = add_rn(a.hi, b.hi);
    return r;
}

tp_ival32 tp_ival32_sub(tp_ival32 a, tp_ival32 b)
{
    tp_ival32 r;
    r.lo = sub_rn(a.lo, b.hi);
    r.hi = sub_rn(a.hi, b.lo);
    return r;
}
