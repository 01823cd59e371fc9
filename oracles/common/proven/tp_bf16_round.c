/* wp: model=typed tiers=T1,T3 provers=cvc4nofp/z3nofp */
/* The bfloat16 ends of an admitted interval (tp_bf16_round.h says what
 * each function proves), by the argument of tp_f16_round.c for the other
 * 16-bit format. The order facts are proven here by two ghost loops
 * (induction over the positive patterns); each function calls them as a
 * ghost call, which brings their ensures into its context. */
#include "tp_bf16_round.h"

/*@ axiomatic BF16_Neighbours {
  @   lemma BF16_Pred: \forall integer h; bf16_finite(h) ==> h != 0xff7f ==>
  @     bf16_finite(bf16_pred(h)) && bf16_ord(bf16_pred(h)) == bf16_ord(h) - 1 && bf16_pred(h) % 2 != h % 2;
  @   lemma BF16_Succ: \forall integer h; bf16_finite(h) ==> h != 0x7f7f ==>
  @     bf16_finite(bf16_succ(h)) && bf16_ord(bf16_succ(h)) == bf16_ord(h) + 1 && bf16_succ(h) % 2 != h % 2;
  @   lemma BF16_Ord_Same: \forall integer p, q; bf16_finite(p) ==> bf16_finite(q) ==> bf16_ord(p) == bf16_ord(q) ==>
  @     p % 2 == q % 2;
  @   // Round to nearest (binary64) is monotone: a strict order of two
  @   // roundings is a strict order of what they round.
  @   lemma BF16_Rnd64_Mono: \forall real x, y; -0x1p1000 <= x <= 0x1p1000 ==> -0x1p1000 <= y <= 0x1p1000 ==> x <= y ==>
  @     (real)\round_double(\NearestEven, x) <= (real)\round_double(\NearestEven, y);
  @   lemma BF16_Rnd64_Strict: \forall real x, y; -0x1p1000 <= x <= 0x1p1000 ==> -0x1p1000 <= y <= 0x1p1000 ==>
  @     (real)\round_double(\NearestEven, x) < (real)\round_double(\NearestEven, y) ==> x < y;
  @   lemma BF16_Ord_Range: \forall integer h; bf16_finite(h) ==> -0x7f7f <= bf16_ord(h) <= 0x7f7f &&
  @     (bf16_ord(h) == -0x7f7f <==> h == 0xff7f) && (bf16_ord(h) == 0x7f7f <==> h == 0x7f7f);
  @ }
  @*/

/*@ ghost
  @ /@ assigns \nothing;
  @    ensures nonneg: \forall integer h; bf16_finite(h) ==> bf16_ord(h) >= 0 ==>
  @      bf16_val(h) == bf16_mag(bf16_ord(h)) * 0x1p-133;
  @    ensures nonpos: \forall integer h; bf16_finite(h) ==> bf16_ord(h) <= 0 ==>
  @      bf16_val(h) == -(bf16_mag(-bf16_ord(h)) * 0x1p-133);
  @    ensures mono: \forall integer g, h; 0 <= g < h <= 0x7f7f ==> bf16_mag(g) < bf16_mag(h);
  @    ensures zero: bf16_mag(0) == 0;
  @  @/
  @ void bf16_order_facts(void)
  @ {
  @   /@ loop invariant range: 0 <= k <= 0x7f80;
  @      loop invariant value: \forall integer g; 0 <= g < k ==> bf16_val(g) == bf16_mag(g) * 0x1p-133;
  @      loop assigns k;
  @      loop variant 0x7f80 - k;
  @    @/
  @   for (int k = 0; k < 0x7f80; k++) {
  @     if (k >= 256) {
  @       /@ assert up: bf16_val(k) == 2 * bf16_val(k - 128); @/
  @     }
  @   }
  @   /@ loop invariant range: 255 <= k <= 0x7f7f;
  @      loop invariant mono: \forall integer g, h; 0 <= g < h <= k ==> bf16_mag(g) < bf16_mag(h);
  @      loop assigns k;
  @      loop variant 0x7f7f - k;
  @    @/
  @   for (int k = 255; k < 0x7f7f; k++) {
  @     /@ assert step: bf16_mag(k - 128) < bf16_mag(k + 1 - 128); @/
  @   }
  @ }
  @
  @ /@ assigns \nothing;
  @    ensures le: \forall integer p, q; bf16_finite(p) ==> bf16_finite(q) ==> bf16_ord(p) <= bf16_ord(q) ==>
  @      bf16_val(p) <= bf16_val(q);
  @    ensures lt: \forall integer p, q; bf16_finite(p) ==> bf16_finite(q) ==> bf16_ord(p) < bf16_ord(q) ==>
  @      bf16_val(p) < bf16_val(q);
  @  @/
  @ void bf16_ord_facts(void)
  @ {
  @   bf16_order_facts();
  @   /@ assert mag_pos: \forall integer h; 0 < h <= 0x7f7f ==> 0 < bf16_mag(h); @/
  @   /@ assert mag_le: \forall integer g, h; 0 <= g <= h <= 0x7f7f ==> bf16_mag(g) <= bf16_mag(h); @/
  @ }
  @*/

TP_HD tp_bf16_end tp_bf16_lower_end(double blo, int c, double vc, double vp, double vm)
{
    tp_bf16_end r;
    r.v = vc;
    r.inf = -1;
    r.confirmed = 1;
    if (!(blo > -0x1.ffp127))
        return r;
    if (blo >= 0x1.ffp127) {
        r.inf = 1;
        return r;
    }
    /*@ ghost bf16_ord_facts(); */
    if (c == 0xff7f) {
        /*@ assert least: \forall integer p; bf16_finite(p) ==> vc <= bf16_val(p); */
        r.inf = 0;
        return r;
    }
    /* both values within the finite range: checked, so that the double
     * sums below stay far from overflow by proof, not by assumption */
    if (!(-0x1.fep127 <= vp && vp <= 0x1.fep127 && -0x1.fep127 <= vc && vc <= 0x1.fep127)) {
        r.confirmed = 0;
        return r;
    }
    const double t = vp + vc, u = blo + blo;
    if (!(u > t) && !(blo == vm && c % 2 == 0)) {
        r.confirmed = 0;
        return r;
    }
    /*@ assert at_or_above: blo + blo > vp + vc || (blo == (vp + vc) / 2 && c % 2 == 0); */
    /*@ assert pred_c: bf16_finite(bf16_pred(c)) && bf16_ord(bf16_pred(c)) == bf16_ord(c) - 1 &&
      @   bf16_pred(c) % 2 != c % 2; */
    /*@ assert b1: \forall integer p; bf16_finite(p) ==> bf16_val(p) < vc ==> bf16_ord(p) < bf16_ord(c); */
    /*@ assert b3: \forall integer p; bf16_finite(p) ==> bf16_ord(p) <= bf16_ord(bf16_pred(c)) ==> bf16_val(p) <= vp; */
    /*@ assert below: \forall integer p; bf16_finite(p) ==> bf16_val(p) < vc ==> bf16_val(p) <= vp; */
    /*@ assert vp_lt: vp < vc; */
    /*@ assert same_vp: \forall integer p; bf16_finite(p) ==> bf16_val(p) == vp ==> p % 2 == bf16_pred(c) % 2; */
    /*@ assert past_mid: \forall real s; s + s > vp + vc ==> \forall integer p; bf16_rne(s, p) ==> vc <= bf16_val(p); */
    /*@ assert at_mid_near: \forall real s; s == (vp + vc) / 2 ==> \forall integer p; bf16_rne(s, p) ==>
      @   bf16_val(p) < vc ==> bf16_val(p) == vp && bf16_nearest(s, c); */
    /*@ assert at_mid: \forall real s; s == (vp + vc) / 2 ==> c % 2 == 0 ==> \forall integer p; bf16_rne(s, p) ==>
      @   vc <= bf16_val(p); */
    /*@ assert s_cases: \forall real s; s >= blo ==> s + s > vp + vc || (s == (vp + vc) / 2 && c % 2 == 0); */
    /*@ assert either: \forall real s; s + s > vp + vc || (s == (vp + vc) / 2 && c % 2 == 0) ==>
      @   \forall integer p; bf16_rne(s, p) ==> vc <= bf16_val(p); */
    /*@ assert sound_s: \forall real s; s >= blo ==> \forall integer p; bf16_rne(s, p) ==> vc <= bf16_val(p); */
    r.inf = 0;
    return r;
}

TP_HD tp_bf16_end tp_bf16_upper_end(double bhi, int c, double vc, double vs, double vm)
{
    tp_bf16_end r;
    r.v = vc;
    r.inf = 1;
    r.confirmed = 1;
    if (!(bhi < 0x1.ffp127))
        return r;
    if (bhi <= -0x1.ffp127) {
        r.inf = -1;
        return r;
    }
    /*@ ghost bf16_ord_facts(); */
    if (c == 0x7f7f) {
        /*@ assert most: \forall integer p; bf16_finite(p) ==> bf16_val(p) <= vc; */
        r.inf = 0;
        return r;
    }
    if (!(-0x1.fep127 <= vc && vc <= 0x1.fep127 && -0x1.fep127 <= vs && vs <= 0x1.fep127)) {
        r.confirmed = 0;
        return r;
    }
    const double t = vc + vs, u = bhi + bhi;
    if (!(u < t) && !(bhi == vm && c % 2 == 0)) {
        r.confirmed = 0;
        return r;
    }
    /*@ assert at_or_under: bhi + bhi < vc + vs || (bhi == (vc + vs) / 2 && c % 2 == 0); */
    /*@ assert succ_c: bf16_finite(bf16_succ(c)) && bf16_ord(bf16_succ(c)) == bf16_ord(c) + 1 &&
      @   bf16_succ(c) % 2 != c % 2; */
    /*@ assert a1: \forall integer p; bf16_finite(p) ==> vc < bf16_val(p) ==> bf16_ord(c) < bf16_ord(p); */
    /*@ assert a3: \forall integer p; bf16_finite(p) ==> bf16_ord(bf16_succ(c)) <= bf16_ord(p) ==> vs <= bf16_val(p); */
    /*@ assert above: \forall integer p; bf16_finite(p) ==> vc < bf16_val(p) ==> vs <= bf16_val(p); */
    /*@ assert vs_gt: vc < vs; */
    /*@ assert same_vs: \forall integer p; bf16_finite(p) ==> bf16_val(p) == vs ==> p % 2 == bf16_succ(c) % 2; */
    /*@ assert before_mid: \forall real s; s + s < vc + vs ==> \forall integer p; bf16_rne(s, p) ==> bf16_val(p) <= vc; */
    /*@ assert at_mid_near: \forall real s; s == (vc + vs) / 2 ==> \forall integer p; bf16_rne(s, p) ==>
      @   vc < bf16_val(p) ==> bf16_val(p) == vs && bf16_nearest(s, c); */
    /*@ assert at_mid: \forall real s; s == (vc + vs) / 2 ==> c % 2 == 0 ==> \forall integer p; bf16_rne(s, p) ==>
      @   bf16_val(p) <= vc; */
    /*@ assert s_cases: \forall real s; s <= bhi ==> s + s < vc + vs || (s == (vc + vs) / 2 && c % 2 == 0); */
    /*@ assert either: \forall real s; s + s < vc + vs || (s == (vc + vs) / 2 && c % 2 == 0) ==>
      @   \forall integer p; bf16_rne(s, p) ==> bf16_val(p) <= vc; */
    /*@ assert sound_s: \forall real s; s <= bhi ==> \forall integer p; bf16_rne(s, p) ==> bf16_val(p) <= vc; */
    r.inf = 0;
    return r;
}
