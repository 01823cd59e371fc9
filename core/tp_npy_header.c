/* The header of a .npy file (core/tp_npy.h): a Python dict literal such as
 *     {'descr': '<f2', 'fortran_order': False, 'shape': (4, 4), }
 * padded with spaces and ended by a newline. Parsed here with explicit
 * bounds (the header is n bytes, not a C string), by a small
 * recursive-descent reader of just that literal: NumPy reads it with
 * ast.literal_eval, which C has no equivalent of. */
#include "core/tp_npy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *h, *p, *end;
    tp_npy_header *out;
    char *err;
    size_t errlen;
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void skip_space(reader *r)
{
    while (r->p < r->end && is_space(*r->p))
        r->p++;
}

/* "at byte 12 ('xyz...')" or "at the end of the header", for messages. */
static const char *where(const reader *r, char *out, size_t len)
{
    if (r->p >= r->end)
        return snprintf(out, len, "at the end of the header"), out;
    size_t left = (size_t)(r->end - r->p), n = 0;
    char shown[24];
    for (size_t i = 0; i < left && n + 1 < sizeof shown && i < 16; i++)
        shown[n++] = (r->p[i] >= 0x20 && r->p[i] < 0x7f) ? r->p[i] : '?';
    shown[n] = 0;
    snprintf(out, len, "at byte %zu of the header ('%s%s')", (size_t)(r->p - r->h), shown, left > 16 ? "..." : "");
    return out;
}

static int expect(reader *r, char c, const char *what)
{
    skip_space(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return 0;
    }
    char at[80];
    return fail(r, "the header is not a dict literal: expected %s %s", what, where(r, at, sizeof at));
}

/* A quoted string without escapes (NumPy writes none): its bytes in
 * [*s, *s + *n). */
static int string(reader *r, const char **s, size_t *n, const char *what)
{
    skip_space(r);
    if (r->p >= r->end || (*r->p != '\'' && *r->p != '"')) {
        char at[80];
        return fail(r, "the header is not a dict literal: expected %s %s", what, where(r, at, sizeof at));
    }
    char q = *r->p++;
    const char *close = memchr(r->p, q, (size_t)(r->end - r->p));
    if (!close)
        return fail(r, "the header ends inside the string that starts at byte %zu", (size_t)(r->p - 1 - r->h));
    *s = r->p;
    *n = (size_t)(close - r->p);
    r->p = close + 1;
    return 0;
}

static int word(reader *r, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(r->end - r->p) >= n && memcmp(r->p, w, n) == 0) {
        r->p += n;
        return 1;
    }
    return 0;
}

/* Skips a value the reader does not interpret (a structured dtype's list
 * of fields): brackets balanced, strings skipped whole. */
static int skip_value(reader *r)
{
    int depth = 0;
    while (r->p < r->end) {
        char c = *r->p;
        if (c == '\'' || c == '"') {
            const char *s;
            size_t n;
            if (string(r, &s, &n, "a string") != 0)
                return -1;
            continue;
        }
        if (depth == 0 && (c == ',' || c == '}'))
            return 0;
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0)
                break;
            depth--;
        }
        r->p++;
    }
    char at[80];
    return fail(r, "the header is not a dict literal: unbalanced brackets %s", where(r, at, sizeof at));
}

/* 2^40 elements is far beyond any tensor here and keeps every byte count
 * far from wrapping around. */
#define MAX_ELEMENTS ((int64_t)1 << 40)

static int shape(reader *r)
{
    tp_npy_header *o = r->out;
    if (expect(r, '(', "the shape tuple '('") != 0)
        return -1;
    int64_t numel = 1;
    for (;;) {
        skip_space(r);
        if (r->p < r->end && *r->p == ')') {
            r->p++;
            return 0;
        }
        if (r->p >= r->end || *r->p < '0' || *r->p > '9' || o->rank == TP_NPY_MAX_RANK)
            return fail(r, "shape must be up to %d non-negative integers", TP_NPY_MAX_RANK);
        int64_t d = 0;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
            if (d > MAX_ELEMENTS)
                break;
            d = d * 10 + (*r->p++ - '0');
        }
        if (d > MAX_ELEMENTS || (d > 0 && numel > MAX_ELEMENTS / d))
            return fail(r, "shape has more than 2^40 elements");
        o->shape[o->rank++] = d;
        numel *= d;
        skip_space(r);
        if (r->p < r->end && *r->p == ',')
            r->p++;
        else if (r->p >= r->end || *r->p != ')') {
            char at[80];
            return fail(r, "the shape tuple is not integers separated by ',': %s", where(r, at, sizeof at));
        }
    }
}

int tp_npy_header_parse(const char *h, size_t n, tp_npy_header *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    reader r = {h, h, h + n, out, err, errlen};
    const char *nul = memchr(h, 0, n);
    if (nul)
        return fail(&r, "the header holds a NUL byte at byte %zu of %zu (a .npy header is text)", (size_t)(nul - h),
                    n);
    if (expect(&r, '{', "'{'") != 0)
        return -1;
    int seen[3] = {0, 0, 0};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    for (;;) {
        skip_space(&r);
        if (r.p < r.end && *r.p == '}') {
            r.p++;
            break;
        }
        const char *k;
        size_t kn;
        if (string(&r, &k, &kn, "a quoted key or '}'") != 0)
            return -1;
        int key = -1;
        for (int i = 0; i < 3; i++)
            if (strlen(keys[i]) == kn && memcmp(keys[i], k, kn) == 0)
                key = i;
        if (key < 0)
            return fail(&r, "the header has a key '%.*s' (expected only 'descr', 'fortran_order' and 'shape')",
                        (int)(kn < 40 ? kn : 40), k);
        /* NumPy's literal_eval would keep the last one: refused, since
         * two readers could then see two different arrays */
        if (seen[key]++)
            return fail(&r, "the header gives '%s' twice (ambiguous: NumPy would take the last one)", keys[key]);
        if (expect(&r, ':', "':' after the key") != 0)
            return -1;
        skip_space(&r);
        if (r.p >= r.end)
            return fail(&r, "the header ends before the value of '%s'", keys[key]);
        if (key == 0) {
            if (r.p < r.end && (*r.p == '\'' || *r.p == '"')) {
                const char *s;
                size_t sn;
                if (string(&r, &s, &sn, "a dtype string") != 0)
                    return -1;
                snprintf(out->descr, sizeof out->descr, "%.*s", (int)(sn < sizeof out->descr - 1 ? sn : sizeof out->descr - 1), s);
            } else {
                const char *s = r.p;
                if (skip_value(&r) != 0)
                    return -1;
                size_t sn = (size_t)(r.p - s);
                snprintf(out->descr, sizeof out->descr, "%.*s", (int)(sn < sizeof out->descr - 1 ? sn : sizeof out->descr - 1), s);
                out->descr_not_string = 1;
            }
            out->have_descr = 1;
        } else if (key == 1) {
            if (word(&r, "True"))
                out->fortran_order = 1;
            else if (!word(&r, "False")) {
                char at[80];
                return fail(&r, "fortran_order is neither True nor False %s", where(&r, at, sizeof at));
            }
            out->have_fortran_order = 1;
        } else {
            if (shape(&r) != 0)
                return -1;
            out->have_shape = 1;
        }
        skip_space(&r);
        if (r.p < r.end && *r.p == ',')
            r.p++;
        else if (r.p >= r.end || *r.p != '}') {
            char at[80];
            return fail(&r, "the header is not a dict literal: expected ',' or '}' %s", where(&r, at, sizeof at));
        }
    }
    skip_space(&r);
    if (r.p < r.end) {
        char at[80];
        return fail(&r, "text after the header dict %s (expected only the padding spaces and a newline)",
                    where(&r, at, sizeof at));
    }
    return 0;
}
