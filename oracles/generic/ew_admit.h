/* The binary32 model of an elementwise program (oracles/generic/ew_prog.h)
 * on one element: the interval hull of every value the kernel's binary32
 * evaluation can give, node by node.
 *
 *   + - * / fmaf sqrtf   the proven interval primitives of
 *                        oracles/common/proven (tp_ival32_add, _sub, _mul,
 *                        _div, _fma, _sqrt: T3, the result set of round to
 *                        nearest over the operands' intervals)
 *   x*y + z, x*y - z,    with fma = "any", also the fused evaluation
 *   z + x*y, z - x*y     (tp_ival32_fma): the hull of both, per pattern
 *   -x, fminf, fmaxf     exact, on the ends
 *   select               the branch the comparison decides on the
 *                        intervals, or the hull of both
 *   rsqrtf expf logf     the correctly rounded results at the ends (MPFR,
 *   tanhf erff           monotone functions), widened by the declared
 *   (sqrtf with ulp > 0) vendor ulps (oracles/common/vendor_ulp.h: the
 *                        ends proven in tp_vendor_ulp.c, T3)
 *
 * The operands of a node are intervals, not the values they came from: a
 * quantity that reaches a node along two paths is treated as two
 * independent ones (sound, possibly wider). The model covers finite
 * binary32 values only: where an interval could overflow, or a function
 * leave its domain (a division by an interval holding 0, logf of a
 * non-positive value), the element is not bounded and ew_admit says why.
 *
 * The node loop is ew_eval_values (oracles/generic/proven/ew_eval.c),
 * proven T1 by WP: no runtime error, and each primitive called where its
 * `requires` hold, on every program ew_prog_ok accepts. That the result
 * holds every binary32 evaluation is the primitives' T3 contracts composed
 * node by node, argued here and tested, not proven; the device functions,
 * __float2half, the tables and the quotient's range check are contracts
 * WP takes as given (proofs/TRUSTED.md). */
#ifndef TP_EW_ADMIT_H
#define TP_EW_ADMIT_H
#include "oracles/common/proven/tp_ival.h"
#include "oracles/generic/ew_prog.h"
#include "oracles/generic/ew_tab.h"

#include <stddef.h>
#include <stdint.h>

/* The admitted hull of the program's result for inputs in[0 ..]: 0 and
 * *out, or -1 and the failing node's index and reason in *node, *why. */
int ew_admit(const ew_prog *p, const ew_model *m, const float *in, tp_ival32 *out, int *node, const char **why);

/* The same, evaluating nodes 0 .. upto only, and of those only the ones
 * `only` marks (NULL: all); with tables t (oracles/generic/ew_tab.h), a
 * tabulated subtree's value is looked up at its input's 16-bit pattern
 * bits[input] instead of evaluated. *out is node upto's hull. */
int ew_admit_nodes(const ew_prog *p, const ew_model *m, const float *in, int upto, const unsigned char *only,
                   const ew_tabs *t, const uint16_t *bits, tp_ival32 *out, int *node, const char **why);

/* The same with each input an interval in[k] (a row's reduced value in op
 * rowwise): the hull over every input in its interval. An input must be
 * finite at both ends. */
int ew_admit_box(const ew_prog *p, const ew_model *m, const tp_ival32 *in, int upto, const unsigned char *only,
                 const ew_tabs *t, const uint16_t *bits, tp_ival32 *out, int *node, const char **why);

/* ew_admit_box keeping every evaluated node's hull: v[i] for each node
 * i <= upto it evaluates (v holds EW_MAX_NODES), so that a caller needing
 * an operand's hull as well as the result (op rowwise's fused terms)
 * evaluates the program once. */
int ew_admit_values(const ew_prog *p, const ew_model *m, const tp_ival32 *in, int upto, const unsigned char *only,
                    const ew_tabs *t, const uint16_t *bits, tp_ival32 *v, int *node, const char **why);

/* Whether p is a program ew_admit_values may evaluate (ew_prog_ok,
 * oracles/generic/proven/ew_eval.h: every operand before its user, kinds
 * and input indices in range), the `requires` of the proven node loop.
 * The ops call it once on each program they evaluate, after parsing and
 * after any rewrite: 0, or -1 with an error naming op and where. */
int ew_prog_check(const ew_prog *p, const char *op, const char *where, char *err, size_t errlen);

/* The correctly rounded binary32 value of device function k
 * (EW_FIRST_FN + k) at x (MPFR at 24 bits with binary32's exponent range
 * and subnormals); +-inf or NaN as the real result rounds or is undefined. */
float ew_fn_rn32(int k, float x);

#endif
