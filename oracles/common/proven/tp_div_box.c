/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp */
/* The lemma function of tp_div_box.h: its contract is the proof. The
 * assertion names a point of the box, the instance the provers need for
 * Div_Corners_Ordered. */
#include "tp_div_box.h"

void tp_div_box_facts(float al, float ah, float bl, float bh)
{
    /*@ assert witness: div_box(al, bl, al, ah, bl, bh); */
    (void)al, (void)ah, (void)bl, (void)bh;
}
