/* Output tensors of a run directory stored as .tpr (cli/tp_residual_codec.h)
 * instead of .npy: the prediction the codec encodes against, and reading
 * and writing such files for one output of one case. `tolproof pack`
 * writes them for recorded runs; replay, bundle and audit read them where
 * the .npy is absent (tp_run_output_load). */
#ifndef TP_PACKED_OUTPUT_H
#define TP_PACKED_OUTPUT_H
#include "core/tp_op.h"
#include "core/tp_plan.h"
#include "core/tp_tensor.h"

#include <stddef.h>
#include <stdint.h>

/* The predicted pattern of every element of output tensor t of case c
 * (inputs loaded; the outputs' contents are not read): the pattern the
 * op's reference_bits gives, or else the output format's rounding (to
 * nearest, ties to even) of the op's exact reference. When keep is not
 * NULL, *keep receives that reference (malloc'd, for tp_check_case_given),
 * or NULL for a copy. 0, or -1 with err. */
int tp_output_predict(const tp_plan *plan, const tp_case *c, int t, uint32_t *pred, tp_ref **keep, char *err,
                      size_t errlen);

/* The .npy bytes that the .tpr file at path encodes for output t of c,
 * checked against the SHA-256 it records. NULL with "PATH: what is wrong"
 * in err (a SHA-256 mismatch says that the exact reference changed and
 * how to migrate: recorded/MIGRATIONS.md 0004). keep as for
 * tp_output_predict (NULL too when the file is stored unpredicted). */
unsigned char *tp_packed_output_read(const char *path, const tp_plan *plan, const tp_case *c, int t, size_t *len,
                                     tp_ref **keep, char *err, size_t errlen);

/* Encodes the .npy file npy_path of output t of c as tpr_path (through a
 * temporary file), after checking that it decodes to the same bytes.
 * Leaves npy_path alone. 0, or -1 with err; *raw and *packed get the two
 * sizes. */
int tp_packed_output_write(const char *npy_path, const char *tpr_path, const tp_plan *plan, const tp_case *c, int t,
                           size_t *raw, size_t *packed, char *err, size_t errlen);

/* Loads output t of case c of run directory dir into c->tensors[t].data
 * from outputs/CASE/NAME.npy or, when that does not exist, NAME.tpr
 * (both present is an error: which one is the record?). The dtype and
 * shape must be the plan's. keep (may be NULL): the reference computed to
 * decode a .tpr, as tp_packed_output_read gives it, else NULL. 0, or -1
 * with err. */
int tp_run_output_load(const char *dir, const tp_plan *plan, tp_case *c, int t, tp_ref **keep, char *err,
                       size_t errlen);
#endif
