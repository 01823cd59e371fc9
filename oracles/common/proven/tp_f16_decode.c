/* wp: model=typed tiers=T1,T2 provers=cvc4nofp,z3nofp,gappatp */
/* The binary16 decoder and the element rule (tp_f16_decode.h): the header
 * holds them, inline, for the element check on the CPU and on the GPU;
 * this file is what WP proves. The wrappers keep the static functions
 * in the translation unit WP reads. */
#include "tp_f16_decode.h"

/*@ requires pat: f16_finite(h);
  @ assigns \nothing;
  @ ensures value: \is_finite(\result) && \result == f16_value(h);
  @*/
double tp_f16_decode_proven(uint32_t h)
{
    return tp_f16_decode(h);
}

/*@ assigns \nothing;
  @ ensures nan: \is_NaN(y) ==> \result == 0;
  @ ensures finite: \is_finite(y) && \is_finite(lo) && \is_finite(hi) ==> (\result != 0 <==> lo <= y <= hi);
  @ ensures overflow: \is_infinite(y) && \is_finite(lo) && \is_finite(hi) ==> \result == 0;
  @*/
int tp_admitted_proven(double y, double lo, double hi)
{
    return tp_admitted(y, lo, hi);
}
