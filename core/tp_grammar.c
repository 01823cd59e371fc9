#include "core/tp_grammar.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

char *tp_grammar_quote(const char *text, size_t n, char *out, size_t len)
{
    char q = memchr(text, '\'', n) && !memchr(text, '"', n) ? '"' : '\'';
    size_t o = 0;
    if (len < 8) {
        if (len)
            out[0] = 0;
        return out;
    }
    out[o++] = q;
    for (size_t i = 0; i < n && o + 6 < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\\' || c == (unsigned char)q) {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c == '\n' || c == '\t' || c == '\r') {
            out[o++] = '\\';
            out[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
        } else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o++] = q;
    out[o] = 0;
    return out;
}

int tp_grammar_fail(tp_grammar_error *e, const char *fmt, ...)
{
    if (e->what[0])
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->what, sizeof e->what, fmt, ap);
    va_end(ap);
    return 0;
}

char *tp_grammar_excerpt(const char *text, char *out, size_t len)
{
    size_t n = text ? strlen(text) : 0;
    if (n <= 72)
        snprintf(out, len, "%s", text ? text : "");
    else
        snprintf(out, len, "%.60s... (%zu bytes)", text, n);
    return out;
}
