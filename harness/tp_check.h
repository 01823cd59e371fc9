/* The checker: from a case's outputs and the op's per-element reference,
 * the verdicts, the error statistics, the worst elements and the audit of
 * the tolerance the kernel's authors claimed. Everything it returns is a
 * pure function of the case (plan, seed, outputs), so a replay anywhere
 * reproduces it bit for bit. */
#ifndef TP_CHECK_H
#define TP_CHECK_H
#include "core/tp_op.h"
#include "core/tp_plan.h"
#include "harness/tp_statements.h"

#include <jansson.h>

#define TP_CHECK_WORST 5

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

/* Checks one output tensor against its references. The claim audited is
 * |y - exact| <= claim_atol + claim_rtol * |exact|. */
json_t *tp_check_output(const tp_tensor *out, const tp_ref *ref, double claim_atol, double claim_rtol);

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
