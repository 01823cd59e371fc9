#include "core/tp_expr.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tp_expr_function functions[] = {
    {"ceil_div", 2, "a, b", "tp_ceil_div"},
    {"min", 2, "a, b", "tp_min"},
    {"max", 2, "a, b", "tp_max"},
    {"next_pow2", 1, "a", "tp_next_pow2"},
    {NULL, 0, NULL, NULL},
};

const tp_expr_function *tp_expr_functions(void) { return functions; }

/* ---- tokens -------------------------------------------------------------
 * One lexer for both spellings. It also knows the tokens neither accepts
 * (** // & | ^ << >> ~ @ . floats, strings), so that a contract using one
 * is told which operator or constant is not allowed. */

enum tok { T_END, T_INT, T_FLOAT, T_STR, T_NAME, T_OP, T_BAD };

typedef struct {
    enum tok t;
    const char *s;
    size_t n;
} token;

static const char *const op_tokens[] = {"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "<", ">", "+", "-", "*",
                                        "/",  "%",  "&",  "|",  "^",  "~",  "!",  "@",  "(",  ")",  ",", ".", "[", "]", NULL};

static token lex(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    token t = {T_END, s, 0};
    const char *p = s;
    if (!*s)
        return t;
    if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        int is_float = 0;
        while (isdigit((unsigned char)*p))
            p++;
        if (*p == '.') {
            is_float = 1;
            for (p++; isdigit((unsigned char)*p);)
                p++;
        }
        if ((*p == 'e' || *p == 'E') &&
            (isdigit((unsigned char)p[1]) || ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
            is_float = 1;
            for (p += 2; isdigit((unsigned char)*p);)
                p++;
        }
        t.t = is_float ? T_FLOAT : T_INT;
        /* 0x10, 1_000, 2j, 1.real: not numbers this language writes */
        if (isalnum((unsigned char)*p) || *p == '_' || *p == '.') {
            while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
                p++;
            t.t = T_BAD;
        }
        t.n = (size_t)(p - s);
        return t;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        t.t = T_NAME;
        t.n = (size_t)(p - s);
        return t;
    }
    if (*s == '\'' || *s == '"') {
        const char *e = strchr(s + 1, *s);
        t.t = e ? T_STR : T_BAD;
        t.n = e ? (size_t)(e + 1 - s) : strlen(s);
        return t;
    }
    for (int i = 0; op_tokens[i]; i++)
        if (strncmp(s, op_tokens[i], strlen(op_tokens[i])) == 0) {
            t.t = T_OP;
            t.n = strlen(op_tokens[i]);
            return t;
        }
    t.t = T_BAD;
    t.n = 1;
    while ((s[t.n] & 0xc0) == 0x80) /* the whole UTF-8 character */
        t.n++;
    return t;
}

static int is_op(token t, const char *op) { return t.t == T_OP && t.n == strlen(op) && strncmp(t.s, op, t.n) == 0; }
static int is_word(token t, const char *w) { return t.t == T_NAME && t.n == strlen(w) && strncmp(t.s, w, t.n) == 0; }

/* ---- syntax tree -------------------------------------------------------- */

enum kind { N_NUM, N_BIG, N_FLOAT, N_STR, N_NAME, N_CALL, N_ATTR, N_UNARY, N_BIN, N_CMP, N_BOOL };

typedef struct {
    enum kind kind;
    const char *op;   /* N_UNARY, N_BIN: the operator as written; N_BOOL: "&&" or "||" */
    const char *link; /* an operand of a N_CMP chain after the first: the comparison before it */
    const char *s;    /* where the node's text starts; its token (number, name) is s[0..n) */
    size_t n;
    int64_t value; /* N_NUM */
    int kid, next; /* first child and next sibling, -1 for none */
} node;

enum dialect { CONTRACT, PLAN };

#define MAX_NODES 256

typedef struct {
    const char *text, *s;
    enum dialect d;
    node nodes[MAX_NODES];
    int n;
    int failed;
    char msg[320];   /* the first syntax error */
    const char *at;  /* where it was found */
} P;

static void syntax(P *p, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void syntax(P *p, const char *at, const char *fmt, ...)
{
    if (p->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
    p->failed = 1;
    p->at = at;
}

static token peek(P *p) { return lex(p->s); }
static void take(P *p, token t) { p->s = t.s + t.n; }

static int accept_op(P *p, const char *op)
{
    token t = peek(p);
    if (!is_op(t, op))
        return 0;
    take(p, t);
    return 1;
}

static int new_node(P *p, enum kind k, const char *s, size_t n)
{
    if (p->n == MAX_NODES) {
        syntax(p, s, "expression too long (more than %d terms)", MAX_NODES);
        return 0;
    }
    node *x = &p->nodes[p->n];
    memset(x, 0, sizeof *x);
    x->kind = k;
    x->s = s;
    x->n = n;
    x->kid = x->next = -1;
    return p->n++;
}

static void add_kid(P *p, int parent, int kid)
{
    if (p->failed)
        return;
    int *slot = &p->nodes[parent].kid;
    while (*slot >= 0)
        slot = &p->nodes[*slot].next;
    *slot = kid;
}

static int nkids(const P *p, int i)
{
    int k = 0;
    for (int c = p->nodes[i].kid; c >= 0; c = p->nodes[c].next)
        k++;
    return k;
}

static int binary(P *p, const char *op, const char *s, int l, int r)
{
    int b = new_node(p, N_BIN, s, 0);
    p->nodes[b].op = op;
    add_kid(p, b, l);
    add_kid(p, b, r);
    return b;
}

/* The operator token t if it is one of ops, else NULL. */
static const char *one_of(token t, const char *const *ops)
{
    for (int i = 0; ops[i]; i++)
        if (is_op(t, ops[i]))
            return ops[i];
    return NULL;
}

/* " at 'REST'" for a contract's message; plans' messages get the place
 * from tp_expr_eval, which appends ` at "REST"` to every message. */
static const char *where(const P *p, const char *s, char *out, size_t len)
{
    out[0] = 0;
    if (p->d == PLAN)
        return out;
    if (!*s)
        return snprintf(out, len, " at the end"), out;
    char q[64];
    size_t n = strlen(s);
    snprintf(out, len, " at %s%s", tp_grammar_quote(s, n > 24 ? 24 : n, q, sizeof q), n > 24 ? "..." : "");
    return out;
}

/* A token where an operand was expected. */
static void expected_operand(P *p, token t)
{
    char at[96];
    where(p, t.s, at, sizeof at);
    if (t.t == T_BAD && isdigit((unsigned char)*t.s))
        syntax(p, t.s, "invalid number '%.*s'", (int)t.n, t.s);
    else if (t.t == T_BAD)
        syntax(p, t.s, "unexpected character '%.*s'", (int)t.n, t.s);
    else if (p->d == CONTRACT && is_op(t, "!"))
        syntax(p, t.s, "'!' is not an operator of the contract language%s", at);
    else
        syntax(p, t.s, "expected a number, a dim or '('%s", at);
}

static int c_or(P *p);
static int p_or(P *p);
static int top(P *p) { return p->d == CONTRACT ? c_or(p) : p_or(p); }

static int primary(P *p)
{
    token t = peek(p);
    if (p->failed)
        return 0;
    if (t.t == T_INT) {
        take(p, t);
        int x = new_node(p, N_NUM, t.s, t.n);
        if (t.n > 1 && t.s[0] == '0') {
            syntax(p, t.s, "leading zero in '%.*s' (C would read it as octal)", (int)t.n, t.s);
            return x;
        }
        int64_t v = 0;
        for (size_t i = 0; i < t.n; i++) {
            if (v > (INT64_MAX - (t.s[i] - '0')) / 10) {
                p->nodes[x].kind = N_BIG;
                break;
            }
            v = v * 10 + (t.s[i] - '0');
        }
        p->nodes[x].value = v;
        return x;
    }
    if (p->d == CONTRACT && (t.t == T_FLOAT || t.t == T_STR)) {
        take(p, t);
        return new_node(p, t.t == T_FLOAT ? N_FLOAT : N_STR, t.s, t.n);
    }
    if (t.t == T_NAME && !(p->d == CONTRACT && (is_word(t, "and") || is_word(t, "or") || is_word(t, "not")))) {
        take(p, t);
        if (!accept_op(p, "("))
            return new_node(p, N_NAME, t.s, t.n);
        int call = new_node(p, N_CALL, t.s, t.n);
        if (accept_op(p, ")"))
            return call;
        do
            add_kid(p, call, top(p));
        while (!p->failed && accept_op(p, ","));
        if (!p->failed && !accept_op(p, ")")) {
            char at[96];
            syntax(p, peek(p).s, "expected ',' or ')' in the arguments of %.*s%s", (int)t.n, t.s,
                   where(p, peek(p).s, at, sizeof at));
        }
        return call;
    }
    if (is_op(t, "(")) {
        take(p, t);
        int x = top(p);
        if (!p->failed && !accept_op(p, ")")) {
            char at[96];
            syntax(p, peek(p).s, "expected ')'%s", where(p, peek(p).s, at, sizeof at));
        }
        return x;
    }
    expected_operand(p, t);
    return 0;
}

/* Contracts: `.name` after an operand parses, so the check can say that
 * attributes are not allowed (M.real). */
static int postfix(P *p)
{
    int x = primary(p);
    while (p->d == CONTRACT && !p->failed) {
        token t = peek(p);
        if (!is_op(t, "."))
            return x;
        take(p, t);
        token name = peek(p);
        if (name.t != T_NAME) {
            expected_operand(p, name);
            return x;
        }
        take(p, name);
        int a = new_node(p, N_ATTR, t.s, (size_t)(name.s + name.n - t.s));
        add_kid(p, a, x);
        x = a;
    }
    return x;
}

static int unary(P *p);

static int power(P *p)
{
    int x = postfix(p);
    if (p->d == CONTRACT && !p->failed) {
        token t = peek(p);
        if (is_op(t, "**")) {
            take(p, t);
            return binary(p, "**", p->nodes[x].s, x, unary(p));
        }
    }
    return x;
}

static int unary(P *p)
{
    static const char *const contract_ops[] = {"-", "+", "~", NULL}, *const plan_ops[] = {"-", "+", "!", NULL};
    token t = peek(p);
    const char *op = one_of(t, p->d == CONTRACT ? contract_ops : plan_ops);
    if (!op || p->failed)
        return power(p);
    take(p, t);
    int u = new_node(p, N_UNARY, t.s, 0);
    p->nodes[u].op = op;
    add_kid(p, u, unary(p));
    return u;
}

/* A left-associative level of binary operators. */
static int level(P *p, int (*sub)(P *), const char *const *ops)
{
    int x = sub(p);
    for (;;) {
        token t = peek(p);
        const char *op = p->failed ? NULL : one_of(t, ops);
        if (!op)
            return x;
        take(p, t);
        x = binary(p, op, p->nodes[x].s, x, sub(p));
    }
}

static int term(P *p)
{
    /* // and @ parse in contracts only to be refused by name */
    static const char *const contract_ops[] = {"*", "//", "/", "%", "@", NULL}, *const plan_ops[] = {"*", "/", "%", NULL};
    return level(p, unary, p->d == CONTRACT ? contract_ops : plan_ops);
}

static int sum(P *p)
{
    static const char *const ops[] = {"+", "-", NULL};
    return level(p, term, ops);
}

/* ---- the contract spelling (Python's precedence: comparisons chain) ---- */

static int c_bits(P *p)
{
    static const char *const ops[] = {"<<", ">>", "&", "|", "^", NULL};
    return level(p, sum, ops);
}

static int c_cmp(P *p)
{
    static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">", NULL};
    int first = c_bits(p);
    if (p->failed || !one_of(peek(p), ops))
        return first;
    int c = new_node(p, N_CMP, p->nodes[first].s, 0);
    add_kid(p, c, first);
    token t;
    const char *op;
    while (!p->failed && (op = one_of(t = peek(p), ops))) {
        take(p, t);
        int r = c_bits(p);
        p->nodes[r].link = op;
        add_kid(p, c, r);
    }
    return c;
}

static int c_not(P *p)
{
    token t = peek(p);
    if (p->failed || !is_word(t, "not"))
        return c_cmp(p);
    take(p, t);
    int u = new_node(p, N_UNARY, t.s, 0);
    p->nodes[u].op = "not";
    add_kid(p, u, c_not(p));
    return u;
}

/* `and` / `or` chains: one node for a whole chain, as Python's BoolOp. */
static int chain(P *p, int (*sub)(P *), const char *word, const char *c_op)
{
    int first = sub(p);
    if (p->failed || !is_word(peek(p), word))
        return first;
    int b = new_node(p, N_BOOL, p->nodes[first].s, 0);
    p->nodes[b].op = c_op;
    add_kid(p, b, first);
    token t;
    while (!p->failed && is_word(t = peek(p), word)) {
        take(p, t);
        add_kid(p, b, sub(p));
    }
    return b;
}

static int c_and(P *p) { return chain(p, c_not, "and", "&&"); }
static int c_or(P *p) { return chain(p, c_and, "or", "||"); }

/* ---- the plan spelling (C's precedence) --------------------------------- */

static int p_rel(P *p)
{
    static const char *const ops[] = {"<=", ">=", "<", ">", NULL};
    return level(p, sum, ops);
}

static int p_eq(P *p)
{
    static const char *const ops[] = {"==", "!=", NULL};
    return level(p, p_rel, ops);
}

static int p_and(P *p)
{
    static const char *const ops[] = {"&&", NULL};
    return level(p, p_eq, ops);
}

static int p_or(P *p)
{
    static const char *const ops[] = {"||", NULL};
    return level(p, p_and, ops);
}

static int parse(P *p)
{
    int root = top(p);
    token t = peek(p);
    if (!p->failed && t.t != T_END) {
        char at[96];
        where(p, t.s, at, sizeof at);
        if (p->d == CONTRACT && (is_op(t, "&&") || is_op(t, "||")))
            syntax(p, t.s, "'%.2s' is written '%s' in a contract", t.s, is_op(t, "&&") ? "and" : "or");
        else if (t.t == T_BAD)
            expected_operand(p, t);
        else
            syntax(p, t.s, "unexpected text%s", at);
    }
    return root;
}

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

static const tp_expr_function *find_function(const char *name, size_t n, int plan)
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
static void function_list(char *out, size_t len, int with_args)
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
        const tp_expr_function *f = find_function(x->s, x->n, 1);
        if (!f || f->arity != n) {
            char what[200], list[96];
            function_list(list, sizeof list, 1);
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
        return strcmp(op, "+") == 0    ? a + b
               : strcmp(op, "-") == 0  ? a - b
               : strcmp(op, "*") == 0  ? a * b
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
    int root = parse(&p);
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

/* ---- checking a contract's expression ------------------------------------ */

typedef struct {
    P *p;
    tp_expr_kind kind;
    int ndims;
    const char *const *dims;
    const char *q; /* the whole text, quoted */
    tp_grammar_error *e;
} W;

/* The same checks, in the same order (the tree in pre-order), as the
 * generator made when it walked Python's ast of the text, so a contract
 * gets the message it got then. cond: a condition is expected here. */
static int walk(W *w, int i, int cond)
{
    const node *x = &w->p->nodes[i];
    tp_grammar_error *e = w->e;
    if (x->kind == N_BOOL) {
        if (!cond)
            return tp_grammar_fail(e, "'and'/'or' inside an integer expression in %s", w->q), -1;
        for (int c = x->kid; c >= 0; c = w->p->nodes[c].next)
            if (walk(w, c, 1))
                return -1;
        return 0;
    }
    if (x->kind == N_CMP) {
        if (!cond)
            return tp_grammar_fail(e, w->kind == TP_EXPR_CONDITION ? "comparison inside an integer expression in %s"
                                                                   : "comparison in %s",
                                   w->q),
                   -1;
        for (int c = x->kid; c >= 0; c = w->p->nodes[c].next)
            if (walk(w, c, 0))
                return -1;
        return 0;
    }
    if (x->kind == N_UNARY && (strcmp(x->op, "not") == 0 || strcmp(x->op, "~") == 0))
        return tp_grammar_fail(e, "unary operator '%s' in %s", x->op, w->q), -1;
    if (cond)
        return tp_grammar_fail(e, "%s is not a condition", w->q), -1;
    char tok[96];
    switch (x->kind) {
    case N_BIN:
        if (!strchr("+-*/%", x->op[0]) || x->op[1])
            return tp_grammar_fail(e, "operator '%s' in %s", x->op, w->q), -1;
        /* fall through */
    case N_UNARY:
        for (int c = x->kid; c >= 0; c = w->p->nodes[c].next)
            if (walk(w, c, 0))
                return -1;
        return 0;
    case N_FLOAT:
    case N_STR:
        return tp_grammar_fail(e, "constant %.*s in %s is not an integer", (int)x->n, x->s, w->q), -1;
    case N_BIG:
        return tp_grammar_fail(e, "constant %.*s in %s does not fit in int64", (int)x->n, x->s, w->q), -1;
    case N_NAME:
        for (int k = 0; k < w->ndims; k++)
            if (strlen(w->dims[k]) == x->n && strncmp(w->dims[k], x->s, x->n) == 0)
                return 0;
        return tp_grammar_fail(e, "unknown dim %s in %s", tp_grammar_quote(x->s, x->n, tok, sizeof tok), w->q), -1;
    case N_ATTR:
        return tp_grammar_fail(e, "attribute '%.*s' not allowed in %s", (int)x->n, x->s, w->q), -1;
    case N_CALL: {
        const tp_expr_function *f = find_function(x->s, x->n, 0);
        if (!f)
            return tp_grammar_fail(e, "unknown function %s in %s", tp_grammar_quote(x->s, x->n, tok, sizeof tok), w->q),
                   -1;
        int n = nkids(w->p, i);
        if (n != f->arity)
            return tp_grammar_fail(e, "%s takes %d argument%s (%s), not %d, in %s", f->name, f->arity,
                                   f->arity == 1 ? "" : "s", f->args, n, w->q),
                   -1;
        for (int c = x->kid; c >= 0; c = w->p->nodes[c].next)
            if (walk(w, c, 0))
                return -1;
        return 0;
    }
    default:
        return 0;
    }
}

typedef struct {
    char *out;
    size_t len, n;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->n + n < b->len)
        memcpy(b->out + b->n, s, n);
    b->n += n;
    if (b->n < b->len)
        b->out[b->n] = 0;
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* C, fully parenthesised, as plans have always carried it. */
static void render(const P *p, int i, buf *b)
{
    const node *x = &p->nodes[i];
    switch (x->kind) {
    case N_NUM: {
        char v[24];
        snprintf(v, sizeof v, "%lld", (long long)x->value);
        puts_(b, v);
        return;
    }
    case N_NAME:
        put(b, x->s, x->n);
        return;
    case N_CALL:
        puts_(b, find_function(x->s, x->n, 0)->c_name);
        puts_(b, "(");
        for (int c = x->kid; c >= 0; c = p->nodes[c].next) {
            render(p, c, b);
            if (p->nodes[c].next >= 0)
                puts_(b, ", ");
        }
        puts_(b, ")");
        return;
    case N_UNARY:
        puts_(b, "(");
        puts_(b, x->op);
        render(p, x->kid, b);
        puts_(b, ")");
        return;
    case N_BIN:
        puts_(b, "(");
        render(p, x->kid, b);
        puts_(b, " ");
        puts_(b, x->op);
        puts_(b, " ");
        render(p, p->nodes[x->kid].next, b);
        puts_(b, ")");
        return;
    case N_BOOL:
        puts_(b, "(");
        for (int c = x->kid; c >= 0; c = p->nodes[c].next) {
            render(p, c, b);
            if (p->nodes[c].next >= 0) {
                puts_(b, " ");
                puts_(b, x->op);
                puts_(b, " ");
            }
        }
        puts_(b, ")");
        return;
    case N_CMP: { /* a < b <= c: (a < b) && (b <= c) */
        int pairs = nkids(p, i) - 1;
        if (pairs > 1)
            puts_(b, "(");
        for (int l = x->kid, r = p->nodes[l].next; r >= 0; l = r, r = p->nodes[r].next) {
            puts_(b, "(");
            render(p, l, b);
            puts_(b, " ");
            puts_(b, p->nodes[r].link);
            puts_(b, " ");
            render(p, r, b);
            puts_(b, ")");
            if (p->nodes[r].next >= 0)
                puts_(b, " && ");
        }
        if (pairs > 1)
            puts_(b, ")");
        return;
    }
    default:
        return;
    }
}

/* Drops one pair of parentheses enclosing the whole text. */
static void strip_outer(char *c)
{
    size_t n = strlen(c);
    if (n < 2 || c[0] != '(' || c[n - 1] != ')')
        return;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += c[i] == '(';
        depth -= c[i] == ')';
        if (depth == 0 && i < n - 1)
            return;
    }
    memmove(c, c + 1, n - 2);
    c[n - 2] = 0;
}

static void expected_text(tp_expr_kind kind, int ndims, const char *const *dims, tp_grammar_error *e)
{
    char names[256] = "", funcs[128];
    size_t n = 0;
    for (int k = 0; k < ndims && n < sizeof names; k++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", k ? ", " : "", dims[k]);
    function_list(funcs, sizeof funcs, kind == TP_EXPR_VALUE);
    if (kind == TP_EXPR_CONDITION)
        snprintf(e->expected, sizeof e->expected,
                 "a condition over the dims (%s): integers, + - * / %%, comparisons, and/or, %s", names, funcs);
    else
        snprintf(e->expected, sizeof e->expected,
                 "an integer expression over the dims (%s): integers, + - * / %%, parentheses, %s", names, funcs);
}

int tp_expr_check(const char *text, tp_expr_kind kind, int ndims, const char *const *dims, char *c, size_t clen,
                  tp_grammar_error *e)
{
    P p;
    char q[200];
    size_t tn = strlen(text);
    memset(e, 0, sizeof *e);
    expected_text(kind, ndims, dims, e);
    tp_grammar_quote(text, tn > 150 ? 150 : tn, q, sizeof q);
    memset(&p, 0, sizeof p);
    p.text = p.s = text;
    p.d = CONTRACT;
    int root = parse(&p);
    if (p.failed) {
        tp_grammar_fail(e, "syntax error in %s (%s)", q, p.msg);
        return -1;
    }
    W w = {&p, kind, ndims, dims, q, e};
    if (walk(&w, root, kind == TP_EXPR_CONDITION) != 0)
        return -1;
    buf b = {c, clen, 0};
    if (clen)
        c[0] = 0;
    render(&p, root, &b);
    if (b.n >= clen) {
        tp_grammar_fail(e, "expression %s is too long to render (%zu bytes of C)", q, b.n);
        return -1;
    }
    strip_outer(c);
    return 0;
}

/* ---- names --------------------------------------------------------------- */

/* C11 keywords, the C++ ones a harness (compiled as C++) would trip on,
 * and the words of the contract language. */
static const char *const keywords[] = {
    "auto",  "break",   "case",     "char",     "const",    "continue", "default", "do",       "double",
    "else",  "enum",    "extern",   "float",    "for",      "goto",     "if",      "int",      "long",
    "register", "return", "short",  "signed",   "sizeof",   "static",   "struct",  "switch",   "typedef",
    "union", "unsigned", "void",    "volatile", "while",    "inline",   "restrict", "bool",    "true",
    "false", "class",   "new",      "delete",   "this",     "template", "namespace", "and",    "or",
    "not",   NULL};

int tp_expr_check_name(const char *name, int dim, tp_grammar_error *e)
{
    char q[96];
    const char *what = dim ? "dim name" : "tensor name";
    memset(e, 0, sizeof *e);
    snprintf(e->expected, sizeof e->expected, "%s",
             dim ? "a C identifier that is not a keyword, a function name or tp_*"
                 : "a C identifier that is not a keyword");
    tp_grammar_quote(name, strlen(name), q, sizeof q);
    int ident = isalpha((unsigned char)name[0]) || name[0] == '_';
    for (const char *s = name; ident && *s; s++)
        ident = isalnum((unsigned char)*s) || *s == '_';
    if (!ident)
        return tp_grammar_fail(e, "%s %s is not usable: not a C identifier", what, q), -1;
    for (int i = 0; keywords[i]; i++)
        if (strcmp(name, keywords[i]) == 0)
            return tp_grammar_fail(e, "%s %s is not usable: a C keyword", what, q), -1;
    if (dim && find_function(name, strlen(name), 0))
        return tp_grammar_fail(e, "%s %s is not usable: a function of the expression language", what, q), -1;
    if (dim && strncmp(name, "tp_", 3) == 0)
        return tp_grammar_fail(e, "%s %s is not usable: tp_ names belong to tolproof", what, q), -1;
    return 0;
}
