/* wp: model=typed tiers=T1,T3 */
/* WORK IN PROGRESS (proofs/wip/f16_round/NOTES.md): not built, not proved by ninja prove. */
#include "f16_order.acsl"

/*@ axiomatic F16_Neighbours {
  @   lemma F16_Pred: \forall integer h; f16_finite(h) ==> h != 0xfbff ==>
  @     f16_finite(f16_pred(h)) && f16_ord(f16_pred(h)) == f16_ord(h) - 1 && f16_pred(h) % 2 != h % 2;
  @   lemma F16_Succ: \forall integer h; f16_finite(h) ==> h != 0x7bff ==>
  @     f16_finite(f16_succ(h)) && f16_ord(f16_succ(h)) == f16_ord(h) + 1 && f16_succ(h) % 2 != h % 2;
  @   lemma F16_Ord_Same: \forall integer p, q; f16_finite(p) ==> f16_finite(q) ==> f16_ord(p) == f16_ord(q) ==>
  @     p % 2 == q % 2;
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

typedef struct {
    double v;
    int inf;
} tp_f16_end;

#include "tp_f16_mid.h"

/*@ requires fin: \is_finite(blo);
  @ requires cand: -65520.0 < blo < 65520.0 ==> f16_finite(c) && \is_finite(vc) && vc == f16_val(c);
  @ requires pred: -65520.0 < blo < 65520.0 ==> c != 0xfbff ==> \is_finite(vp) && vp == f16_val(f16_pred(c));
  @ assigns \nothing;
  @ ensures sound: \result.inf == 0 ==> \result.v == vc &&
  @   \forall real s; s >= blo ==> \forall integer p; f16_rne(s, p) ==> vc <= f16_val(p);
  @ ensures no_minus_inf: \result.inf != -1 ==> blo > -65520.0;
  @ ensures plus_inf: \result.inf == 1 ==> blo >= 65520.0;
  @ ensures flags: -1 <= \result.inf <= 1;
  @*/
tp_f16_end tp_f16_lower_end(double blo, int c, double vc, double vp)
{
    tp_f16_end r;
    r.v = vc;
    r.inf = -1;
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
    /*@ assert fmt_c: vc == f16_value(c) && is_f16(vc) && f16_fmt(vc); */
    /*@ assert fmt_p: vp == f16_value(f16_pred(c)) && is_f16(vp) && f16_fmt(vp); */
    const double mid = tp_f16_mid(vp, vc);
    if (!(blo > mid || (blo == mid && c % 2 == 0)))
        return r; /* the candidate is not the lower end: an infinite one is sound */
    /*@ assert pred_c: f16_finite(f16_pred(c)) && f16_ord(f16_pred(c)) == f16_ord(c) - 1; */
    /*@ assert b1: \forall integer p; f16_finite(p) ==> f16_val(p) < vc ==> f16_ord(p) < f16_ord(c); */
    /*@ assert b2: \forall integer p; f16_finite(p) ==> f16_ord(p) < f16_ord(c) ==> f16_ord(p) <= f16_ord(f16_pred(c)); */
    /*@ assert b3: \forall integer p; f16_finite(p) ==> f16_ord(p) <= f16_ord(f16_pred(c)) ==> f16_val(p) <= vp; */
    /*@ assert below: \forall integer p; f16_finite(p) ==> f16_val(p) < vc ==> f16_val(p) <= vp; */
    /*@ assert parity: \forall integer p; f16_finite(p) ==> f16_val(p) == vp ==> p % 2 != c % 2; */
    /*@ assert near_c: \forall real s, integer p; f16_nearest(s, p) ==> \abs(s - vc) == \abs(s - f16_val(p)) ==>
      @   f16_nearest(s, c); */
    /*@ assert sound_s: \forall real s; s >= blo ==> \forall integer p; f16_rne(s, p) ==> vc <= f16_val(p); */
    r.inf = 0;
    return r;
}
