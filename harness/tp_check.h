/* The checker: from a case's outputs and the op's per-element reference,
 * the verdicts, the error statistics, the worst elements and the audit of
 * the tolerance the kernel's authors claimed. Everything it returns is a
 * pure function of the case (plan, seed, outputs), so a replay anywhere
 * reproduces it bit for bit. */
#ifndef TP_CHECK_H
#define TP_CHECK_H
#include "core/tp_op.h"
#include "core/tp_plan.h"
#include "harness/tp_check_elem.h"
#include "harness/tp_statements.h"

#include <jansson.h>

/* tp_case_build, and the case refused (NULL, err set) when an output has a
 * format the plan's op cannot check (tp_op_check_outputs): what a harness
 * refuses before a launch, and what a replay re-derives. */
tp_case *tp_check_case_build(const tp_plan *plan, int index, const char *backend, char *err, size_t errlen);

/* Checks every output tensor of the case; returns the case result object
 * (see docs in README: verdict, violations, max_abs_err, max_ulp_err,
 * max_err_over_bound, worst elements, claim audit, output SHA-256,
 * Evidence and Non-claims), or NULL with err set when the reference cannot
 * be computed. src says where the tensors came from (NULL: inputs from the
 * seed, outputs from the contract's kernel). */
json_t *tp_check_case(const tp_plan *plan, const tp_case *c, const tp_case_source *src, char *err, size_t errlen);
/* The same, with the references of some outputs already computed:
 * given[t] (t a tensor index; given may be NULL) is op->reference's array
 * for output t, as tp_op_reference filled it for this case, or NULL to
 * compute it here. The replay of a .tpr output computes the reference to
 * decode it (cli/tp_packed_output.h) and hands it on, so that it is
 * computed once. */
json_t *tp_check_case_given(const tp_plan *plan, const tp_case *c, const tp_case_source *src, tp_ref *const *given,
                            char *err, size_t errlen);

/* Checks one output tensor against its references. The claim audited is
 * |y - exact| <= claim_atol + claim_rtol * |exact|. The result counts, where
 * there are some, the violations that are more accurate than the model
 * admits ("more_accurate", each such element flagged in the worst and
 * first_violations lists). */
json_t *tp_check_output(const tp_tensor *out, const tp_ref *ref, double claim_atol, double claim_rtol);
/* The same, for an op that gives each element's admitted bit pattern
 * (tp_op.reference_bits; bits NULL: compare values as above): an element
 * passes when its pattern is that one, a NaN with its payload and a zero
 * with its sign included; ref still gives the values for the statistics. A
 * violation that the values do not show (-0 for +0, one NaN for another)
 * carries its patterns, "got_bits" and "admitted_bits". */
json_t *tp_check_output_bits(const tp_tensor *out, const tp_ref *ref, const uint32_t *bits, double claim_atol,
                             double claim_rtol);
/* The verdict of element i of t: its bit pattern is bits[i] when bits is
 * given, else its value lies in [allow_lo, allow_hi] (a NaN never does). */
int tp_element_admitted(const tp_tensor *t, int64_t i, const tp_ref *r, const uint32_t *bits);

/* 1 when y, outside the admitted interval of r, is closer to the exact
 * value than any point of that interval, for every point of the exact
 * value's enclosure [exact_lo, exact_hi] (rigorously: never 1 for an
 * element that is not). Only possible when the enclosure lies outside the
 * admitted interval: the model's precision path cannot reach the values
 * nearest the exact one. Finite values only. */
int tp_more_accurate(double y, const tp_ref *r);

/* JSON for a double that may be infinite or NaN ("inf", "-inf", "nan"),
 * and back. */
json_t *tp_json_num(double v);
double tp_json_to_num(const json_t *j);

/* |y - exact| over the admitted distance on the side of y: <= 1 exactly
 * when y is admitted (infinite when that side has no room). */
double tp_side_ratio(double y, const tp_ref *r);

/* Element i of an output tensor (binary16, bfloat16 or binary32) as a
 * double. */
double tp_output_value(const tp_tensor *t, int64_t i);
#endif
