#include "oracles/common/op_common.h"
#include "oracles/gemm/proven/gemm.h"

#include <fenv.h>
#include <stdlib.h>

int tp_model_choice(const tp_value *model, const char *key, const char *const *allowed, const char **value,
                    char *err, size_t errlen)
{
    const char *v = tp_value_string(tp_value_get(model, key));
    for (int i = 0; v && allowed[i]; i++)
        if (strcmp(v, allowed[i]) == 0) {
            *value = v;
            return 0;
        }
    int n = snprintf(err, errlen, "model.%s is %s%s%s; expected one of", key, v ? "\"" : "", v ? v : "missing",
                     v ? "\"" : "");
    for (int i = 0; allowed[i] && n > 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, " \"%s\"", allowed[i]);
    return -1;
}

int tp_model_transposes(const tp_value *model, char *err, size_t errlen)
{
    const char *flags[] = {"transpose_a", "transpose_b"};
    for (int i = 0; i < 2; i++) {
        const tp_value *f = tp_value_get(model, flags[i]);
        if (f && !tp_value_is_bool(f)) {
            snprintf(err, errlen, "model.%s must be true or false", flags[i]);
            return -1;
        }
    }
    return 0;
}

const tp_tensor *tp_need_f16(const tp_case *c, const char *op, const char *name, char *err, size_t errlen)
{
    const tp_tensor *t = tp_case_tensor(c, name);
    if (!t || t->dtype != TP_F16) {
        snprintf(err, errlen, "op %s needs an f16 tensor named %s", op, name);
        return NULL;
    }
    return t;
}

const tp_tensor *tp_need_f16_or_f32(const tp_case *c, const char *op, const char *name, char *err, size_t errlen)
{
    const tp_tensor *t = tp_case_tensor(c, name);
    if (!t || (t->dtype != TP_F16 && t->dtype != TP_F32)) {
        snprintf(err, errlen, "op %s needs an f16 or f32 tensor named %s", op, name);
        return NULL;
    }
    return t;
}

int tp_parse_f32(const char *s, float *out)
{
    if (!s)
        return -1;
    char *end;
    const int saved = fegetround();
    fesetround(FE_TONEAREST);
    *out = strtof(s, &end);
    fesetround(saved);
    return end == s || (*end && strcmp(end, "f") != 0) ? -1 : 0;
}

static double bound_scale = 1.0;

void tp_bound_scale_set_for_test(double s)
{
    bound_scale = s;
}

int tp_bound_shrink_active(void) { return bound_scale != 1.0; }

void tp_bound_shrink(double exact, double *lo, double *hi)
{
    if (bound_scale == 1.0)
        return;
    /* Shrinking toward exact: a narrower interval than the proven one,
     * so the direction of rounding here does not matter for soundness
     * (nothing but tests ever runs this). */
    if (*lo < exact)
        *lo = exact - bound_scale * (exact - *lo);
    if (*hi > exact)
        *hi = exact + bound_scale * (*hi - exact);
}

const char *tp_sum_c_text(long long n)
{
    return n <= TP_DOT_N_MAX ? "2^-24*(1+2^-7)" : "2^-24*(1+2^-6+2^-11)";
}
