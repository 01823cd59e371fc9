#define _POSIX_C_SOURCE 200809L /* strdup */
#include "core/tp_value.h"

#include <stdlib.h>
#include <string.h>

const tp_value *tp_value_get(const tp_value *table, const char *key)
{
    if (!table || table->kind != TP_VALUE_TABLE)
        return NULL;
    for (int i = 0; i < table->n; i++)
        if (strcmp(table->keys[i], key) == 0)
            return &table->items[i];
    return NULL;
}

const char *tp_value_string(const tp_value *v) { return v && v->kind == TP_VALUE_STRING ? v->string : NULL; }
int tp_value_is_integer(const tp_value *v) { return v && v->kind == TP_VALUE_INTEGER; }
int64_t tp_value_integer(const tp_value *v) { return tp_value_is_integer(v) ? v->integer : 0; }
int tp_value_is_bool(const tp_value *v) { return v && v->kind == TP_VALUE_BOOL; }
int tp_value_is_true(const tp_value *v) { return tp_value_is_bool(v) && v->integer; }
int tp_value_is_table(const tp_value *v) { return v && v->kind == TP_VALUE_TABLE; }

const char *tp_value_kind_name(const tp_value *v)
{
    if (!v)
        return "missing";
    switch (v->kind) {
    case TP_VALUE_STRING:
        return "a string";
    case TP_VALUE_INTEGER:
        return "an integer";
    case TP_VALUE_REAL:
        return "a real";
    case TP_VALUE_BOOL:
        return "a boolean";
    case TP_VALUE_TABLE:
        return "a table";
    case TP_VALUE_ARRAY:
        return "an array";
    }
    return "unknown";
}

/* Items are held by value: a tree is one allocation per table or array. */
void tp_value_clear(tp_value *v)
{
    free(v->string);
    for (int i = 0; i < v->n; i++) {
        if (v->keys)
            free(v->keys[i]);
        tp_value_clear(&v->items[i]);
    }
    free(v->keys);
    free(v->items);
    memset(v, 0, sizeof *v);
}

void tp_value_free(tp_value *v)
{
    if (!v)
        return;
    tp_value_clear(v);
    free(v);
}

tp_value *tp_value_new_string(const char *s)
{
    tp_value *v = calloc(1, sizeof *v);
    if (v && !(v->string = strdup(s))) {
        free(v);
        return NULL;
    }
    if (v)
        v->kind = TP_VALUE_STRING;
    return v;
}

tp_value *tp_value_new_table(void)
{
    tp_value *v = calloc(1, sizeof *v);
    if (v)
        v->kind = TP_VALUE_TABLE;
    return v;
}

/* Deep copy of *from into *to (zeroed on failure). 0 or -1. */
static int copy_into(tp_value *to, const tp_value *from)
{
    memset(to, 0, sizeof *to);
    to->kind = from->kind;
    to->integer = from->integer;
    to->real = from->real;
    if (from->string && !(to->string = strdup(from->string)))
        return -1;
    if (from->n == 0)
        return 0;
    to->items = calloc((size_t)from->n, sizeof *to->items);
    if (!to->items)
        goto fail;
    if (from->keys && !(to->keys = calloc((size_t)from->n, sizeof *to->keys)))
        goto fail;
    for (int i = 0; i < from->n; i++) {
        to->n = i + 1;
        if ((to->keys && !(to->keys[i] = strdup(from->keys[i]))) || copy_into(&to->items[i], &from->items[i]) != 0)
            goto fail;
    }
    return 0;
fail:
    tp_value_clear(to);
    return -1;
}

tp_value *tp_value_copy(const tp_value *v)
{
    tp_value *c = v ? malloc(sizeof *c) : NULL;
    if (c && copy_into(c, v) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

int tp_value_set(tp_value *t, const char *key, tp_value *v)
{
    if (!t || t->kind != TP_VALUE_TABLE) {
        tp_value_free(v);
        return -1;
    }
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->keys[i], key) == 0) {
            tp_value_clear(&t->items[i]);
            t->items[i] = *v;
            free(v);
            return 0;
        }
    char **keys = realloc(t->keys, (size_t)(t->n + 1) * sizeof *keys);
    if (keys)
        t->keys = keys;
    tp_value *items = keys ? realloc(t->items, (size_t)(t->n + 1) * sizeof *items) : NULL;
    if (items)
        t->items = items;
    char *k = items ? strdup(key) : NULL;
    if (!k) {
        tp_value_free(v);
        return -1;
    }
    t->keys[t->n] = k;
    t->items[t->n++] = *v;
    free(v);
    return 0;
}
