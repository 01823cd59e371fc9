/* wp: model=typed tiers=T1,T3 */
/* The proven interval evaluator: see tp_ival.h for each primitive's
 * contract. Every end is one binary32 operation in round-to-nearest, linked
 * to \round_float in a small helper (its context free of the interval
 * logic), and the soundness over all real operands in the intervals comes
 * from the monotonicity lemmas of tp_ival.acsl. */
#include "tp_ival.h"

#ifdef __FRAMAC__
/* The library functions tp_ival.c calls, with the contracts IEEE 754 and
 * C11 F.10.4.5 give them (sqrt is correctly rounded); Frama-C 25's libc
 * states none. Part of the trusted base (proofs/README.md): the `requires`
 * are exactly where the contract holds (a finite result). */
/*@ requires finite: \is_finite(x);
  @ requires nonneg: 0.0 <= x;
  @ assigns \result \from x;
  @ ensures rounded: \is_finite(\result) && (real)\result == (real)\round_float(\NearestEven, \sqrt(x));
  @*/
float sqrtf(float x);
#else
#include <math.h>
#endif

/* One binary32 addition is one rounding of the exact sum. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires in_range: rabs(x + y) <= flt_max;
  @ assigns \nothing;
  @ ensures rounded: \is_finite(\result) && (real)\result == (real)\round_float(\NearestEven, x + y);
  @*/
static float add_rn(float x, float y)
{
    return x + y;
}

/* One binary32 subtraction is one rounding of the exact difference. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires in_range: rabs(x - y) <= flt_max;
  @ assigns \nothing;
  @ ensures rounded: \is_finite(\result) && (real)\result == (real)\round_float(\NearestEven, x - y);
  @*/
static float sub_rn(float x, float y)
{
    return x - y;
}

tp_ival32 tp_ival32_add(tp_ival32 a, tp_ival32 b)
{
    tp_ival32 r;
    r.lo = add_rn(a.lo, b.lo);
    r.hi = add_rn(a.hi, b.hi);
    return r;
}

tp_ival32 tp_ival32_sub(tp_ival32 a, tp_ival32 b)
{
    tp_ival32 r;
    r.lo = sub_rn(a.lo, b.hi);
    r.hi = sub_rn(a.hi, b.lo);
    return r;
}

/* The square-root interval from its ends' RN32. Its soundness is proved
 * here, in a context holding only these requires (Sqrt_Lower, Sqrt_Upper); in
 * tp_ival32_sqrt's the provers time out. */
/*@ requires ok: ival32_ok(a) && 0.0 <= a.lo && a.hi <= flt_max;
  @ requires ends: \is_finite(l) && \is_finite(h) &&
  @   (real)l == (real)\round_float(\NearestEven, \sqrt(a.lo)) &&
  @   (real)h == (real)\round_float(\NearestEven, \sqrt(a.hi));
  @ assigns \nothing;
  @ ensures ends: \result.lo == l && \result.hi == h;
  @ ensures ok: ival32_ok(\result);
  @ ensures sound_lo: \forall real x; a.lo <= x <= a.hi ==>
  @   (real)\result.lo <= (real)\round_float(\NearestEven, \sqrt(x));
  @ ensures sound_hi: \forall real x; a.lo <= x <= a.hi ==>
  @   (real)\round_float(\NearestEven, \sqrt(x)) <= (real)\result.hi;
  @*/
static tp_ival32 sqrt_pack(tp_ival32 a, float l, float h)
{
    (void)a; /* it appears in the contract only */
    tp_ival32 r;
    r.lo = l;
    r.hi = h;
    return r;
}

tp_ival32 tp_ival32_sqrt(tp_ival32 a)
{
    /*@ assert in_range: a.hi <= flt_max; */
    return sqrt_pack(a, sqrtf(a.lo), sqrtf(a.hi));
}
