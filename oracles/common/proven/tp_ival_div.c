/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp timeout=10 */
/* timeout=10: the slowest goal, hi_rounded (CVC4 8 s alone), proves in the
 * first pass; with 5 s it needed a second, which repeats WP's work. */
/* The proven interval quotient: see tp_ival_div.h for its contract. Each
 * corner is one binary32 division (tp_f32_div, proven in its own file);
 * the lower end is the smaller of the two lower corners, which is RN32 of
 * the smaller exact corner (rnd32_minmax.acsl), at most every exact x / y
 * of the box (tp_div_box_facts, a lemma function proven in its own file):
 * RN32's monotonicity (tp_ival.acsl's Rnd32_Lower) gives `sound_lo`; the
 * upper end likewise. The assertions split the goals into one lemma
 * instance each. */
#include "tp_ival_div.h"
#include "tp_f32_div.h"
#include "tp_div_box.h"
#include "minmax_f32.h"

tp_ival32 tp_ival32_div(tp_ival32 a, tp_ival32 b)
{
    /*@ assert finite_ll: \is_finite(\round_float(\NearestEven, a.lo / b.lo)); */
    /*@ assert finite_lh: \is_finite(\round_float(\NearestEven, a.lo / b.hi)); */
    /*@ assert finite_hl: \is_finite(\round_float(\NearestEven, a.hi / b.lo)); */
    /*@ assert finite_hh: \is_finite(\round_float(\NearestEven, a.hi / b.hi)); */
    tp_div_box_facts(a.lo, a.hi, b.lo, b.hi);
    tp_ival32 r;
    r.lo = min_f(tp_f32_div(a.lo, b.lo), tp_f32_div(a.lo, b.hi));
    r.hi = max_f(tp_f32_div(a.hi, b.lo), tp_f32_div(a.hi, b.hi));
    /*@ assert lo_rounded: (real)r.lo == (real)\round_float(\NearestEven, rmin(a.lo / b.lo, a.lo / b.hi)); */
    /*@ assert hi_rounded: (real)r.hi == (real)\round_float(\NearestEven, rmax(a.hi / b.lo, a.hi / b.hi)); */
    /*@ assert lo_range: -flt_max <= rmin(a.lo / b.lo, a.lo / b.hi); */
    /*@ assert hi_range: rmax(a.hi / b.lo, a.hi / b.hi) <= flt_max; */
    /*@ assert ends_ordered: r.lo <= r.hi; */
    return r;
}
