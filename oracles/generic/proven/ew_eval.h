/* The node loop of the elementwise evaluator (oracles/generic/ew_admit.h),
 * proven T1 by WP (ew_eval.c): no runtime error, exact assigns, and every
 * call of a proven interval primitive (tp_ival32_add, _sub, _mul, _div,
 * _fma, _sqrt) made where that primitive's `requires` hold, each shown
 * from the loop's own run-time checks. What the proof does not cover is
 * reached through the functions declared last below, defined in
 * oracles/generic/ew_admit.c and given contracts that WP does not check
 * (proofs/TRUSTED.md, "Contracts given to project functions that WP does
 * not see"). */
#ifndef TP_EW_EVAL_H
#define TP_EW_EVAL_H

#include "../ew_prog.h"
/* Pure real facts first, before any float theory: their lemmas prove only
 * in a small context (mul_box.acsl says why), as in their own oracles. */
#include "../../common/proven/mul_box.acsl"
#include "../../common/proven/div_box.acsl"
#include "../../common/proven/tp_ival.h"
#include "../../common/proven/tp_ival_div.h"
#include "../../common/proven/tp_ival_fma.h"
#include "../../common/proven/tp_ival_mul.h"
#include "../../common/proven/tp_ival_sqrt.h"
#include "../../common/proven/std_model64.acsl"
#include "ew_eval.acsl"

#include <stdint.h>

/* The tables of single-input subtrees (oracles/generic/ew_tab.h), opaque
 * here: only ew_tab_value reads them. */
struct ew_tabs;

/* What the functions declared last below modify besides their outputs: ew_admit.c's
 * per-thread memo of correctly rounded values and MPFR's and MPFI's own
 * state (exponent range, set and restored; flags; constant caches). None
 * of it is memory ew_eval_values reads. */
/*@ ghost extern int ew_ext_state; */

/* Whether p is a program ew_eval_values may walk: 1 <= n <= EW_MAX_NODES,
 * and for every node a kind in range, every operand of its kind an
 * earlier node (others -1), an input index below EW_MAX_INPUTS. 1 or 0.
 * The ops call it once on each program they evaluate (after parsing, and
 * after op rowwise rewrites one) and refuse an ill-formed one. */
/*@ requires \valid_read(p);
  @ assigns \nothing;
  @ ensures \result == 0 || \result == 1;
  @ ensures wf: \result == 1 ==> ew_prog_wf(p);
  @*/
int ew_prog_ok(const ew_prog *p);

/* The node loop of ew_admit_values (ew_admit.h): nodes 0 .. upto, those
 * `only` marks (NULL: all), hulls into v[0 .. upto]; with tables (skip and
 * tab_of of an ew_tabs t, else both NULL) a subtree's inner nodes are
 * skipped and its root looked up. 0, or -1 with the failing node and
 * reason in *node and *why. in holds EW_MAX_INPUTS intervals (the
 * callers' boxes); v holds the hulls of earlier nodes. */
/*@ requires prog: \valid_read(p) && ew_prog_wf(p);
  @ requires model: \valid_read(m);
  @ requires upto: 0 <= upto < p->n;
  @ requires in: \valid_read(in + (0 .. EW_MAX_INPUTS - 1));
  @ requires only: only == \null || \valid_read(only + (0 .. upto));
  @ requires skip: skip == \null || \valid_read(skip + (0 .. upto));
  @ requires tab_of: tab_of == \null || \valid_read(tab_of + (0 .. upto));
  @ requires out: \valid(v + (0 .. upto)) && \valid(node) && \valid(why);
  @ requires apart: \separated(node, p) && \separated(node, m);
  @ assigns v[0 .. upto], *node, *why, ew_ext_state;
  @ ensures \result == 0 || \result == -1;
  @*/
int ew_eval_values(const ew_prog *p, const ew_model *m, const tp_ival32 *in, int upto, const unsigned char *only,
                   const unsigned char *skip, const signed char *tab_of, const struct ew_tabs *t, const uint16_t *bits,
                   tp_ival32 *v, int *node, const char **why);

/* Whether x / y, for finite binary32 x and y > 0, is within the binary32
 * range, checked in double as the loop's other range checks are
 * (ew_admit.c: fabs((double)x / y) <= 0x1.fffffcp127). Why it holds: the
 * double quotient of binary32 operands is finite and one rounding of
 * x / y (IEEE 754; Why3's ieee_float lemmas div_finite_rev_n and
 * Float64.round_bound_ne), within 2^-53 |x / y| + 2^-1075 of it, so
 * |x / y| <= 0x1.fffffcp127 (1 + 2^-52) < FLT_MAX. The products and sums
 * of the same checks are proven so in ew_eval.c (prod_fits, sum_fits);
 * the quotient is not: neither CVC4 nor Z3 links a C double quotient to
 * x / y here, nor x / y to an atom standing for it, amid the float theory
 * (timeouts at 60 s, even in a file of its own), so WP takes this
 * contract as given: proofs/TRUSTED.md. */
/*@ requires \is_finite(x) && \is_finite(y) && 0.0 < y;
  @ assigns \nothing;
  @ ensures \result != 0 ==> -flt_max <= x / y <= flt_max;
  @*/
int ew_quot_fits(float x, float y);

/* Device function k (EW_FIRST_FN + k) of a on binary32 with ulp vendor
 * ulps: MPFR's correctly rounded ends (MPFI's range for sinf and cosf)
 * widened by oracles/common/vendor_ulp.h (ew_admit.c's device_fn). 0 and
 * *r, or -1 and *why. */
/*@ requires k: 0 <= k < EW_NFNS;
  @ requires ulp: 0 <= ulp;
  @ requires out: \valid(r) && \valid(why);
  @ assigns *r, *why, ew_ext_state;
  @ ensures \result == 0 || \result == -1;
  @*/
int ew_device_ends(int k, int ulp, tp_ival32 a, tp_ival32 *r, const char **why);

/* __float2half of finite ends: the proven binary16 ends
 * (oracles/common/round_ends.h, tp_f16_round.c) read back as binary32. 0
 * and *r, or -1 and *why where an end rounds to infinity. */
/*@ requires out: \valid(r) && \valid(why);
  @ assigns *r, *why;
  @ ensures \result == 0 || \result == -1;
  @*/
int ew_rn16_ends(tp_ival32 a, tp_ival32 *r, const char **why);

/* Table k of t at its input's pattern bits[input]: 0 and *r, or -1 and the
 * node and reason where the evaluation failed for that pattern. */
/*@ requires out: \valid(r) && \valid(node) && \valid(why);
  @ assigns *r, *node, *why;
  @ ensures \result == 0 || \result == -1;
  @*/
int ew_tab_value(const struct ew_tabs *t, int k, const uint16_t *bits, tp_ival32 *r, int *node, const char **why);

#endif
