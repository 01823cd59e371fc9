/* The smaller and the larger of two finite binary32 values, with the
 * contracts the proven interval primitives (tp_ival_mul.c, tp_ival_div.c)
 * use to pick their ends among the corner results. Static: each oracle
 * that includes this file proves them again. */
#ifndef TP_MINMAX_F32_H
#define TP_MINMAX_F32_H

#include "interval.acsl"

/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ assigns \nothing;
  @ ensures min: \is_finite(\result) && (real)\result == rmin(x, y);
  @ ensures le: (real)\result <= x && (real)\result <= y;
  @*/
static float min_f(float x, float y)
{
    return x < y ? x : y;
}

/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ assigns \nothing;
  @ ensures max: \is_finite(\result) && (real)\result == rmax(x, y);
  @ ensures ge: x <= (real)\result && y <= (real)\result;
  @*/
static float max_f(float x, float y)
{
    return x < y ? y : x;
}

#endif
