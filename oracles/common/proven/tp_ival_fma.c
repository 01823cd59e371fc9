/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp */
/* The proven interval fused multiply-add: see tp_ival_fma.h for its
 * contract. Each corner is one fmaf (tp_libm.h: one rounding of the exact
 * x*y + z), linked to \round_float in a small helper; the lower end is the
 * smallest of the four corners with c.lo, the upper end the largest of the
 * four with c.hi, and soundness over every real of the box comes from the
 * lemmas of fma_rnd32.acsl, Fma_Rnd32_Lower and Fma_Rnd32_Upper. */
#include "tp_ival_fma.h"
#include "minmax_f32.h"
#include "tp_libm.h"

/* One fmaf is one rounding of the exact x*y + z. */
/*@ requires finite: \is_finite(x) && \is_finite(y) && \is_finite(z);
  @ requires in_range: -flt_max <= x * y + z <= flt_max;
  @ assigns \nothing;
  @ ensures rounded: \is_finite(\result) && (real)\result == (real)\round_float(\NearestEven, x * y + z);
  @*/
static float fma_rn(float x, float y, float z)
{
    return fmaf(x, y, z);
}

tp_ival32 tp_ival32_fma(tp_ival32 a, tp_ival32 b, tp_ival32 c)
{
    /*@ assert lo_in: -flt_max <= a.lo * b.lo + c.lo <= flt_max && -flt_max <= a.lo * b.hi + c.lo <= flt_max &&
      @   -flt_max <= a.hi * b.lo + c.lo <= flt_max && -flt_max <= a.hi * b.hi + c.lo <= flt_max; */
    /*@ assert hi_in: -flt_max <= a.lo * b.lo + c.hi <= flt_max && -flt_max <= a.lo * b.hi + c.hi <= flt_max &&
      @   -flt_max <= a.hi * b.lo + c.hi <= flt_max && -flt_max <= a.hi * b.hi + c.hi <= flt_max; */
    const float l1 = fma_rn(a.lo, b.lo, c.lo), l2 = fma_rn(a.lo, b.hi, c.lo);
    const float l3 = fma_rn(a.hi, b.lo, c.lo), l4 = fma_rn(a.hi, b.hi, c.lo);
    const float h1 = fma_rn(a.lo, b.lo, c.hi), h2 = fma_rn(a.lo, b.hi, c.hi);
    const float h3 = fma_rn(a.hi, b.lo, c.hi), h4 = fma_rn(a.hi, b.hi, c.hi);
    /*@ assert l1_h1: l1 <= h1; */
    tp_ival32 r;
    r.lo = min_f(min_f(l1, l2), min_f(l3, l4));
    r.hi = max_f(max_f(h1, h2), max_f(h3, h4));
    return r;
}
