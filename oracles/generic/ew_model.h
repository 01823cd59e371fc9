/* The [model] keys ops elementwise and rowwise share: arithmetic, fma,
 * output_rounding, the expression table and the vendor ulps per device
 * function and backend. */
#ifndef TP_EW_MODEL_H
#define TP_EW_MODEL_H
#include "core/tp_value.h"
#include "oracles/generic/ew_prog.h"

#include <stddef.h>

/* The allowed values of the choice keys (NULL-terminated), for the ops'
 * tp_model_key tables. */
extern const char *const ew_arith_values[], *const ew_fma_values[], *const ew_outr_values[];

/* The shared keys of a [model] alone: 0, or -1 with a message. */
int ew_check_shared_keys(const tp_value *model, char *err, size_t errlen);

/* fma and the ulp bound of each device function on backend ("cuda",
 * "hip"; -1 where none is declared, 0 for sqrtf unless declared): 0, or -1
 * with a message prefixed by op. */
int ew_model_read(const tp_value *model, const char *backend, const char *op, ew_model *m, char *err,
                  size_t errlen);

/* -1 with "OP: WHERE uses FN, but model.ulp.FN has no bound for backend
 * BACKEND; expected ..." when program p calls a device function m has no
 * bound for; 0 otherwise. */
int ew_check_declared_ulps(const ew_prog *p, const ew_model *m, const char *op, const char *where,
                           const char *backend, char *err, size_t errlen);

/* Whether some expression of model.expr or model.reduce calls
 * __float2half (the parser accepts the name only as that function). */
int ew_model_rounds_to_binary16(const tp_value *model);

#endif
