/* Diagnosis of a model mismatch: an output element outside its admitted
 * set but closer to the exact value than anything the set holds
 * (tp_more_accurate) is a violation of the declared model all the same,
 * yet a different finding from an error: the producer computed more
 * accurately than the model's precision path can (a correctly rounded
 * softmax checked against one that rounds twice). Which model would admit
 * it says which assumption of the contract the producer does not follow.
 *
 * The alternatives tried are the op's own: every value the registry lists
 * for a key of its [model] (core/tp_op.h model_keys) other than the one in
 * force, one key at a time, each model judged by the op's check_model
 * first. Deterministic (a pure function of the plan, the case and its
 * outputs), so a replay re-derives it like any other field. */
#ifndef TP_DIAGNOSE_H
#define TP_DIAGNOSE_H
#include "core/tp_op.h"

#include <jansson.h>

/* When result (tp_check_output's object for output `out`, checked against
 * ref under `model`) counts "more_accurate" elements, tries the op's
 * alternative models on those elements and sets result's "admitted_by":
 * [{"key": K, "value": V, "elements": N}, ...], the alternatives under
 * which N > 0 of them are admitted, in the registry's order of keys and
 * values. Sets nothing when no alternative admits any (or none is
 * listed): the field is there only when it says something. */
void tp_diagnose_output(const tp_op *op, const tp_value *model, const tp_case *c, const tp_tensor *out,
                        const tp_ref *ref, json_t *result);

/* "; --model K=V would admit them, --model K2=V2 3 of them" for an output
 * or case with N more-accurate elements and the "admitted_by" list given
 * (possibly NULL), into buf ("" when the list is empty). */
void tp_admitted_by_text(char *buf, size_t len, const json_t *admitted_by, long long n);

/* The more-accurate elements of a case result over all its outputs, and
 * its alternatives merged across outputs (same key and value: elements
 * added), as a new "admitted_by" list; *n is 0 when there are none. */
json_t *tp_case_more_accurate(const json_t *case_result, long long *n);
#endif
