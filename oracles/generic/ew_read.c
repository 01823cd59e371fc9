#include "oracles/generic/ew_read.h"

#include "core/tp_expr.h"
#include "oracles/generic/ew_prog.h"

#include <stdio.h>
#include <stdlib.h>

int ew_read_eval(const char *index, const tp_case *c, int64_t rows, int64_t cols, const char *op, const char *where,
                 const char *what, ew_read_vals *v, char *err, size_t errlen)
{
    v->at = NULL;
    const char *names[TP_MAX_DIMS + 2];
    int64_t vals[TP_MAX_DIMS + 2];
    for (int d = 0; d < c->ndims; d++)
        names[d] = c->dim_names[d], vals[d] = c->dims[d];
    names[c->ndims] = "row", names[c->ndims + 1] = "col";
    tp_grammar_error e;
    char cexpr[1024];
    if (ew_read_check(index, c->ndims, names, cexpr, sizeof cexpr, &v->axis, &e) != 0) {
        snprintf(err, errlen, "%s: %s: %s[%s]: %s; expected %s", op, where, what, index, e.what, e.expected);
        return -1;
    }
    const int on_col = v->axis == EW_ON_COL, on_row = v->axis == EW_ON_ROW;
    v->n = on_col ? cols : on_row ? rows : 1;
    if (!(v->at = malloc(sizeof(int64_t) * (size_t)v->n))) {
        snprintf(err, errlen, "%s: out of memory", op);
        return -1;
    }
    for (int64_t j = 0; j < v->n; j++) {
        vals[c->ndims] = on_row ? j : 0, vals[c->ndims + 1] = on_col ? j : 0;
        char why[400];
        if (tp_expr_eval(cexpr, c->ndims + 2, names, vals, &v->at[j], why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s: %s[%s] at %s %lld: %s", op, where, what, index, on_row ? "row" : "col",
                     (long long)j, why);
            free(v->at), v->at = NULL;
            return -1;
        }
    }
    return 0;
}

int ew_index_exact(const ew_read_vals *v, const char *index, const char *op, const char *where, char *err,
                   size_t errlen)
{
    for (int64_t j = 0; j < v->n; j++)
        if (!(v->at[j] >= -(1 << 24) && v->at[j] <= 1 << 24)) {
            snprintf(err, errlen, "%s: %s: index(%s) is %lld at %s %lld; expected an integer within 2^24 (exact in "
                     "binary32)", op, where, index, (long long)v->at[j], v->axis == EW_ON_ROW ? "row" : "col",
                     (long long)j);
            return -1;
        }
    return 0;
}

int ew_int_input_exact(const tp_tensor *T, const char *op, char *err, size_t errlen)
{
    const int32_t *v = T->data;
    for (int64_t i = 0; i < T->numel; i++)
        if (v[i] > 1 << 24 || v[i] < -(1 << 24)) {
            snprintf(err, errlen, "%s: input %s holds %d at element %lld; expected int32 values within 2^24 (read as "
                     "binary32, exactly)", op, T->name, v[i], (long long)i);
            return -1;
        }
    return 0;
}
