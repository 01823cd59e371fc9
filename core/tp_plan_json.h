/* The JSON side of the plan and of its model table, for the few places
 * that read or write JSON themselves (`tolproof check` reads --model
 * values as JSON and writes the model into its result; tests write models
 * as JSON). Everything else takes a tp_plan (core/tp_plan.h). */
#ifndef TP_PLAN_JSON_H
#define TP_PLAN_JSON_H
#include "core/tp_value.h"

#include <jansson.h>

/* A JSON value as a value tree (null is refused: a model has no use for
 * it). NULL with a message naming `what` (e.g. "model.tanhf_ulp") and the
 * first entry that cannot be converted. */
tp_value *tp_value_from_json(const json_t *j, const char *what, char *err, size_t errlen);
/* A value tree as JSON (a new reference; NULL when out of memory). */
json_t *tp_value_to_json(const tp_value *v);
#endif
