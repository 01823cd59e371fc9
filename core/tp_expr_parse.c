/* The parser of shape expressions (core/tp_expr.h): one lexer and one
 * recursive descent for both spellings, into the tree of tp_expr_tree.h. */
#include "core/tp_expr_tree.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

int tp_expr_nkids(const P *p, int i)
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

/* One more level of nesting at s: 0, or -1 past MAX_DEPTH (refused by
 * name, not by running out of stack). Callers undo it with leave(). */
static int enter(P *p, const char *s)
{
    if (++p->depth <= MAX_DEPTH)
        return 0;
    char at[96];
    syntax(p, s, "expression nested too deeply (more than %d levels of parentheses, calls and unary operators)%s",
           MAX_DEPTH, where(p, s, at, sizeof at));
    return -1;
}
static void leave(P *p) { p->depth--; }

static int top(P *p)
{
    if (enter(p, p->s) != 0) {
        leave(p);
        return 0;
    }
    int x = p->d == CONTRACT ? c_or(p) : p_or(p);
    leave(p);
    return x;
}

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
            if (enter(p, t.s) != 0) {
                leave(p);
                return x;
            }
            int b = binary(p, "**", p->nodes[x].s, x, unary(p));
            leave(p);
            return b;
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
    if (enter(p, t.s) != 0) {
        leave(p);
        return 0;
    }
    int u = new_node(p, N_UNARY, t.s, 0);
    p->nodes[u].op = op;
    add_kid(p, u, unary(p));
    leave(p);
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
    if (enter(p, t.s) != 0) {
        leave(p);
        return 0;
    }
    int u = new_node(p, N_UNARY, t.s, 0);
    p->nodes[u].op = "not";
    add_kid(p, u, c_not(p));
    leave(p);
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

int tp_expr_parse(P *p)
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
