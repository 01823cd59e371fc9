/* A typed value tree: the [model] table of a contract (strings, numbers,
 * booleans, nested tables such as tanhf_ulp.cuda), as the ops read it.
 * Integers and reals stay apart, as in TOML and JSON, because an op may
 * accept only an integer (an ulp count). Tables keep their keys in the
 * order they were read, so a model prints back as it was written. */
#ifndef TP_VALUE_H
#define TP_VALUE_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TP_VALUE_STRING,
    TP_VALUE_INTEGER,
    TP_VALUE_REAL,
    TP_VALUE_BOOL,
    TP_VALUE_TABLE,
    TP_VALUE_ARRAY,
} tp_value_kind;

typedef struct tp_value tp_value;
struct tp_value {
    tp_value_kind kind;
    char *string;     /* TP_VALUE_STRING */
    int64_t integer;  /* TP_VALUE_INTEGER; TP_VALUE_BOOL: 0 or 1 */
    double real;      /* TP_VALUE_REAL */
    int n;            /* TP_VALUE_TABLE, TP_VALUE_ARRAY: number of entries */
    char **keys;      /* TP_VALUE_TABLE: n keys, in order */
    tp_value *items;  /* TP_VALUE_TABLE, TP_VALUE_ARRAY: n values */
};

/* Lookups; each takes NULL (an absent value) and gives NULL, 0 or false
 * for a value of another kind, so `tp_value_string(tp_value_get(m, k))`
 * reads a key that may be missing or mistyped. */
const tp_value *tp_value_get(const tp_value *table, const char *key);
const char *tp_value_string(const tp_value *v);
int tp_value_is_integer(const tp_value *v);
int64_t tp_value_integer(const tp_value *v);
int tp_value_is_bool(const tp_value *v);
int tp_value_is_true(const tp_value *v);
int tp_value_is_table(const tp_value *v);
/* "a string", "an integer", "a real", "a boolean", "a table", "an array",
 * "missing": for messages. */
const char *tp_value_kind_name(const tp_value *v);

/* Constructors (NULL when out of memory) and the deep copy and release
 * of a tree. */
tp_value *tp_value_new_string(const char *s);
tp_value *tp_value_new_table(void);
tp_value *tp_value_copy(const tp_value *v);
void tp_value_free(tp_value *v);
/* Frees what v owns but not v itself (a value held inside another, or on
 * the stack), leaving it an empty string-less value. */
void tp_value_clear(tp_value *v);
/* Sets `key` of a table to *v, taking over its contents (v itself is
 * freed): an existing key keeps its place, a new one goes last. 0, or -1
 * when t is not a table or memory runs out (v is freed either way). */
int tp_value_set(tp_value *t, const char *key, tp_value *v);

#ifdef __cplusplus
}
#endif
#endif
