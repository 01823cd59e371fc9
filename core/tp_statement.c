#include "core/tp_statement.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int tp_say(tp_statements *out, const tp_statement *st, ...)
{
    int k = st->kind == TP_NON_CLAIM;
    va_list ap;
    va_start(ap, st);
    int len = vsnprintf(NULL, 0, st->text, ap);
    va_end(ap);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!text)
        return -1;
    va_start(ap, st);
    vsnprintf(text, (size_t)len + 1, st->text, ap);
    va_end(ap);
    if (out->n[k] == out->cap[k]) {
        int cap = out->cap[k] ? 2 * out->cap[k] : 8;
        tp_said *grown = realloc(out->list[k], (size_t)cap * sizeof *grown);
        if (!grown) {
            free(text);
            return -1;
        }
        out->list[k] = grown;
        out->cap[k] = cap;
    }
    out->list[k][out->n[k]++] = (tp_said){st->id, text};
    return 0;
}

void tp_say_all(tp_statements *out, const tp_statement *const *list)
{
    for (int i = 0; list && list[i]; i++)
        tp_say(out, list[i]);
}

void tp_statements_free(tp_statements *s)
{
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < s->n[k]; i++)
            free(s->list[k][i].text);
        free(s->list[k]);
        s->list[k] = NULL;
        s->n[k] = s->cap[k] = 0;
    }
}

int tp_statement_id_ok(const char *id)
{
    if (!id || !*id)
        return 0;
    int word = 0, words = 0;
    for (const char *p = id; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')
            word++;
        else if (*p == '.' && word) {
            words++;
            word = 0;
        } else
            return 0;
    }
    return word > 0 && words >= 1; /* at least two words: a subject and what is said of it */
}
