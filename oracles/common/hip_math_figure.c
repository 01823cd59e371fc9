#include "oracles/common/hip_math_figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define METRIC "ulp_difference_of_max_absolute_error"

int tp_hip_figure_present(const tp_value *entry)
{
    return tp_value_is_table(entry);
}

static int read_count(const tp_value *t, const char *name, const char *key, int *out, char *err, size_t errlen)
{
    const tp_value *v = tp_value_get(t, key);
    if (!tp_value_is_integer(v) || tp_value_integer(v) < 0 || tp_value_integer(v) > 64) {
        snprintf(err, errlen, "%s.%s is %s; expected an integer ulp count in 0 .. 64", name, key,
                 tp_value_is_integer(v) ? "out of range" : tp_value_kind_name(v));
        return -1;
    }
    *out = (int)tp_value_integer(v);
    return 0;
}

static int read_text(const tp_value *t, const char *name, const char *key, const char *what, char *err,
                     size_t errlen)
{
    const char *s = tp_value_string(tp_value_get(t, key));
    if (!s || !*s) {
        snprintf(err, errlen, "%s.%s is %s; expected %s", name, key, s ? "empty" : tp_value_kind_name(tp_value_get(t, key)),
                 what);
        return -1;
    }
    return 0;
}

static int number(const tp_value *v, double *out)
{
    if (!v)
        return -1;
    if (v->kind == TP_VALUE_INTEGER)
        *out = (double)v->integer;
    else if (v->kind == TP_VALUE_REAL)
        *out = v->real;
    else
        return -1;
    return isfinite(*out) ? 0 : -1;
}

int tp_hip_figure_read(const tp_value *entry, const char *name, tp_hip_figure *f, char *err, size_t errlen)
{
    if (!tp_value_is_table(entry)) {
        snprintf(err, errlen, "%s is %s; expected a table {figure, metric, range, source, host_ulp, host_source}",
                 name, tp_value_kind_name(entry));
        return -1;
    }
    static const char *const known[] = {"figure", "metric", "range", "source", "host_ulp", "host_source", NULL};
    for (int i = 0; i < entry->n; i++) {
        int ok = 0;
        for (int j = 0; known[j]; j++)
            ok |= strcmp(entry->keys[i], known[j]) == 0;
        if (!ok) {
            snprintf(err, errlen, "%s.%s is an unknown key; expected only figure, metric, range, source, host_ulp, "
                                  "host_source", name, entry->keys[i]);
            return -1;
        }
    }
    if (read_count(entry, name, "figure", &f->figure, err, errlen) ||
        read_count(entry, name, "host_ulp", &f->host_ulp, err, errlen))
        return -1;
    const char *metric = tp_value_string(tp_value_get(entry, "metric"));
    if (!metric || strcmp(metric, METRIC) != 0) {
        snprintf(err, errlen, "%s.metric is %s; expected \"" METRIC "\" (the only reading of the HIP table the "
                              "checker turns into a bound)", name, metric ? metric : tp_value_kind_name(tp_value_get(entry, "metric")));
        return -1;
    }
    const tp_value *r = tp_value_get(entry, "range");
    if (!r || r->kind != TP_VALUE_ARRAY || r->n != 2 || number(&r->items[0], &f->range_lo) ||
        number(&r->items[1], &f->range_hi) || !(f->range_lo < f->range_hi)) {
        snprintf(err, errlen, "%s.range is not a valid range; expected [lo, hi], two finite numbers with lo < hi "
                              "(the documented test range)", name);
        return -1;
    }
    if (read_text(entry, name, "source", "the document, its version and URL", err, errlen) ||
        read_text(entry, name, "host_source", "where the host library's error figure comes from", err, errlen))
        return -1;
    return 0;
}

double tp_binary32_spacing_above(double M)
{
    if (M < 0x1p-126)
        return 0x1p-149;
    int e;
    frexp(M, &e); /* M = m 2^e, m in [0.5, 1): 2^(e-1) <= M < 2^e */
    return ldexp(1.0, e - 1 - 23);
}

double tp_hip_figure_abs(const tp_hip_figure *f, double M)
{
    return (double)(f->figure + f->host_ulp) * tp_binary32_spacing_above(M);
}

int tp_hip_figure_covers(const tp_hip_figure *f, double lo, double hi)
{
    return lo >= f->range_lo && hi <= f->range_hi;
}
