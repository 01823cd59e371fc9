#include "harness/tp_diagnose.h"

#include "harness/tp_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The indices of the output's more-accurate elements, recomputed (the
 * result keeps only the first few violations); *k of them. */
static int64_t *more_accurate_elements(const tp_tensor *out, const tp_ref *ref, json_int_t n, int64_t *k)
{
    int64_t *idx = malloc((size_t)n * sizeof *idx);
    *k = 0;
    for (int64_t i = 0; idx && i < out->numel && *k < n; i++)
        if (!tp_element_admitted(out, i, &ref[i], NULL) && tp_more_accurate(tp_output_value(out, i), &ref[i]))
            idx[(*k)++] = i;
    return idx;
}

/* How many of the elements idx[0 .. k-1] the op admits under model m; -1
 * when the op refuses m or cannot compute its reference. */
static int64_t admitted_under(const tp_op *op, const tp_value *m, const tp_case *c, const tp_tensor *out, tp_ref *alt,
                              const int64_t *idx, int64_t k)
{
    char err[800];
    if (op->check_model(m, err, sizeof err) != 0 || tp_op_reference(op, m, c, out->name, alt, err, sizeof err) != 0)
        return -1;
    int64_t admitted = 0;
    for (int64_t j = 0; j < k; j++)
        admitted += tp_element_admitted(out, idx[j], &alt[idx[j]], NULL);
    return admitted;
}

void tp_diagnose_output(const tp_op *op, const tp_value *model, const tp_case *c, const tp_tensor *out,
                        const tp_ref *ref, json_t *result)
{
    json_int_t n = json_integer_value(json_object_get(result, "more_accurate"));
    if (n <= 0 || !op->model_keys)
        return;
    int64_t k;
    int64_t *idx = more_accurate_elements(out, ref, n, &k);
    tp_ref *alt = malloc((size_t)(out->numel ? out->numel : 1) * sizeof *alt);
    json_t *list = json_array();
    for (const tp_model_key *key = op->model_keys; idx && alt && key->key; key++) {
        const char *now = tp_value_string(tp_value_get(model, key->key));
        for (const char *const *v = key->values; v && *v; v++) {
            if (now && strcmp(now, *v) == 0)
                continue;
            /* the model in force with this one key changed (a model without
             * a table, or out of memory: that alternative is not tried) */
            tp_value *m = model ? tp_value_copy(model) : tp_value_new_table();
            tp_value *value = m ? tp_value_new_string(*v) : NULL;
            if (!value || tp_value_set(m, key->key, value) != 0) {
                tp_value_free(m);
                continue;
            }
            int64_t admitted = admitted_under(op, m, c, out, alt, idx, k);
            tp_value_free(m);
            if (admitted > 0)
                json_array_append_new(list, json_pack("{s:s,s:s,s:I}", "key", key->key, "value", *v, "elements",
                                                      (json_int_t)admitted));
        }
    }
    free(alt);
    free(idx);
    if (json_array_size(list))
        json_object_set_new(result, "admitted_by", list);
    else
        json_decref(list);
}

void tp_admitted_by_text(char *buf, size_t len, const json_t *admitted_by, long long n)
{
    size_t at = 0, i;
    json_t *a;
    buf[0] = 0;
    json_array_foreach((json_t *)admitted_by, i, a)
    {
        long long m = (long long)json_integer_value(json_object_get(a, "elements"));
        const char *key = json_string_value(json_object_get(a, "key")), *value = json_string_value(json_object_get(a, "value"));
        if (!key || !value || at >= len)
            continue;
        if (m >= n)
            at += (size_t)snprintf(buf + at, len - at, "%s--model %s=%s would admit %s", at ? ", " : "; ", key, value,
                                   n == 1 ? "it" : "them");
        else
            at += (size_t)snprintf(buf + at, len - at, "%s--model %s=%s would admit %lld of them", at ? ", " : "; ",
                                   key, value, m);
    }
}

json_t *tp_case_more_accurate(const json_t *case_result, long long *n)
{
    json_t *merged = json_array();
    const char *name;
    json_t *o;
    *n = 0;
    json_object_foreach((json_t *)json_object_get(case_result, "outputs"), name, o)
    {
        *n += (long long)json_integer_value(json_object_get(o, "more_accurate"));
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(o, "admitted_by"), i, a)
        {
            const char *key = json_string_value(json_object_get(a, "key"));
            const char *value = json_string_value(json_object_get(a, "value"));
            json_int_t m = json_integer_value(json_object_get(a, "elements"));
            if (!key || !value)
                continue;
            size_t j;
            json_t *b;
            int found = 0;
            json_array_foreach(merged, j, b)
            {
                if (strcmp(json_string_value(json_object_get(b, "key")), key) == 0 &&
                    strcmp(json_string_value(json_object_get(b, "value")), value) == 0) {
                    json_object_set_new(b, "elements", json_integer(json_integer_value(json_object_get(b, "elements")) + m));
                    found = 1;
                    break;
                }
            }
            if (!found)
                json_array_append_new(merged, json_pack("{s:s,s:s,s:I}", "key", key, "value", value, "elements", m));
        }
    }
    return merged;
}
