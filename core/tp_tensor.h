/* Tensors and cases: what a harness launches on and what the checker and
 * the ops read. A case is built from a plan (core/tp_case.h) or, by
 * tests, by hand. */
#ifndef TP_TENSOR_H
#define TP_TENSOR_H
#include "core/tp_dtype.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of a plan, and so of a case: fixed-size arrays keep a case one
 * allocation. The registry publishes them, so the generator refuses a
 * contract that would not fit. */
#define TP_MAX_DIMS 8
#define TP_MAX_TENSORS 8
#define TP_MAX_RANK 4

typedef struct {
    const char *name;
    tp_dtype dtype;
    int rank;
    int64_t shape[TP_MAX_RANK];
    int64_t numel;
    void *data; /* row-major; uint16_t bit patterns for TP_F16 and TP_BF16 */
    /* Outputs: their contents before the launch (the contract's init), for
     * ops whose kernels leave elements untouched or accumulate into them.
     * NULL for inputs. */
    void *initial;
} tp_tensor;

/* One case, resolved: dims, tensors (inputs filled, outputs as produced by
 * the kernel under audit) and the backend the outputs came from. Names
 * point into the plan the case was built from. */
typedef struct {
    const char *name;
    uint64_t seed;
    int ndims;
    const char *dim_names[TP_MAX_DIMS];
    int64_t dims[TP_MAX_DIMS];
    int ntensors;
    tp_tensor tensors[TP_MAX_TENSORS];
    const char *backend; /* "cuda" or "hip": selects vendor ulp bounds */
} tp_case;

/* The tensor or dim of a case by name: NULL or -1 when absent. */
const tp_tensor *tp_case_tensor(const tp_case *c, const char *name);
int64_t tp_case_dim(const tp_case *c, const char *name);

#ifdef __cplusplus
}
#endif
#endif
