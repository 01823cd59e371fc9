/* The value of a binary16 bit pattern, and the element rule that compares
 * an output's value with its admitted interval: the two steps between a
 * kernel's output bits and an element's verdict, proven in WP's IEEE
 * float model (tp_f16_decode.c).
 *
 * tp_f16_decode gives, for every finite pattern, exactly grid.acsl's
 * f16_value(h), the value defined from the bits that every proven oracle
 * states its binary16 inputs with. The C is integer arithmetic (the
 * significand shifted by the exponent, an integer below 2^40) and two
 * floating-point operations, each exact: the integer's conversion to
 * double (below 2^53: Why3's ieee_float axiom Exact_rounding_for_integers)
 * and the product by 2^-24 (Gappa: the result is a binary16 value). The
 * shift is the product by f16_pow2 through a ghost loop (induction, which
 * the provers do not do on their own). Non-finite patterns are the
 * caller's (oracles/common/f16_decode.h). */
#ifndef TP_F16_DECODE_H
#define TP_F16_DECODE_H
#include "../../../core/tp_hd.h"
#include "f16_order.acsl"

#include <stdint.h>

/* 2^-24 v for an integer-valued v whose product is a binary16 value: on
 * its own, so that Gappa sees one rounding and the two hypotheses it
 * needs (the constant first: Gappa matches the product as written). */
/*@ requires fin: \is_finite(v) && -0x1p40 <= v <= 0x1p40;
  @ requires fmt: f16_fmt(0x1p-24 * v);
  @ assigns \nothing;
  @ ensures lower: \result >= 0x1p-24 * v;
  @ ensures upper: \result <= 0x1p-24 * v;
  @ ensures fin: \is_finite(\result);
  @*/
static inline TP_HD double tp_f16_scale24(double v)
{
    return 0x1p-24 * v;
}

/*@ requires pat: f16_finite(h);
  @ assigns \nothing;
  @ ensures value: \is_finite(\result) && \result == f16_value(h);
  @*/
static inline TP_HD double tp_f16_decode(uint32_t h)
{
    /* frac and ef: the pattern's fields, by division (the same code as
     * masks and shifts, and linear for WP); a: the pattern without its
     * sign, for the proof */
    const uint32_t frac = h % 1024u, ef = h / 1024u % 32u;
    /*@ ghost const uint32_t a = h % 32768u; */
    const int64_t sig = ef ? (int64_t)(frac + 1024u) : (int64_t)frac;
    const int scale = ef ? (int)ef - 1 : 0;
    /*@ assert fields: sig == f16_sig(a) && scale == f16_scale(a) && 0 <= sig < 2048 && 0 <= scale <= 29; */
    /*@ assert pos: f16_finite(a) && a < 32768 && f16_signed_sig(a) == sig; */
    /*@ ghost
      @ int k = 0;
      @ /@ loop invariant range: 0 <= k <= scale;
      @    loop invariant shl: (sig << k) == f16_imul(sig, f16_pow2(k));
      @    loop assigns k;
      @    loop variant scale - k;
      @  @/
      @ while (k < scale) {
      @   /@ assert add: (sig << (k + 1)) == ((sig << k) << 1); @/
      @   /@ assert one: ((sig << k) << 1) == 2 * (sig << k); @/
      @   /@ assert pow: f16_pow2(k + 1) == 2 * f16_pow2(k); @/
      @   k++;
      @ }
      @ /@ assert k_end: k == scale; @/
      @*/
    /*@ assert shl_end: (sig << scale) == f16_imul(sig, f16_pow2(scale)); */
    /*@ assert a_imul: f16_value(a) == f16_imul(sig, f16_pow2(scale)) * 0x1p-24; */
    /*@ assert a_f16: is_f16(f16_value(a)); */
    /*@ assert a_fmt: f16_fmt(f16_value(a)); */
    /*@ assert a_range: -65504 <= f16_value(a) <= 65504; */
    const int64_t m = sig << scale;
    /*@ assert m_val: m * 0x1p-24 == f16_value(a) && -0x1p40 <= m <= 0x1p40; */
    const double v = (double)m;
    /*@ assert v_exact: v == m; */
    /*@ assert v_fmt: f16_fmt(0x1p-24 * v) && -0x1p40 <= v <= 0x1p40; */
    const double r = tp_f16_scale24(v);
    /*@ assert neg_pat: h >= 0x8000 ==> h == a + 0x8000 && a <= 0x7bff; */
    /*@ assert neg_inst: h >= 0x8000 ==> f16_value(a + 0x8000) == -f16_value(a); */
    /*@ assert neg: h >= 0x8000 ==> f16_value(h) == -f16_value(a); */
    return h >= 0x8000u ? -r : r;
}

/* The element rule: y is admitted by [lo, hi]. A NaN is never admitted
 * (every comparison with it is false); a finite y is exactly when it lies
 * in the interval; an infinite y never is by finite ends. */
/*@ assigns \nothing;
  @ ensures nan: \is_NaN(y) ==> \result == 0;
  @ ensures finite: \is_finite(y) && \is_finite(lo) && \is_finite(hi) ==> (\result != 0 <==> lo <= y <= hi);
  @ ensures overflow: \is_infinite(y) && \is_finite(lo) && \is_finite(hi) ==> \result == 0;
  @*/
static inline TP_HD int tp_admitted(double y, double lo, double hi)
{
    return lo <= y && y <= hi;
}

#endif
