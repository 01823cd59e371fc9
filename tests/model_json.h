/* Tests write a contract's [model] as JSON (json_pack, json_loads) and the
 * ops take it as a value tree: model_of converts one and releases the
 * JSON. NULL (and a TAP diagnostic) when it cannot be converted. */
#ifndef TESTS_MODEL_JSON_H
#define TESTS_MODEL_JSON_H
#include "core/tp_plan_json.h"

#include <stdio.h>

static inline tp_value *model_of(json_t *j)
{
    char err[300] = "not JSON";
    tp_value *v = j ? tp_value_from_json(j, "model", err, sizeof err) : NULL;
    if (!v)
        printf("# model: %s\n", err);
    json_decref(j);
    return v;
}
#endif
