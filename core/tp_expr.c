/* Shape expressions (core/tp_expr.h): the functions of the language and
 * the evaluation of a plan's expressions. */
#include "core/tp_expr_tree.h"

#include <stdio.h>
#include <string.h>

static const tp_expr_function functions[] = {
    {"ceil_div", 2, "a, b", "tp_ceil_div"},
    {"min", 2, "a, b", "tp_min"},
    {"max", 2, "a, b", "tp_max"},
    {"next_pow2", 1, "a", "tp_next_pow2"},
    {NULL, 0, NULL, NULL},
};

const tp_expr_function *tp_expr_functions(void) { return functions; }

/* ---- evaluation (plans) -------------------------------------------------- */

typedef struct {
    P *p;
    int ndims;
    const char *const *names;
    const int64_t *values;
    char *err;
    size_t errlen;
    int failed;
} E;

static void efail(E *e, const char *at, const char *what)
{
    if (!e->failed)
        snprintf(e->err, e->errlen, "%s at \"%.20s\"", what, at);
    e->failed = 1;
}

/* "integer overflow: 281474976710656 * 65536 is beyond the 64-bit range"
 * (op "-" with one operand: unary minus; a name: a function call). */
static void overflow(E *e, const char *at, const char *op, int64_t a, int64_t b)
{
    char what[160];
    if (strcmp(op, "-") == 0 && a == 0 && b == INT64_MIN)
        snprintf(what, sizeof what, "integer overflow: -(%lld) is beyond the 64-bit range", (long long)b);
    else if (op[0] >= 'a' && op[0] <= 'z')
        snprintf(what, sizeof what, "integer overflow: %s(%lld, %lld) is beyond the 64-bit range", op, (long long)a,
                 (long long)b);
    else
        snprintf(what, sizeof what, "integer overflow: %lld %s %lld is beyond the 64-bit range", (long long)a, op,
                 (long long)b);
    efail(e, at, what);
}

const tp_expr_function *tp_expr_find(const char *name, size_t n, int plan)
{
    if (plan && n > 3 && strncmp(name, "tp_", 3) == 0) {
        name += 3;
        n -= 3;
    }
    for (const tp_expr_function *f = functions; f->name; f++)
        if (strlen(f->name) == n && strncmp(f->name, name, n) == 0)
            return f;
    return NULL;
}

/* "ceil_div(a, b), min(a, b), max(a, b), next_pow2(a)" */
void tp_expr_function_list(char *out, size_t len, int with_args)
{
    size_t n = 0;
    out[0] = 0;
    for (const tp_expr_function *f = functions; f->name && n < len; f++)
        n += (size_t)snprintf(out + n, len - n, with_args ? "%s%s(%s)" : "%s%s", f == functions ? "" : with_args ? ", " : "/",
                              f->name, f->args);
}

static int64_t eval(E *e, int i)
{
    const node *x = &e->p->nodes[i];
    if (e->failed)
        return 0;
    switch (x->kind) {
    case N_NUM:
        return x->value;
    case N_NAME:
        for (int k = 0; k < e->ndims; k++)
            if (strlen(e->names[k]) == x->n && strncmp(e->names[k], x->s, x->n) == 0)
                return e->values[k];
        efail(e, x->s, "unknown dim");
        return 0;
    case N_CALL: {
        int64_t a[2] = {0, 0};
        int n = 0;
        for (int c = x->kid; c >= 0; c = e->p->nodes[c].next, n++)
            if (n < 2)
                a[n] = eval(e, c);
        const tp_expr_function *f = tp_expr_find(x->s, x->n, 1);
        if (!f || f->arity != n) {
            char what[200], list[96];
            tp_expr_function_list(list, sizeof list, 1);
            snprintf(what, sizeof what, "unknown function %.*s or wrong argument count (expected %s)",
                     (int)(x->n < 40 ? x->n : 40), x->s, list);
            efail(e, x->s, what);
            return 0;
        }
        if (strcmp(f->name, "ceil_div") == 0) {
            if (a[1] == 0) {
                efail(e, x->s, "division by zero");
                return 0;
            }
            if (a[0] == INT64_MIN && a[1] == -1) {
                overflow(e, x->s, "ceil_div", a[0], a[1]);
                return 0;
            }
            /* floor division rounded up, right for either sign */
            int64_t q = a[0] / a[1];
            return q + ((a[0] % a[1] != 0) && ((a[0] < 0) == (a[1] < 0)));
        }
        if (strcmp(f->name, "min") == 0)
            return a[0] < a[1] ? a[0] : a[1];
        if (strcmp(f->name, "max") == 0)
            return a[0] > a[1] ? a[0] : a[1];
        if (a[0] > ((int64_t)1 << 62)) { /* next_pow2 */
            efail(e, x->s, "next_pow2 argument above 2^62");
            return 0;
        }
        int64_t v = 1;
        while (v < a[0])
            v <<= 1;
        return v;
    }
    case N_UNARY: {
        int64_t v = eval(e, x->kid);
        if (x->op[0] == '-' && v == INT64_MIN) {
            overflow(e, x->s, "-", 0, v);
            return 0;
        }
        return x->op[0] == '-' ? -v : x->op[0] == '!' ? !v : v;
    }
    case N_BIN: {
        const node *r = &e->p->nodes[e->p->nodes[x->kid].next];
        int64_t a = eval(e, x->kid), b = eval(e, e->p->nodes[x->kid].next);
        const char *op = x->op;
        if ((strcmp(op, "/") == 0 || strcmp(op, "%") == 0) && b == 0 && !e->failed) {
            efail(e, r->s, "division by zero");
            return 0;
        }
        if (e->failed)
            return 0;
        /* checked: a plan's integers are int64, and a wrapped value (or
         * INT64_MIN / -1, which traps) must not pass for a shape */
        int64_t v = 0;
        int over = strcmp(op, "+") == 0   ? __builtin_add_overflow(a, b, &v)
                   : strcmp(op, "-") == 0 ? __builtin_sub_overflow(a, b, &v)
                   : strcmp(op, "*") == 0 ? __builtin_mul_overflow(a, b, &v)
                   : (strcmp(op, "/") == 0 || strcmp(op, "%") == 0) && a == INT64_MIN && b == -1;
        if (over) {
            overflow(e, x->s, op, a, b);
            return 0;
        }
        return strcmp(op, "+") == 0 || strcmp(op, "-") == 0 || strcmp(op, "*") == 0 ? v
               : strcmp(op, "/") == 0  ? a / b
               : strcmp(op, "%") == 0  ? a % b
               : strcmp(op, "<") == 0  ? a < b
               : strcmp(op, "<=") == 0 ? a <= b
               : strcmp(op, ">") == 0  ? a > b
               : strcmp(op, ">=") == 0 ? a >= b
               : strcmp(op, "==") == 0 ? a == b
               : strcmp(op, "!=") == 0 ? a != b
               : strcmp(op, "&&") == 0 ? a && b
                                       : a || b;
    }
    case N_BIG:
        efail(e, x->s, "integer literal too large");
        return 0;
    default: /* contract-only nodes never reach a plan's evaluation */
        efail(e, x->s, "not an integer expression");
        return 0;
    }
}

int tp_expr_eval(const char *expr, int ndims, const char *const *names, const int64_t *values, int64_t *value,
                 char *err, size_t errlen)
{
    P p;
    memset(&p, 0, sizeof p);
    p.text = p.s = expr;
    p.d = PLAN;
    int root = tp_expr_parse(&p);
    if (p.failed) {
        snprintf(err, errlen, "%s at \"%.20s\"", p.msg, p.at);
        return -1;
    }
    E e = {&p, ndims, names, values, err, errlen, 0};
    int64_t v = eval(&e, root);
    if (e.failed)
        return -1;
    *value = v;
    return 0;
}
