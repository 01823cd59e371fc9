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

/* The GEMM ops' optional boolean keys transpose_a and transpose_b: 0, or
 * -1 with "model.KEY must be true or false". */
int tp_model_transposes(const tp_value *model, char *err, size_t errlen);

/* The tensor `name` of the case, which must be f16; NULL + message. */
const tp_tensor *tp_need_f16(const tp_case *c, const char *op, const char *name, char *err, size_t errlen);
/* The same for a tensor that may be f16 or f32 (an fp32 input that older
 * recorded runs gave as binary16, which fp32 holds exactly). */
const tp_tensor *tp_need_f16_or_f32(const tp_case *c, const char *op, const char *name, char *err, size_t errlen);

/* Test-only parameter (issue 9 item 4): every op passes the enclosure of
 * its model's results before the output rounding through tp_bound_shrink,
 * which moves each end toward the exact value by the factor set here
 * (lo' = exact - s (exact - lo), hi' = exact + s (hi - exact)). The default
 * 1 leaves every bound untouched (no arithmetic is done); a unit test sets
 * 0.5 to check that a correct output it constructs then fails, i.e. that
 * the bound is not twice as wide as it needs to be. Nothing outside tests/
 * calls the setter. */
void tp_bound_scale_set_for_test(double s);
void tp_bound_shrink(double exact, double *lo, double *hi);
/* Whether tp_bound_shrink does anything (a test set a factor other than 1):
 * code that computes bounds without it (a GPU) must not run then. */
int tp_bound_shrink_active(void);

/* The constant of the fp32 sum bound n*C(n)*sum|terms| + n*2^-149 for a sum
 * of n terms, as the ops' statements write it: "2^-24*(1+2^-7)" up to
 * TP_DOT_N_MAX terms, "2^-24*(1+2^-6+2^-11)" above (oracles/gemm/proven/gemm.h,
 * TP_DOT_C_OF, derives both). */
const char *tp_sum_c_text(long long n);
#endif
