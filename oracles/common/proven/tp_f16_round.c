/* wp: model=typed tiers=T1,T3 provers=cvc4nofp/z3nofp,gappatp */
/* The binary16 ends of an admitted interval (tp_f16_round.h says what each
 * function proves). The order facts are proven here by two ghost loops
 * (induction over the positive patterns); each function calls them as a
 * ghost call, which brings their ensures into its context. No Gappa here
 * but for grid.acsl's four format lemmas (proofs/wp.sh: provers). */
#include "tp_f16_round.h"

/*@ axiomatic F16_Neighbours {
  @   lemma F16_Pred: \forall integer h; f16_finite(h) ==> h != 0xfbff ==>
  @     f16_finite(f16_pred(h)) && f16_ord(f16_pred(h)) == f16_ord(h) - 1 && f16_pred(h) % 2 != h % 2;
  @   lemma F16_Succ: \forall integer h; f16_finite(h) ==> h != 0x7bff ==>
  @     f16_finite(f16_succ(h)) && f16_ord(f16_succ(h)) == f16_ord(h) + 1 && f16_succ(h) % 2 != h % 2;
  @   lemma F16_Ord_Same: \forall integer p, q; f16_finite(p) ==> f16_finite(q) ==> f16_ord(p) == f16_ord(q) ==>
  @     p % 2 == q % 2;
  @   // Round to nearest (binary64) is monotone: a strict order of two
  @   // roundings is a strict order of what they round. So a comparison of
  @   // two computed sums decides the order of the exact sums, with no
  @   // exactness to prove.
  @   lemma Rnd64_Mono: \forall real x, y; -0x1p1000 <= x <= 0x1p1000 ==> -0x1p1000 <= y <= 0x1p1000 ==> x <= y ==>
  @     (real)\round_double(\NearestEven, x) <= (real)\round_double(\NearestEven, y);
  @   lemma Rnd64_Strict: \forall real x, y; -0x1p1000 <= x <= 0x1p1000 ==> -0x1p1000 <= y <= 0x1p1000 ==>
  @     (real)\round_double(\NearestEven, x) < (real)\round_double(\NearestEven, y) ==> x < y;
  @   lemma F16_Ord_Range: \forall integer h; f16_finite(h) ==> -0x7bff <= f16_ord(h) <= 0x7bff &&
  @     (f16_ord(h) == -0x7bff <==> h == 0xfbff) && (f16_ord(h) == 0x7bff <==> h == 0x7bff);
  @ }
  @*/

/*@ ghost
  @ /@ assigns \nothing;
  @    ensures nonneg: \forall integer h; f16_finite(h) ==> f16_ord(h) >= 0 ==> f16_val(h) == f16_mag(f16_ord(h)) * 0x1p-24;
  @    ensures nonpos: \forall integer h; f16_finite(h) ==> f16_ord(h) <= 0 ==> f16_val(h) == -(f16_mag(-f16_ord(h)) * 0x1p-24);
  @    ensures mono: \forall integer g, h; 0 <= g < h <= 0x7bff ==> f16_mag(g) < f16_mag(h);
  @    ensures zero: f16_mag(0) == 0;
  @  @/
  @ void f16_order_facts(void)
  @ {
  @   /@ loop invariant range: 0 <= k <= 0x7c00;
  @      loop invariant value: \forall integer g; 0 <= g < k ==> f16_val(g) == f16_mag(g) * 0x1p-24;
  @      loop assigns k;
  @      loop variant 0x7c00 - k;
  @    @/
  @   for (int k = 0; k < 0x7c00; k++) {
  @     if (k >= 2048) {
  @       /@ assert up: f16_val(k) == 2 * f16_val(k - 1024); @/
  @     }
  @   }
  @   /@ loop invariant range: 2047 <= k <= 0x7bff;
  @      loop invariant mono: \forall integer g, h; 0 <= g < h <= k ==> f16_mag(g) < f16_mag(h);
  @      loop assigns k;
  @      loop variant 0x7bff - k;
  @    @/
  @   for (int k = 2047; k < 0x7bff; k++) {
  @     /@ assert step: f16_mag(k - 1024) < f16_mag(k + 1 - 1024); @/
  @   }
  @ }
  @
  @ /@ assigns \nothing;
  @    ensures le: \forall integer p, q; f16_finite(p) ==> f16_finite(q) ==> f16_ord(p) <= f16_ord(q) ==>
  @      f16_val(p) <= f16_val(q);
  @    ensures lt: \forall integer p, q; f16_finite(p) ==> f16_finite(q) ==> f16_ord(p) < f16_ord(q) ==>
  @      f16_val(p) < f16_val(q);
  @  @/
  @ void f16_ord_facts(void)
  @ {
  @   f16_order_facts();
  @   /@ assert mag_pos: \forall integer h; 0 < h <= 0x7bff ==> 0 < f16_mag(h); @/
  @   /@ assert mag_le: \forall integer g, h; 0 <= g <= h <= 0x7bff ==> f16_mag(g) <= f16_mag(h); @/
  @ }
  @*/


TP_HD tp_f16_end tp_f16_lower_end(double blo, int c, double vc, double vp, double vm)
{
    tp_f16_end r;
    r.v = vc;
    r.inf = -1;
    r.confirmed = 1;
    if (!(blo > -65520.0))
        return r;
    if (blo >= 65520.0) {
        r.inf = 1;
        return r;
    }
    /*@ ghost f16_ord_facts(); */
    if (c == 0xfbff) {
        /*@ assert least: \forall integer p; f16_finite(p) ==> vc <= f16_val(p); */
        r.inf = 0;
        return r;
    }
    /*@ assert is_c: vc == f16_value(c) && is_f16(vc); */
    /*@ assert is_n: vp == f16_value(f16_pred(c)) && is_f16(vp); */
    /*@ assert fmt: f16_fmt(vc) && f16_fmt(vp); */
    /*@ assert ranges: -65504.0 <= vc <= 65504.0 && -65504.0 <= vp <= 65504.0; */
    const double t = vp + vc, u = blo + blo;
    if (!(u > t) && !(blo == vm && c % 2 == 0)) {
        r.confirmed = 0;
        return r;
    }
    /*@ assert at_or_above: blo + blo > vp + vc || (blo == (vp + vc) / 2 && c % 2 == 0); */
    /*@ assert pred_c: f16_finite(f16_pred(c)) && f16_ord(f16_pred(c)) == f16_ord(c) - 1 && f16_pred(c) % 2 != c % 2; */
    /*@ assert b1: \forall integer p; f16_finite(p) ==> f16_val(p) < vc ==> f16_ord(p) < f16_ord(c); */
    /*@ assert b3: \forall integer p; f16_finite(p) ==> f16_ord(p) <= f16_ord(f16_pred(c)) ==> f16_val(p) <= vp; */
    /*@ assert below: \forall integer p; f16_finite(p) ==> f16_val(p) < vc ==> f16_val(p) <= vp; */
    /*@ assert vp_lt: vp < vc; */
    /*@ assert same_vp: \forall integer p; f16_finite(p) ==> f16_val(p) == vp ==> p % 2 == f16_pred(c) % 2; */
    /*@ assert past_mid: \forall real s; s + s > vp + vc ==> \forall integer p; f16_rne(s, p) ==> vc <= f16_val(p); */
    /*@ assert at_mid_near: \forall real s; s == (vp + vc) / 2 ==> \forall integer p; f16_rne(s, p) ==>
      @   f16_val(p) < vc ==> f16_val(p) == vp && f16_nearest(s, c); */
    /*@ assert at_mid: \forall real s; s == (vp + vc) / 2 ==> c % 2 == 0 ==> \forall integer p; f16_rne(s, p) ==>
      @   vc <= f16_val(p); */
    /*@ assert s_cases: \forall real s; s >= blo ==> s + s > vp + vc || (s == (vp + vc) / 2 && c % 2 == 0); */
    /*@ assert either: \forall real s; s + s > vp + vc || (s == (vp + vc) / 2 && c % 2 == 0) ==>
      @   \forall integer p; f16_rne(s, p) ==> vc <= f16_val(p); */
    /*@ assert sound_s: \forall real s; s >= blo ==> \forall integer p; f16_rne(s, p) ==> vc <= f16_val(p); */
    r.inf = 0;
    return r;
}

TP_HD tp_f16_end tp_f16_upper_end(double bhi, int c, double vc, double vs, double vm)
{
    tp_f16_end r;
    r.v = vc;
    r.inf = 1;
    r.confirmed = 1;
    if (!(bhi < 65520.0))
        return r;
    if (bhi <= -65520.0) {
        r.inf = -1;
        return r;
    }
    /*@ ghost f16_ord_facts(); */
    if (c == 0x7bff) {
        /*@ assert most: \forall integer p; f16_finite(p) ==> f16_val(p) <= vc; */
        r.inf = 0;
        return r;
    }
    /*@ assert is_c: vc == f16_value(c) && is_f16(vc); */
    /*@ assert is_n: vs == f16_value(f16_succ(c)) && is_f16(vs); */
    /*@ assert fmt: f16_fmt(vc) && f16_fmt(vs); */
    /*@ assert ranges: -65504.0 <= vc <= 65504.0 && -65504.0 <= vs <= 65504.0; */
    const double t = vc + vs, u = bhi + bhi;
    if (!(u < t) && !(bhi == vm && c % 2 == 0)) {
        r.confirmed = 0;
        return r;
    }
    /*@ assert at_or_under: bhi + bhi < vc + vs || (bhi == (vc + vs) / 2 && c % 2 == 0); */
    /*@ assert succ_c: f16_finite(f16_succ(c)) && f16_ord(f16_succ(c)) == f16_ord(c) + 1 && f16_succ(c) % 2 != c % 2; */
    /*@ assert a1: \forall integer p; f16_finite(p) ==> vc < f16_val(p) ==> f16_ord(c) < f16_ord(p); */
    /*@ assert a3: \forall integer p; f16_finite(p) ==> f16_ord(f16_succ(c)) <= f16_ord(p) ==> vs <= f16_val(p); */
    /*@ assert above: \forall integer p; f16_finite(p) ==> vc < f16_val(p) ==> vs <= f16_val(p); */
    /*@ assert vs_gt: vc < vs; */
    /*@ assert same_vs: \forall integer p; f16_finite(p) ==> f16_val(p) == vs ==> p % 2 == f16_succ(c) % 2; */
    /*@ assert before_mid: \forall real s; s + s < vc + vs ==> \forall integer p; f16_rne(s, p) ==> f16_val(p) <= vc; */
    /*@ assert at_mid_near: \forall real s; s == (vc + vs) / 2 ==> \forall integer p; f16_rne(s, p) ==>
      @   vc < f16_val(p) ==> f16_val(p) == vs && f16_nearest(s, c); */
    /*@ assert at_mid: \forall real s; s == (vc + vs) / 2 ==> c % 2 == 0 ==> \forall integer p; f16_rne(s, p) ==>
      @   f16_val(p) <= vc; */
    /*@ assert s_cases: \forall real s; s <= bhi ==> s + s < vc + vs || (s == (vc + vs) / 2 && c % 2 == 0); */
    /*@ assert either: \forall real s; s + s < vc + vs || (s == (vc + vs) / 2 && c % 2 == 0) ==>
      @   \forall integer p; f16_rne(s, p) ==> f16_val(p) <= vc; */
    /*@ assert sound_s: \forall real s; s <= bhi ==> \forall integer p; f16_rne(s, p) ==> f16_val(p) <= vc; */
    r.inf = 0;
    return r;
}

TP_HD tp_f16_end tp_f16_ceil_end(double x, int c, double vc, double vp)
{
    tp_f16_end r;
    r.v = vc;
    r.inf = 0;
    r.confirmed = 0;
    /*@ ghost f16_ord_facts(); */
    if (vc < x) {
        if (c == 0x7bff) {
            /*@ assert all_below: \forall integer p; f16_finite(p) ==> f16_val(p) <= vc; */
            r.inf = 1;
            r.confirmed = 1;
        }
        return r;
    }
    if (c != 0xfbff) {
        if (!(vp < x))
            return r;
        /*@ assert pred_c: f16_finite(f16_pred(c)) && f16_ord(f16_pred(c)) == f16_ord(c) - 1; */
        /*@ assert b1: \forall integer p; f16_finite(p) ==> f16_val(p) < vc ==> f16_ord(p) < f16_ord(c); */
        /*@ assert b3: \forall integer p; f16_finite(p) ==> f16_ord(p) <= f16_ord(f16_pred(c)) ==> f16_val(p) <= vp; */
        /*@ assert below: \forall integer p; f16_finite(p) ==> f16_val(p) < vc ==> f16_val(p) < x; */
    } else {
        /*@ assert least_pattern: \forall integer p; f16_finite(p) ==> vc <= f16_val(p); */
    }
    r.confirmed = 1;
    return r;
}

TP_HD tp_f16_end tp_f16_floor_end(double x, int c, double vc, double vs)
{
    tp_f16_end r;
    r.v = vc;
    r.inf = 0;
    r.confirmed = 0;
    /*@ ghost f16_ord_facts(); */
    if (vc > x) {
        if (c == 0xfbff) {
            /*@ assert all_above: \forall integer p; f16_finite(p) ==> vc <= f16_val(p); */
            r.inf = -1;
            r.confirmed = 1;
        }
        return r;
    }
    if (c != 0x7bff) {
        if (!(vs > x))
            return r;
        /*@ assert succ_c: f16_finite(f16_succ(c)) && f16_ord(f16_succ(c)) == f16_ord(c) + 1; */
        /*@ assert a1: \forall integer p; f16_finite(p) ==> vc < f16_val(p) ==> f16_ord(c) < f16_ord(p); */
        /*@ assert a3: \forall integer p; f16_finite(p) ==> f16_ord(f16_succ(c)) <= f16_ord(p) ==> vs <= f16_val(p); */
        /*@ assert above: \forall integer p; f16_finite(p) ==> vc < f16_val(p) ==> x < f16_val(p); */
    } else {
        /*@ assert greatest_pattern: \forall integer p; f16_finite(p) ==> f16_val(p) <= vc; */
    }
    r.confirmed = 1;
    return r;
}
