/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp */
/* The binary32 ends: see tp_f32_round.h. One conversion each; `least` and
 * `greatest` are RN32's monotonicity (tp_ival.acsl's Rnd32_Mono), the
 * assertion the conversion's link to \round_float (WP's Cfloat). */
#include "tp_f32_round.h"

float tp_f32_lower_end(double b)
{
    const float r = (float)b;
    /*@ assert rounded: (real)r == (real)\round_float(\NearestEven, b); */
    return r;
}

float tp_f32_upper_end(double b)
{
    const float r = (float)b;
    /*@ assert rounded: (real)r == (real)\round_float(\NearestEven, b); */
    return r;
}
