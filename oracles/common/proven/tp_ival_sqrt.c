/* wp: model=typed tiers=T1,T3 */
/* The proven interval square root: see tp_ival_sqrt.h for its contract.
 * Each end is one correctly rounded sqrtf (tp_libm.h); soundness over every
 * real of the interval comes from the lemmas of sqrt_mono.acsl. */
#include "tp_ival_sqrt.h"
#include "tp_libm.h"

tp_ival32 tp_ival32_sqrt(tp_ival32 a)
{
    /*@ assert in_range: 0.0 <= a.lo && a.hi <= flt_max; */
    tp_ival32 r;
    r.lo = sqrtf(a.lo);
    r.hi = sqrtf(a.hi);
    return r;
}
