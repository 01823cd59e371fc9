/* A resolved plan (written by gen/ from a contract) and the cases built
 * from it: dims, validation, generated inputs, poisoned outputs. The same
 * code builds a case in a harness on the GPU machine and in `tolproof
 * replay` anywhere else, so the inputs are the same bits in both. */
#ifndef TP_PLAN_H
#define TP_PLAN_H
#include "tp_op.h"

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
#endif
