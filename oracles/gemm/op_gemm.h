/* Hooks of op "gemm" beyond the tp_op interface. */
#ifndef TP_OP_GEMM_H
#define TP_OP_GEMM_H
#include "core/tp_value.h"

#include <jansson.h>

/* Rewrites the Evidence and Non-claims lines of a gemm result whose model
 * is not the one the op's static lists describe (accumulation =
 * "fp32_faithful"); leaves them alone otherwise. */
void tp_gemm_model_statements(const tp_value *model, json_t *evidence, json_t *non_claims);
#endif
