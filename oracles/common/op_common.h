/* Small helpers shared by the op implementations. */
#ifndef TP_OP_COMMON_H
#define TP_OP_COMMON_H
#include "core/tp_op.h"

#include <stdio.h>
#include <string.h>

/* A string-valued [model] key that must be one of `allowed` (a
 * NULL-terminated list). 0, or -1 with a message naming the key. */
int tp_model_choice(const tp_value *model, const char *key, const char *const *allowed, const char **value,
                    char *err, size_t errlen);

/* An fp32 literal as a kernel spells it ("1e-5f", "0.044715f"): a number
 * strtof accepts, optionally followed by 'f'. Rounded to nearest whatever
 * the caller's rounding mode (strtof follows the mode in force). 0, or -1
 * for NULL or anything else; the value may be infinite or NaN. */
int tp_parse_f32(const char *s, float *out);

/* The tensor `name` of the case, which must be f16; NULL + message. */
const tp_tensor *tp_need_f16(const tp_case *c, const char *op, const char *name, char *err, size_t errlen);
#endif
