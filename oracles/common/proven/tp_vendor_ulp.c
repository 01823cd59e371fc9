/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp timeout=10 */
/* The vendor-ulp ends: see tp_vendor_ulp.h for what each function proves
 * and tp_vendor_ulp.acsl for the argument. The facts about 2^e that need
 * induction come from the ghost loop below; each function brings them
 * into its context by a ghost call. */
#include "tp_vendor_ulp.h"

/*@ ghost
  @ /@ assigns \nothing;
  @    ensures grows: f32_pow2_grows;
  @  @/
  @ void f32_pow2_facts(void)
  @ {
  @   /@ loop invariant range: 0 <= b <= 253;
  @      loop invariant zero: f32_pow2(0) == 1;
  @      loop invariant pos: \forall integer e; 0 <= e <= b ==> e + 1 <= f32_pow2(e);
  @      loop invariant dbl: \forall integer a, c; 0 <= a ==> c == a + 1 ==> c <= b ==> f32_pow2(c) == 2 * f32_pow2(a);
  @      loop invariant grows: \forall integer a, c; 0 <= a < c <= b ==> 2 * f32_pow2(a) <= f32_pow2(c);
  @      loop assigns b;
  @      loop variant 253 - b;
  @    @/
  @   for (int b = 0; b < 253; b++) {
  @     /@ assert shift: (1 << (b + 1)) == ((1 << b) << 1); @/
  @     /@ assert next: f32_pow2(b + 1) == 2 * f32_pow2(b); @/
  @   }
  @ }
  @*/

int32_t tp_vendor_lower_ord(int32_t lo, int32_t hi, int32_t k)
{
    /*@ ghost f32_pow2_facts(); */
    if (lo - k < -TP_F32_ORD_MAX)
        return -TP_F32_ORD_INF; /* k values below lo leave the finite range */
    int32_t res;
    if (lo <= 0) {
        /* k ulps below a c <= 0 reach no further than k values down; those
         * below a c > 0 no further than k values below 0 */
        res = lo - k;
        /*@ assert least: lower_bounds(res, lo, hi, k); */
        /*@ assert attained: f32_vu(lo) <= f32_vu(hi) ==> vendor_near(res, lo, k) && vendor_admits(lo, hi, k, res); */
    } else {
        /* lo - k ulp(lo): k values down in lo's binade, two per ulp below
         * its power of two (f32_frac(lo) < k there) */
        const int32_t field = lo / 0x800000, frac = lo % 0x800000;
        const int32_t m = field < 2 || frac >= k ? lo - k : lo - frac - 2 * (k - frac);
        /*@ assert m: m == vendor_m(lo, k) && vendor_near(m, lo, k); */
        /* from the least power of two above lo on, k ulps reach no further
         * than below that power of two: 2k values (half spacing there) */
        const int32_t pb = (field < 2 ? 1 : field) + 1;
        /*@ assert pb: pb == vendor_pb(lo); */
        /*@ assert same: \forall integer c; lo <= c <= 0x7f7fffff ==> f32_field(c) < pb ==> m <= vendor_m(c, k); */
        res = m;
        if (pb <= 254 && pb * 0x800000 <= hi) {
            const int32_t mp = pb * 0x800000 - 2 * k;
            /*@ assert above: \forall integer c; c <= hi ==> pb <= f32_field(c) ==> mp <= vendor_m(c, k); */
            /*@ assert mp: mp == vendor_m(pb * 0x800000, k); */
            /*@ assert mp_value: f32_vu(mp) == f32_magu(pb * 0x800000) - f32_imul(k, f32_ulpu(pb * 0x800000)); */
            /*@ assert mp_near: vendor_near(mp, pb * 0x800000, k); */
            /*@ assert mp_in: lo < pb * 0x800000 <= hi; */
            if (mp < m) {
                res = mp;
                /*@ assert witness: f32_finite(pb * 0x800000) && f32_vu(lo) <= f32_vu(pb * 0x800000) <= f32_vu(hi); */
                /*@ assert least: lower_bounds(res, lo, hi, k); */
                /*@ assert attained: vendor_admits(lo, hi, k, res); */
            } else {
                /*@ assert least: lower_bounds(res, lo, hi, k); */
            }
        } else {
            /*@ assert none_above: \forall integer c; c <= hi ==> f32_field(c) < pb; */
            /*@ assert least: lower_bounds(res, lo, hi, k); */
        }
        /*@ assert attained: f32_vu(lo) <= f32_vu(hi) ==> vendor_admits(lo, hi, k, res); */
    }
    /*@ assert sound: \forall integer r; vendor_admits(lo, hi, k, r) ==> res <= r; */
    return res;
}

int32_t tp_vendor_upper_ord(int32_t lo, int32_t hi, int32_t k)
{
    /* the mirror image of the lower end: negated ordinals are negated values */
    const int32_t l = tp_vendor_lower_ord(-hi, -lo, k);
    /*@ assert lower_sound: \forall integer r; vendor_admits(-hi, -lo, k, r) ==> l <= r; */
    /*@ assert sound: \forall integer r; vendor_admits(lo, hi, k, r) ==> r <= -l; */
    /*@ assert ordered: f32_vu(lo) <= f32_vu(hi) ==> f32_vu(-hi) <= f32_vu(-lo); */
    /*@ assert lower_attained: f32_finite(-l) ==> f32_vu(lo) <= f32_vu(hi) ==> vendor_admits(-hi, -lo, k, l); */
    /*@ assert attained: f32_finite(-l) ==> f32_vu(lo) <= f32_vu(hi) ==> vendor_admits(lo, hi, k, -l); */
    return -l;
}
