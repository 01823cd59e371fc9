/* A resolved plan (written by gen/ from a contract) and the cases built
 * from it: dims, validation, generated inputs, poisoned outputs. The same
 * code builds a case in a harness on the GPU machine and in `tolproof
 * replay` anywhere else, so the inputs are the same bits in both. */
#ifndef TP_PLAN_H
#define TP_PLAN_H
#include "core/tp_op.h"

#include <jansson.h>

/* Loads and sanity-checks a plan (from text or a file). NULL + err. */
json_t *tp_plan_parse(const char *text, char *err, size_t errlen);
json_t *tp_plan_load(const char *path, char *err, size_t errlen);

/* Builds case `name` (or index `index` when name is NULL): evaluates the
 * shapes, checks sizes and the contract's requirements, generates inputs
 * and allocates outputs filled with all-ones bits (NaN). Returns NULL with
 * a refusal in err that names the tensor or requirement and what was
 * expected. */
tp_case *tp_case_build(const json_t *plan, int index, const char *backend, char *err, size_t errlen);
void tp_case_free(tp_case *c);

/* The case entry of the plan with this name, or -1. */
int tp_plan_case_index(const json_t *plan, const char *name);

/* Hex SHA-256 (65 bytes with the terminator) of a buffer or a file. */
void tp_sha256_hex(const void *data, size_t len, char out[65]);
int tp_sha256_file(const char *path, char out[65]);
/* Index tensors may declare the range the kernel can take (`values`): a
 * value outside it would make the kernel write out of bounds. Checks
 * tensor `t` of the case: 0 when in range or not an index tensor with a
 * range, 1 with the first offending element in err (tensor, index, value,
 * expected range), -1 when the range itself cannot be evaluated. */
int tp_case_check_values(const json_t *plan, const tp_case *c, int t, char *err, size_t errlen);

/* Replaces input `name` of a built case with the contents of a .npy file,
 * after checking it is an input of the plan, has the tensor's dtype, the
 * case's element count and shape, and indices within `values`. Sets sha
 * to the file's SHA-256. 0, or -1 with a refusal in err naming the tensor
 * and what was expected; the case is unchanged then. */
int tp_case_load_input(const json_t *plan, tp_case *c, const char *name, const char *path, char sha[65],
                       char *err, size_t errlen);
#endif
