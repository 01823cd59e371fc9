/* The ends of the bfloat16 outputs that rounding to nearest (ties to even)
 * can give for the reals of a double interval: the bfloat16 rounding of
 * issue 9's interval evaluator, proven (T3) in tp_bf16_round.c against the
 * model of bf16_order.acsl, where bf16_value is defined from the bit
 * pattern and rounding from the values: nearest among all finite
 * patterns, even at a tie, infinite from 0x1.ffp127 on. The same shape as
 * tp_f16_round.h, for the other 16-bit format.
 *
 * Each function confirms a candidate end (the codec's pattern c, its value
 * vc and its neighbour's, which the caller passes: their correctness is
 * the caller's `requires`, checked on all 65536 patterns by
 * tests/test_bf16_round.c) and proves it sound. oracles/common/bf16_ends.h
 * holds the callers. */
#ifndef TP_BF16_ROUND_H
#define TP_BF16_ROUND_H
#include "../../../core/tp_hd.h"
#include "bf16_order.acsl"

typedef struct {
    double v;
    int inf; /* -1: the end is -infinity, +1: +infinity, 0: v */
    int confirmed; /* 0: the candidate was not confirmed (the caller tries its neighbour) */
} tp_bf16_end;

/* The lower end of the bfloat16 results of [blo, ...]: c is confirmed when
 * blo lies above the boundary between c's cell and its predecessor's,
 * decided as RN(blo + blo) > RN(vp + vc) (rounding is monotone, so that
 * says blo + blo > vp + vc exactly), or when blo is exactly on the
 * boundary (blo == vm, `requires mid`) and c is even, where ties to even
 * rule out the odd predecessor. The values are also checked to lie within
 * the finite range before they are used, so that range is proven, not
 * assumed. */
/*@ requires fin: \is_finite(blo);
  @ requires cand: -0x1.ffp127 < blo < 0x1.ffp127 ==> bf16_finite(c) && \is_finite(vc) && vc == bf16_val(c);
  @ requires pred: -0x1.ffp127 < blo < 0x1.ffp127 ==> c != 0xff7f ==> \is_finite(vp) && vp == bf16_val(bf16_pred(c));
  @ requires mid: -0x1.ffp127 < blo < 0x1.ffp127 ==> c != 0xff7f ==> vm == (vp + vc) / 2;
  @ assigns \nothing;
  @ ensures sound: \result.inf == 0 ==> \result.v == vc &&
  @   \forall real s; s >= blo ==> \forall integer p; bf16_rne(s, p) ==> vc <= bf16_val(p);
  @ ensures no_minus_inf: \result.inf != -1 ==> blo > -0x1.ffp127;
  @ ensures plus_inf: \result.inf == 1 ==> blo >= 0x1.ffp127;
  @ ensures flags: -1 <= \result.inf <= 1 && (\result.confirmed == 0 ==> \result.inf == -1);
  @*/
TP_HD tp_bf16_end tp_bf16_lower_end(double blo, int c, double vc, double vp, double vm);

/* The upper end, the mirror image: vs is the value of the pattern above c,
 * vm the midpoint of vc and vs. */
/*@ requires fin: \is_finite(bhi);
  @ requires cand: -0x1.ffp127 < bhi < 0x1.ffp127 ==> bf16_finite(c) && \is_finite(vc) && vc == bf16_val(c);
  @ requires succ: -0x1.ffp127 < bhi < 0x1.ffp127 ==> c != 0x7f7f ==> \is_finite(vs) && vs == bf16_val(bf16_succ(c));
  @ requires mid: -0x1.ffp127 < bhi < 0x1.ffp127 ==> c != 0x7f7f ==> vm == (vc + vs) / 2;
  @ assigns \nothing;
  @ ensures sound: \result.inf == 0 ==> \result.v == vc &&
  @   \forall real s; s <= bhi ==> \forall integer p; bf16_rne(s, p) ==> bf16_val(p) <= vc;
  @ ensures no_plus_inf: \result.inf != 1 ==> bhi < 0x1.ffp127;
  @ ensures minus_inf: \result.inf == -1 ==> bhi <= -0x1.ffp127;
  @ ensures flags: -1 <= \result.inf <= 1 && (\result.confirmed == 0 ==> \result.inf == 1);
  @*/
TP_HD tp_bf16_end tp_bf16_upper_end(double bhi, int c, double vc, double vs, double vm);

#endif
