/* Cases built from a plan: dims, validation, generated inputs, poisoned
 * outputs. The same code builds a case in a harness on the GPU machine and
 * in `tolproof replay` anywhere else, so the inputs are the same bits in
 * both. */
#ifndef TP_CASE_H
#define TP_CASE_H
#include "core/tp_plan.h"
#include "core/tp_tensor.h"

#include <stddef.h>

/* Builds case `index` of the plan: evaluates the shapes, checks sizes and
 * the contract's requirements, generates inputs and allocates outputs
 * filled with their init (all-ones bits, NaN, by default). Returns NULL
 * with a refusal in err that names the tensor or requirement and what was
 * expected. The case points into the plan, which must outlive it. */
tp_case *tp_case_build(const tp_plan *plan, int index, const char *backend, char *err, size_t errlen);

/* The same, but no tensor gets data (NULL; outputs still get their
 * initial content): for a caller that installs every tensor's data from
 * elsewhere (`tolproof check` reads them from files) and then checks each
 * input as tp_case_check_values does. Generating data that is thrown away
 * took 0.15 s of a 4096^3 GEMM check. */
tp_case *tp_case_build_given(const tp_plan *plan, int index, const char *backend, char *err, size_t errlen);
void tp_case_free(tp_case *c);

/* Index tensors may declare the range the kernel can take (`values`): a
 * value outside it would make the kernel write out of bounds. Checks
 * tensor `t` of the case: 0 when in range or not an index tensor with a
 * range, 1 with the first offending element in err (tensor, index, value,
 * expected range), -1 when the range itself cannot be evaluated. */
int tp_case_check_values(const tp_plan *plan, const tp_case *c, int t, char *err, size_t errlen);

/* Replaces input `name` of a built case with the contents of a .npy file,
 * after checking it is an input of the plan, has the tensor's dtype, the
 * case's element count and shape, and indices within `values`. Sets sha
 * to the file's SHA-256. 0, or -1 with a refusal in err naming the tensor
 * and what was expected; the case is unchanged then. */
int tp_case_load_input(const tp_plan *plan, tp_case *c, const char *name, const char *path, char sha[65],
                       char *err, size_t errlen);
#endif
