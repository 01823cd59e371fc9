/* Binary32 division as one rounding of the exact quotient, proven in its
 * own file (tp_f32_div.c): in the context of the interval lemmas
 * (tp_ival.acsl, rnd32_minmax.acsl) neither Z3 nor CVC4 links C's x / y to
 * \round_float within 30 s, alone they do in under a second. */
#ifndef TP_F32_DIV_H
#define TP_F32_DIV_H

/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires positive: 0.0 < y;
  @ requires rounding_finite: \is_finite(\round_float(\NearestEven, x / y));
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures rounded: (real)\result == (real)\round_float(\NearestEven, x / y);
  @*/
float tp_f32_div(float x, float y);

#endif
