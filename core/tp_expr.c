#include "core/tp_expr.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *s;
    int ndims;
    const char *const *names;
    const int64_t *values;
    char *err;
    size_t errlen;
    int failed;
} P;

static int64_t expr_or(P *p);

static void fail(P *p, const char *what)
{
    if (!p->failed)
        snprintf(p->err, p->errlen, "%s at \"%.20s\"", what, p->s);
    p->failed = 1;
}

static void ws(P *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

static int accept(P *p, const char *tok)
{
    ws(p);
    size_t n = strlen(tok);
    if (strncmp(p->s, tok, n) != 0)
        return 0;
    p->s += n;
    return 1;
}

static int64_t ceil_div(P *p, int64_t a, int64_t b)
{
    if (b == 0) {
        fail(p, "division by zero");
        return 0;
    }
    /* floor division rounded up, right for either sign */
    int64_t q = a / b;
    return q + ((a % b != 0) && ((a < 0) == (b < 0)));
}

static int64_t call(P *p, const char *name, size_t n)
{
    int64_t args[2] = {0, 0};
    int nargs = 0;
    if (!accept(p, "(")) {
        fail(p, "expected '('");
        return 0;
    }
    do {
        if (nargs == 2) {
            fail(p, "too many arguments");
            return 0;
        }
        args[nargs++] = expr_or(p);
    } while (accept(p, ","));
    if (!accept(p, ")"))
        fail(p, "expected ')'");
#define IS(lit) (n == strlen(lit) && strncmp(name, lit, n) == 0)
    if ((IS("ceil_div") || IS("tp_ceil_div")) && nargs == 2)
        return ceil_div(p, args[0], args[1]);
    if ((IS("min") || IS("tp_min")) && nargs == 2)
        return args[0] < args[1] ? args[0] : args[1];
    if ((IS("max") || IS("tp_max")) && nargs == 2)
        return args[0] > args[1] ? args[0] : args[1];
    if ((IS("next_pow2") || IS("tp_next_pow2")) && nargs == 1) {
        if (args[0] > ((int64_t)1 << 62)) {
            fail(p, "next_pow2 argument above 2^62");
            return 0;
        }
        int64_t v = 1;
        while (v < args[0])
            v <<= 1;
        return v;
    }
#undef IS
    char what[160];
    snprintf(what, sizeof what,
             "unknown function %.*s or wrong argument count (expected ceil_div(a,b), min(a,b), max(a,b), next_pow2(a))",
             (int)(n < 40 ? n : 40), name);
    fail(p, what);
    return 0;
}

static int64_t primary(P *p)
{
    ws(p);
    if (accept(p, "(")) {
        int64_t v = expr_or(p);
        if (!accept(p, ")"))
            fail(p, "expected ')'");
        return v;
    }
    if (accept(p, "-"))
        return -primary(p);
    if (accept(p, "!"))
        return !primary(p);
    if (isdigit((unsigned char)*p->s)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*p->s)) {
            if (v > (INT64_MAX - 9) / 10) {
                fail(p, "integer literal too large");
                return 0;
            }
            v = v * 10 + (*p->s++ - '0');
        }
        return v;
    }
    if (isalpha((unsigned char)*p->s) || *p->s == '_') {
        const char *name = p->s;
        while (isalnum((unsigned char)*p->s) || *p->s == '_')
            p->s++;
        size_t n = (size_t)(p->s - name);
        ws(p);
        if (*p->s == '(')
            return call(p, name, n);
        for (int i = 0; i < p->ndims; i++)
            if (strlen(p->names[i]) == n && strncmp(p->names[i], name, n) == 0)
                return p->values[i];
        p->s = name;
        fail(p, "unknown dim");
        return 0;
    }
    fail(p, "expected a number, a dim or '('");
    return 0;
}

static int64_t term(P *p)
{
    int64_t v = primary(p);
    for (;;) {
        if (accept(p, "*"))
            v *= primary(p);
        else if (accept(p, "/") || accept(p, "%")) {
            char op = p->s[-1];
            int64_t r = primary(p);
            if (r == 0) {
                fail(p, "division by zero");
                return 0;
            }
            v = op == '/' ? v / r : v % r;
        } else
            return v;
    }
}

static int64_t sum(P *p)
{
    int64_t v = term(p);
    for (;;) {
        if (accept(p, "+"))
            v += term(p);
        else if (accept(p, "-"))
            v -= term(p);
        else
            return v;
    }
}

static int64_t relation(P *p)
{
    int64_t v = sum(p);
    for (;;) {
        if (accept(p, "<="))
            v = v <= sum(p);
        else if (accept(p, ">="))
            v = v >= sum(p);
        else if (accept(p, "<"))
            v = v < sum(p);
        else if (accept(p, ">"))
            v = v > sum(p);
        else
            return v;
    }
}

/* == and != bind more loosely than < and >, as in C. */
static int64_t equality(P *p)
{
    int64_t v = relation(p);
    for (;;) {
        if (accept(p, "=="))
            v = v == relation(p);
        else if (accept(p, "!="))
            v = v != relation(p);
        else
            return v;
    }
}

static int64_t expr_and(P *p)
{
    int64_t v = equality(p);
    while (accept(p, "&&")) {
        int64_t r = equality(p);
        v = v && r;
    }
    return v;
}

static int64_t expr_or(P *p)
{
    int64_t v = expr_and(p);
    while (accept(p, "||")) {
        int64_t r = expr_and(p);
        v = v || r;
    }
    return v;
}

int tp_expr_eval(const char *expr, int ndims, const char *const *names, const int64_t *values,
                 int64_t *value, char *err, size_t errlen)
{
    P p = {expr, ndims, names, values, err, errlen, 0};
    int64_t v = expr_or(&p);
    ws(&p);
    if (!p.failed && *p.s)
        fail(&p, "unexpected text");
    if (p.failed)
        return -1;
    *value = v;
    return 0;
}
