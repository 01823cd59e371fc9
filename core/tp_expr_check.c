/* Checking a contract's expression (core/tp_expr.h): the same checks, in
 * the same order, as the generator made when it parsed contracts with
 * Python's ast, and the C rendering plans carry; and the names a contract
 * may give its dims and tensors. */
#include "core/tp_expr_tree.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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
        const tp_expr_function *f = tp_expr_find(x->s, x->n, 0);
        if (!f)
            return tp_grammar_fail(e, "unknown function %s in %s", tp_grammar_quote(x->s, x->n, tok, sizeof tok), w->q),
                   -1;
        int n = tp_expr_nkids(w->p, i);
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
        puts_(b, tp_expr_find(x->s, x->n, 0)->c_name);
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
        int pairs = tp_expr_nkids(p, i) - 1;
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
    tp_expr_function_list(funcs, sizeof funcs, kind == TP_EXPR_VALUE);
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
    int root = tp_expr_parse(&p);
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
    if (dim && tp_expr_find(name, strlen(name), 0))
        return tp_grammar_fail(e, "%s %s is not usable: a function of the expression language", what, q), -1;
    if (dim && strncmp(name, "tp_", 3) == 0)
        return tp_grammar_fail(e, "%s %s is not usable: tp_ names belong to tolproof", what, q), -1;
    return 0;
}
