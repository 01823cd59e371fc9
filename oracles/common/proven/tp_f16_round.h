/* The ends of the binary16 outputs that rounding to nearest (ties to even)
 * can give for the reals of a double interval: the binary16 rounding of
 * issue 9's interval evaluator, proven (T3) in tp_f16_round.c against the
 * model of f16_order.acsl, where rounding is defined from the patterns'
 * values (grid.acsl's f16_value): nearest among all finite patterns, even
 * at a tie, infinite from 65520 on.
 *
 * Each function confirms a candidate end (tp_ieee_encode's pattern, with
 * its value and its neighbour's, which the caller passes: their
 * correctness is the caller's `requires`; the values come from the proven
 * decoder of tp_f16_decode.h, the neighbours' patterns from the codec,
 * checked on all 65536 patterns by tests/test_fp16.c and here by
 * tests/test_f16_round.c) and proves it sound. oracles/common/f16_ends.h holds the callers, which
 * every op's binary16 output rounding goes through. */
#ifndef TP_F16_ROUND_H
#define TP_F16_ROUND_H
#include "../../../core/tp_hd.h"
#include "f16_order.acsl"

typedef struct {
    double v;
    int inf; /* -1: the end is -infinity, +1: +infinity, 0: v */
    int confirmed; /* 0: the candidate was not confirmed (the caller tries its neighbour) */
} tp_f16_end;

/* The lower end of the binary16 results of [blo, ...]: the candidate c
 * (tp_ieee_encode(blo)) with its value vc and the value vp of the pattern
 * below it (tp_ieee_decode). c is confirmed when blo lies above the
 * boundary between the two cells, decided as RN(blo + blo) > RN(vp + vc):
 * rounding is monotone, so that says blo + blo > vp + vc exactly (both
 * sums are in fact exact; the proof needs only monotonicity). A tie,
 * blo exactly on the boundary, blo == vm (the caller's exact midpoint,
 * `requires mid`), is confirmed when c is even: there every nearest
 * pattern below c would be its odd predecessor, which ties to even rule
 * out. So the confirmed end is round-to-nearest-even of blo itself. */
/*@ requires fin: \is_finite(blo);
  @ requires cand: -65520.0 < blo < 65520.0 ==> f16_finite(c) && \is_finite(vc) && vc == f16_val(c);
  @ requires pred: -65520.0 < blo < 65520.0 ==> c != 0xfbff ==> \is_finite(vp) && vp == f16_val(f16_pred(c));
  @ requires mid: -65520.0 < blo < 65520.0 ==> c != 0xfbff ==> vm == (vp + vc) / 2;
  @ assigns \nothing;
  @ ensures sound: \result.inf == 0 ==> \result.v == vc &&
  @   \forall real s; s >= blo ==> \forall integer p; f16_rne(s, p) ==> vc <= f16_val(p);
  @ ensures no_minus_inf: \result.inf != -1 ==> blo > -65520.0;
  @ ensures plus_inf: \result.inf == 1 ==> blo >= 65520.0;
  @ ensures flags: -1 <= \result.inf <= 1 && (\result.confirmed == 0 ==> \result.inf == -1);
  @*/
TP_HD tp_f16_end tp_f16_lower_end(double blo, int c, double vc, double vp, double vm);

/* The upper end, the mirror image: vs is the value of the pattern above c,
 * vm the midpoint of vc and vs. */
/*@ requires fin: \is_finite(bhi);
  @ requires cand: -65520.0 < bhi < 65520.0 ==> f16_finite(c) && \is_finite(vc) && vc == f16_val(c);
  @ requires succ: -65520.0 < bhi < 65520.0 ==> c != 0x7bff ==> \is_finite(vs) && vs == f16_val(f16_succ(c));
  @ requires mid: -65520.0 < bhi < 65520.0 ==> c != 0x7bff ==> vm == (vc + vs) / 2;
  @ assigns \nothing;
  @ ensures sound: \result.inf == 0 ==> \result.v == vc &&
  @   \forall real s; s <= bhi ==> \forall integer p; f16_rne(s, p) ==> f16_val(p) <= vc;
  @ ensures no_plus_inf: \result.inf != 1 ==> bhi < 65520.0;
  @ ensures minus_inf: \result.inf == -1 ==> bhi <= -65520.0;
  @ ensures flags: -1 <= \result.inf <= 1 && (\result.confirmed == 0 ==> \result.inf == 1);
  @*/
TP_HD tp_f16_end tp_f16_upper_end(double bhi, int c, double vc, double vs, double vm);

/* The least binary16 value >= x (a ceiling, not a rounding): what a model
 * that admits the binary16 values inside a real bound takes as its lower
 * end (embedding_bwd's per-step accumulation). c is the candidate, vc its
 * value and vp its predecessor's (not needed when c is the most negative
 * finite pattern 0xfbff). Confirmed when vc >= x > vp: every finite
 * pattern of value >= x is then at least vc. When vc < x and c is the
 * largest finite pattern 0x7bff, no finite value is >= x: the end is
 * +infinity. Otherwise not confirmed (the caller moves the candidate up
 * when vc < x, down when vp >= x). */
/*@ requires fin: \is_finite(x);
  @ requires cand: f16_finite(c) && \is_finite(vc) && vc == f16_val(c);
  @ requires pred: c != 0xfbff ==> \is_finite(vp) && vp == f16_val(f16_pred(c));
  @ assigns \nothing;
  @ ensures least: \result.confirmed != 0 && \result.inf == 0 ==> \result.v == vc && x <= vc &&
  @   \forall integer p; f16_finite(p) ==> x <= f16_val(p) ==> vc <= f16_val(p);
  @ ensures none: \result.confirmed != 0 && \result.inf == 1 ==> \forall integer p; f16_finite(p) ==> f16_val(p) < x;
  @ ensures flags: \result.inf == 0 || \result.inf == 1;
  @*/
TP_HD tp_f16_end tp_f16_ceil_end(double x, int c, double vc, double vp);

/* The greatest binary16 value <= x, the mirror image: vs is the value of
 * the pattern above c (not needed when c is 0x7bff); -infinity when x is
 * below every finite value. */
/*@ requires fin: \is_finite(x);
  @ requires cand: f16_finite(c) && \is_finite(vc) && vc == f16_val(c);
  @ requires succ: c != 0x7bff ==> \is_finite(vs) && vs == f16_val(f16_succ(c));
  @ assigns \nothing;
  @ ensures greatest: \result.confirmed != 0 && \result.inf == 0 ==> \result.v == vc && vc <= x &&
  @   \forall integer p; f16_finite(p) ==> f16_val(p) <= x ==> f16_val(p) <= vc;
  @ ensures none: \result.confirmed != 0 && \result.inf == -1 ==> \forall integer p; f16_finite(p) ==> x < f16_val(p);
  @ ensures flags: \result.inf == 0 || \result.inf == -1;
  @*/
TP_HD tp_f16_end tp_f16_floor_end(double x, int c, double vc, double vs);

#endif
