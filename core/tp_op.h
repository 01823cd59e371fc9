/* The interface between the checker (harness/) and the per-operation
 * references and bounds (oracles/). One tp_op per operation named by a
 * contract's `op`; the registry is in oracles/registry.c. Cases and tensors
 * are in core/tp_tensor.h, the model's value tree in core/tp_value.h. */
#ifndef TP_OP_H
#define TP_OP_H
#include "core/tp_tensor.h"
#include "core/tp_value.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the reference says about one output element. */
typedef struct {
    double exact;              /* the exact real value, rounded to double */
    double exact_lo, exact_hi; /* an enclosure of it (equal when exact) */
    /* Every output the numeric model admits lies in [allow_lo, allow_hi];
     * both are values of the output's dtype (binary16 or binary32, possibly
     * infinite) held as doubles. */
    double allow_lo, allow_hi;
} tp_ref;

typedef struct tp_op {
    const char *name;
    const char *summary; /* one line: the operation, mathematically */
    /* Validate the contract's [model] table; 0 or -1 with a message. */
    int (*check_model)(const tp_value *model, char *err, size_t errlen);
    /* Fill ref[0 .. numel-1] for the output tensor `output`. 0 or -1. */
    int (*reference)(const tp_value *model, const tp_case *c, const char *output,
                     tp_ref *ref, char *err, size_t errlen);
    /* What the reference and the model rest on, for the Evidence and
     * Non-claims lists of every result (NULL-terminated; may be NULL). */
    const char *const *evidence;
    const char *const *non_claims;
} tp_op;

const tp_op *tp_op_find(const char *name);
/* Names of all registered ops, NULL-terminated. */
const char *const *tp_op_names(void);

#ifdef __cplusplus
}
#endif
#endif
