/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp */
/* Binary32 division: see tp_f32_div.h. The assertion is the step Z3 takes
 * (Why3's ieee_float div_finite) before it links the value. */
#include "tp_f32_div.h"

float tp_f32_div(float x, float y)
{
    const float q = x / y;
    /*@ assert finite: \is_finite(q); */
    return q;
}
