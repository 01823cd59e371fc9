/* The midpoint of two binary16 values, exact in double: the boundary
 * between the rounding cells of two neighbours (tp_f16_round.c). In a file
 * of its own because its proof needs Gappa, whose Why3 transformations are
 * slow on the pattern logic of tp_f16_round.c (which is proved without
 * Gappa; proofs/README.md). */
#ifndef TP_F16_MID_H
#define TP_F16_MID_H
#include "../../../core/tp_hd.h"
#include "../../../oracles/common/proven/grid.acsl"

/*@ requires fmt: \is_finite(a) && f16_fmt(a) && \is_finite(b) && f16_fmt(b);
  @ assigns \nothing;
  @ ensures lower: \result >= (a + b) * 0.5;
  @ ensures upper: \result <= (a + b) * 0.5;
  @ ensures finite: \is_finite(\result);
  @*/
TP_HD double tp_f16_mid(double a, double b);

#endif
