/* The interface between the checker (harness/) and the per-operation
 * references and bounds (oracles/). One tp_op per operation named by a
 * contract's `op`; the registry is oracles/registry.c. Cases and tensors
 * are in core/tp_tensor.h, the model's value tree in core/tp_value.h. */
#ifndef TP_OP_H
#define TP_OP_H
#include "core/tp_dtype.h"
#include "core/tp_ref.h"
#include "core/tp_statement.h"
#include "core/tp_tensor.h"
#include "core/tp_value.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One key of an op's [model] table, as the registry publishes it: a
 * choice among `values` (NULL-terminated), or, when values is NULL, a key
 * whose form `what` describes. */
typedef struct {
    const char *key;
    const char *const *values;
    const char *what;
} tp_model_key;

typedef struct tp_op {
    const char *name;
    const char *summary; /* one line: the operation, mathematically */
    /* Validate the contract's [model] table; 0 or -1 with a message. */
    int (*check_model)(const tp_value *model, char *err, size_t errlen);
    /* Fill ref[0 .. numel-1] for the output tensor `output`. 0 or -1. */
    int (*reference)(const tp_value *model, const tp_case *c, const char *output,
                     tp_ref *ref, char *err, size_t errlen);
    /* Says what the reference of this case rests on (Evidence: the exact
     * method, the bound) and what its verdict does not show (Non-claims),
     * decided by the same model choices the reference acts on. */
    void (*say)(const tp_value *model, const tp_case *c, tp_statements *out);
    /* Every statement say() can make, NULL-terminated: the op's part of
     * the registry (harness/tp_statements.c). */
    const tp_statement *const *statements;
    /* What the op accepts, published by the registry and checked by the
     * generator: the dtypes of the tensors its reference reads and writes
     * (TP_DTYPE_BIT set), and the keys of its [model] (terminated by a
     * {NULL} entry; check_model stays the judge of a whole model). */
    unsigned dtypes;
    const tp_model_key *model_keys;
    /* The formats its outputs may have (TP_DTYPE_BIT(TP_F16) | ...): a plan
     * with an output in any other format is refused (tp_op_check_outputs). */
    unsigned outputs;
    /* For ops whose admitted set of every element is one bit pattern (a
     * copy: embedding_fwd), the pattern of each element of `output`, in
     * the low bits of bits[0 .. numel-1] (uint16 patterns for binary16 and
     * bfloat16, uint32 for binary32); 0 or -1 with a message. The checker
     * then compares patterns, not values: a NaN is admitted only with the
     * same payload and sign, a zero only with the same sign. NULL for ops
     * that compute their outputs (their admitted sets are intervals of
     * values, reference() above). */
    int (*reference_bits)(const tp_value *model, const tp_case *c, const char *output, uint32_t *bits, char *err,
                          size_t errlen);
    /* How infinite and NaN input elements reach the outputs, in words, when
     * the op's model says so (a gather copies them); NULL when the model
     * covers finite inputs only: such an input then has no exact result to
     * bound the outputs by, and is refused by tp_op_check_inputs_finite. */
    const char *nonfinite_inputs;
    /* Optional (NULL: none): refuses a case before any launch when the
     * model cannot bound it on c->backend (e.g. a HIP device-math figure
     * whose documented test range the case's arguments leave). 0, or -1
     * with the reason, recorded as refused by "plan". */
    int (*check_case)(const tp_value *model, const tp_case *c, char *err, size_t errlen);
    /* Optional (NULL: none): the reference of `output` by ranges of
     * elements, so that the checker keeps no reference array of the whole
     * output (40 bytes an element: at 4096^2 a 671 MB array written, then
     * read back by the element check). prepare does what every element
     * needs and sets *state, or leaves it NULL when the op computes this
     * output whole (reference() above); 0, or -1 with a message. range
     * fills ref[0 .. to - from - 1] for elements [from, to), from several
     * threads at once; release frees the state. Both ways give the same
     * references, bit for bit. Run in round to nearest, like reference(). */
    int (*reference_prepare)(const tp_value *model, const tp_case *c, const char *output, void **state, char *err,
                             size_t errlen);
    void (*reference_range)(const void *state, int64_t from, int64_t to, tp_ref *ref);
    void (*reference_release)(void *state);
    /* Optional, with reference_prepare: the element check of the whole
     * output done where the state's data lives (a GPU), by the element
     * rule of harness/tp_check_elem.h on references computed from the same
     * source as reference_range's, in round to nearest: tallies[k]
     * (tp_check_tally) of elements [k*chunk, (k+1)*chunk). 0 done; 1 not
     * offered for this state (the caller checks by ranges); -1 error. */
    int (*check_elsewhere)(void *state, const tp_tensor *out, double claim_atol, double claim_rtol, int64_t chunk,
                           void *tallies, char *err, size_t errlen);
    /* Optional, with check_elsewhere: makes reference_range usable (the
     * data copied back); the caller calls it before the first
     * reference_range. 0, or -1 with err set. */
    int (*reference_ready)(void *state, char *err, size_t errlen);
} tp_op;

const tp_op *tp_op_find(const char *name);
/* Names of all registered ops, NULL-terminated. */
const char *const *tp_op_names(void);
/* op->reference run in round-to-nearest, whatever the caller's rounding
 * mode (restored on return): the references are defined in that mode, and
 * the result must not depend on the caller's. */
int tp_op_reference(const tp_op *op, const tp_value *model, const tp_case *c, const char *output, tp_ref *ref,
                    char *err, size_t errlen);
/* op->reference_prepare in round-to-nearest the same way (0 and *state
 * NULL when the op has none). */
int tp_op_reference_prepare(const tp_op *op, const tp_value *model, const tp_case *c, const char *output,
                            void **state, char *err, size_t errlen);
/* 0 when every key of model is one of op->model_keys; otherwise -1 and
 * a message naming the first unknown key and the op's keys, so that a
 * misspelt key (fmaa) is refused instead of silently ignored. */
int tp_op_check_model_keys(const tp_op *op, const tp_value *model, char *err, size_t errlen);
/* 0 when every floating-point input of the case (a tensor without an
 * `initial`) is finite or op->nonfinite_inputs says how it propagates;
 * otherwise -1 and "A[3, 5] = inf: ..." naming the first
 * non-finite element, so that it is a refusal of bad input, not a
 * violation measured against a NaN reference. */
int tp_op_check_inputs_finite(const tp_op *op, const tp_case *c, char *err, size_t errlen);
/* The same for one tensor (0 for an output, which has an `initial`). */
int tp_op_check_input_finite(const tp_op *op, const tp_tensor *t, char *err, size_t errlen);
/* 0 when every output of the case (a tensor with an `initial`) has a
 * format the op declares; otherwise -1 and a message naming the output,
 * its format and the op's formats. */
int tp_op_check_outputs(const tp_op *op, const tp_case *c, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
