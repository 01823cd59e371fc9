/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp,gappatp */
/* The proven interval product: see tp_ival_mul.h for its contract. Each
 * corner is one binary32 multiplication, linked to \round_float in a small
 * helper; the ends are the smallest and largest of the four, and soundness
 * over every real of the box comes from the lemmas of mul_rnd32.acsl,
 * Mul_Rnd32_Lower and Mul_Rnd32_Upper in the shape of `sound_lo` and
 * `sound_hi` over the ends the helpers compute. */
#include "tp_ival_mul.h"
#include "minmax_f32.h"

/* One binary32 multiplication is one rounding of the exact product. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires in_range: -flt_max <= x * y <= flt_max;
  @ assigns \nothing;
  @ ensures rounded: \is_finite(\result) && (real)\result == (real)\round_float(\NearestEven, x * y);
  @*/
static float mul_rn(float x, float y)
{
    return x * y;
}

tp_ival32 tp_ival32_mul(tp_ival32 a, tp_ival32 b)
{
    const float p1 = mul_rn(a.lo, b.lo), p2 = mul_rn(a.lo, b.hi);
    const float p3 = mul_rn(a.hi, b.lo), p4 = mul_rn(a.hi, b.hi);
    tp_ival32 r;
    r.lo = min_f(min_f(p1, p2), min_f(p3, p4));
    r.hi = max_f(max_f(p1, p2), max_f(p3, p4));
    return r;
}
