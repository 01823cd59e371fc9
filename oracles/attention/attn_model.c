#include "oracles/attention/attn_model.h"

#include "oracles/common/op_common.h"

#include <math.h>
#include <string.h>

static const char *const v_mask[] = {"none", "causal", NULL}, *const v_scale[] = {"1/sqrtf(d)", NULL},
                         *const v_acc[] = {"fp32", "fp32_faithful", NULL},
                         *const v_pround[] = {"binary16", "none", NULL},
                         *const v_final[] = {"divide", "reciprocal", NULL},
                         *const v_exp[] = {"expf", "exp2f_scaled", NULL};

const tp_model_key attn_model_keys[] = {
    {"mask", v_mask, NULL},
    {"scale", v_scale, NULL},
    {"score_accumulation", v_acc, NULL},
    {"min_tile_keys", NULL, "the fewest keys a tile holds (but the first and last): an integer from 1 to 4096"},
    {"p_rounding", v_pround, NULL},
    {"pv_accumulation", v_acc, NULL},
    {"final", v_final, NULL},
    {"exp", v_exp, NULL},
    {"expf_ulp", NULL, "a table of the device expf's documented ulp bound per backend (cuda, hip)"},
    {"logf_ulp", NULL, "a table of the device logf's documented ulp bound per backend (cuda, hip)"},
    {NULL, NULL, NULL}};

/* A documented ulp bound per backend: -1 where the backend has none. */
static int ulp_of(const tp_value *model, const char *key, const char *backend, int *k, char *err, size_t errlen)
{
    const tp_value *tab = tp_value_get(model, key);
    if (!tp_value_is_table(tab)) {
        snprintf(err, errlen, "model.%s must be a table of documented ulp bounds per backend: { cuda = K }", key);
        return -1;
    }
    for (int i = 0; i < tab->n; i++) {
        const tp_value *u = &tab->items[i];
        if (!tp_value_is_integer(u) || tp_value_integer(u) < 0 || tp_value_integer(u) > 64) {
            snprintf(err, errlen, "model.%s.%s must be an integer from 0 to 64", key, tab->keys[i]);
            return -1;
        }
    }
    const tp_value *u = backend ? tp_value_get(tab, backend) : NULL;
    *k = u ? (int)tp_value_integer(u) : -1;
    return 0;
}

int attn_model_read(const tp_value *model, const char *backend, attn_model *m, char *err, size_t errlen)
{
    const char *mask, *scale, *sacc, *pr, *pv, *fin;
    if (tp_model_choice(model, "mask", v_mask, &mask, err, errlen) ||
        tp_model_choice(model, "scale", v_scale, &scale, err, errlen) ||
        tp_model_choice(model, "score_accumulation", v_acc, &sacc, err, errlen) ||
        tp_model_choice(model, "p_rounding", v_pround, &pr, err, errlen) ||
        tp_model_choice(model, "pv_accumulation", v_acc, &pv, err, errlen) ||
        tp_model_choice(model, "final", v_final, &fin, err, errlen))
        return -1;
    const tp_value *t = tp_value_get(model, "min_tile_keys");
    if (!tp_value_is_integer(t) || tp_value_integer(t) < 1 || tp_value_integer(t) > 4096) {
        snprintf(err, errlen, "model.min_tile_keys must be an integer from 1 to 4096 (the fewest keys a tile holds)");
        return -1;
    }
    m->causal = strcmp(mask, "causal") == 0;
    m->faithful_scores = strcmp(sacc, "fp32_faithful") == 0;
    m->faithful_pv = strcmp(pv, "fp32_faithful") == 0;
    m->p_binary16 = strcmp(pr, "binary16") == 0;
    m->reciprocal = strcmp(fin, "reciprocal") == 0;
    m->min_tile_keys = (int)tp_value_integer(t);
    const char *ex = "expf"; /* optional: expf unless the contract says otherwise */
    if (tp_value_get(model, "exp") && tp_model_choice(model, "exp", v_exp, &ex, err, errlen))
        return -1;
    m->exp2_scaled = strcmp(ex, "exp2f_scaled") == 0;
    if (ulp_of(model, "expf_ulp", backend, &m->expf_ulp, err, errlen) ||
        ulp_of(model, "logf_ulp", backend, &m->logf_ulp, err, errlen))
        return -1;
    return 0;
}

int attn_model_check(const tp_value *model, char *err, size_t errlen)
{
    attn_model m;
    return attn_model_read(model, NULL, &m, err, errlen);
}

float attn_scale(long long d)
{
    volatile float r = sqrtf((float)d); /* two roundings, as the kernel's 1.0f / sqrtf((float)d) */
    return 1.0f / r;
}
