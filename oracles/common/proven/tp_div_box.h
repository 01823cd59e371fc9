/* The real facts about quotients over a box that tp_ival32_div needs, as
 * the contract of a function with no effect (a lemma function, proven in
 * its own file, tp_div_box.c): stated as assertions inside tp_ival_div.c,
 * amid the float theory and the rounding lemmas, Z3 and CVC4 time out on
 * them; from div_box.acsl alone they prove at once. */
#ifndef TP_DIV_BOX_H
#define TP_DIV_BOX_H

#include "div_box.acsl"

/*@ requires box: al <= ah && 0.0 < bl <= bh;
  @ assigns \nothing;
  @ ensures ordered: rmin(al / bl, al / bh) <= rmax(ah / bl, ah / bh);
  @ ensures below: \forall real x, y; div_box(x, y, al, ah, bl, bh) ==> rmin(al / bl, al / bh) <= x / y;
  @ ensures above: \forall real x, y; div_box(x, y, al, ah, bl, bh) ==> x / y <= rmax(ah / bl, ah / bh);
  @ ensures in_range: -flt_max <= rmin(al / bl, al / bh) ==> rmax(ah / bl, ah / bh) <= flt_max ==>
  @   \forall real x, y; div_box(x, y, al, ah, bl, bh) ==> -flt_max <= x / y <= flt_max;
  @*/
void tp_div_box_facts(float al, float ah, float bl, float bh);

#endif
