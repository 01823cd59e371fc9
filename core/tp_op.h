/* The interface between the checker (harness/) and the per-operation
 * references and bounds (oracles/). One tp_op per operation named by a
 * contract's `op`; the registry is in oracles/tp_ops.c. */
#ifndef TP_OP_H
#define TP_OP_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tensor element types; the floating-point ones have a format descriptor
 * (core/tp_format.h). bf16 comes last so that the others keep their codes. */
typedef enum { TP_F16 = 0, TP_F32, TP_I32, TP_I64, TP_BF16 } tp_dtype;

/* A set of dtypes, e.g. the output formats an op supports. */
#define TP_DTYPE_BIT(dtype) (1u << (dtype))

typedef struct {
    const char *name;
    tp_dtype dtype;
    int rank;
    int64_t shape[4];
    int64_t numel;
    void *data; /* row-major; bit patterns (uint16_t) for TP_F16 and TP_BF16 */
    /* Outputs: their contents before the launch (the contract's init), for
     * ops whose kernels leave elements untouched or accumulate into them.
     * NULL for inputs. */
    void *initial;
} tp_tensor;

/* One case, resolved: dims, tensors (inputs filled, outputs as produced by
 * the kernel under audit) and the backend the outputs came from. */
typedef struct {
    const char *name;
    uint64_t seed;
    int ndims;
    const char *dim_names[8];
    int64_t dims[8];
    int ntensors;
    tp_tensor tensors[8];
    const char *backend; /* "cuda" or "hip": selects vendor ulp bounds */
} tp_case;

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
    int (*check_model)(const json_t *model, char *err, size_t errlen);
    /* Fill ref[0 .. numel-1] for the output tensor `output`. 0 or -1. */
    int (*reference)(const json_t *model, const tp_case *c, const char *output,
                     tp_ref *ref, char *err, size_t errlen);
    /* What the reference and the model rest on, for the Evidence and
     * Non-claims lists of every result (NULL-terminated; may be NULL). */
    const char *const *evidence;
    const char *const *non_claims;
    /* The formats its outputs may have (TP_DTYPE_BIT(TP_F16) | ...): a plan
     * with an output in any other format is refused (tp_op_check_outputs). */
    unsigned outputs;
} tp_op;

const tp_op *tp_op_find(const char *name);
/* Names of all registered ops, NULL-terminated. */
const char *const *tp_op_names(void);
/* op->reference run in round-to-nearest, whatever the caller's rounding
 * mode (restored on return): the references are defined in that mode, and
 * the result must not depend on the caller's. */
int tp_op_reference(const tp_op *op, const json_t *model, const tp_case *c, const char *output, tp_ref *ref,
                    char *err, size_t errlen);
/* 0 when every output of the case (a tensor with an `initial`) has a
 * format the op declares; otherwise -1 and a message naming the output,
 * its format and the op's formats. */
int tp_op_check_outputs(const tp_op *op, const tp_case *c, char *err, size_t errlen);

/* Helpers for op implementations. */
const tp_tensor *tp_case_tensor(const tp_case *c, const char *name);
int64_t tp_case_dim(const tp_case *c, const char *name); /* -1 if absent */

#ifdef __cplusplus
}
#endif
#endif
