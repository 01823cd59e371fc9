#include "oracles/generic/ew_model.h"

#include "oracles/common/op_common.h"

#include <string.h>

const char *const ew_arith_values[] = {"fp32", NULL}, *const ew_fma_values[] = {"no", "any", NULL},
                  *const ew_outr_values[] = {"nearest", NULL};

int ew_check_shared_keys(const tp_value *model, char *err, size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "arithmetic", ew_arith_values, &v, err, errlen) ||
        tp_model_choice(model, "fma", ew_fma_values, &v, err, errlen) ||
        tp_model_choice(model, "output_rounding", ew_outr_values, &v, err, errlen))
        return -1;
    if (!tp_value_is_table(tp_value_get(model, "expr"))) {
        snprintf(err, errlen, "model.expr must be a table: output name = \"expression\"");
        return -1;
    }
    const tp_value *ulp = tp_value_get(model, "ulp");
    if (ulp && !tp_value_is_table(ulp)) {
        snprintf(err, errlen, "model.ulp must be a table: function = { cuda = K, hip = K }");
        return -1;
    }
    return 0;
}

int ew_model_read(const tp_value *model, const char *backend, const char *op, ew_model *m, char *err,
                  size_t errlen)
{
    const char *v;
    if (tp_model_choice(model, "fma", ew_fma_values, &v, err, errlen) != 0)
        return -1;
    m->fma_any = strcmp(v, "any") == 0;
    const tp_value *ulps = tp_value_get(model, "ulp");
    for (int k = 0; k < EW_NFNS; k++) {
        const tp_value *per = ulps ? tp_value_get(ulps, ew_fn_name(k)) : NULL;
        const tp_value *u = tp_value_is_table(per) ? tp_value_get(per, backend) : NULL;
        m->ulp[k] = u && tp_value_is_integer(u) ? (int)tp_value_integer(u) : -1;
        if (m->ulp[k] < -1 || m->ulp[k] > 64) {
            snprintf(err, errlen, "%s: model.ulp.%s.%s must be between 0 and 64", op, ew_fn_name(k), backend);
            return -1;
        }
        if (k == EW_SQRT - EW_FIRST_FN && m->ulp[k] < 0)
            m->ulp[k] = 0; /* sqrtf is correctly rounded unless declared otherwise */
    }
    return 0;
}

int ew_check_declared_ulps(const ew_prog *p, const ew_model *m, const char *op, const char *where,
                           const char *backend, char *err, size_t errlen)
{
    for (int k = 0; k < EW_NFNS; k++)
        if ((p->fns_used >> k & 1u) && m->ulp[k] < 0) {
            snprintf(err, errlen,
                     "%s: %s uses %s, but model.ulp.%s has no bound for backend %s; expected [model.ulp] %s = { %s = "
                     "K } with the vendor's documented ulp bound",
                     op, where, ew_fn_name(k), ew_fn_name(k), backend, ew_fn_name(k), backend);
            return -1;
        }
    return 0;
}

static int table_mentions(const tp_value *t, const char *needle)
{
    if (!tp_value_is_table(t))
        return 0;
    for (int k = 0; k < t->n; k++) {
        const tp_value *v = &t->items[k];
        const char *str = tp_value_string(v);
        if ((str && strstr(str, needle)) || table_mentions(v, needle))
            return 1;
    }
    return 0;
}

int ew_model_rounds_to_binary16(const tp_value *model)
{
    return table_mentions(tp_value_get(model, "expr"), "__float2half") ||
           table_mentions(tp_value_get(model, "reduce"), "__float2half");
}
