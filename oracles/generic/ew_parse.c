/* Recursive descent parser of the elementwise expression language
 * (oracles/generic/ew_prog.h). Hand-written for the same reason as
 * core/tp_expr_parse.c: a dozen rules are shorter than binding a parser
 * library, and messages can name the contract's own words. */
#define _DEFAULT_SOURCE /* strtof's locale-free use is enough: contracts are ASCII */
#include "oracles/generic/ew_prog.h"

#include "core/tp_expr.h"

#include <ctype.h>
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fn_names[EW_NFNS] = {"sqrtf", "rsqrtf", "expf", "logf", "tanhf", "erff", "sinf", "cosf"};

const char *ew_fn_name(int k) { return k >= 0 && k < EW_NFNS ? fn_names[k] : NULL; }

#define EXPECTED_PRIMARY                                                                                             \
    "a number (1, 0.5f, 1e-5f), an input tensor (x or x[INDEX]), index(INDEX), a function (fmaf, fminf, fmaxf, "    \
    "select, sqrtf, rsqrtf, expf, logf, tanhf, erff, sinf, cosf, __float2half, __half2float) or '('"

typedef struct {
    const char *text, *s;
    int ninputs;
    const char *const *names;
    ew_prog *p;
    tp_grammar_error *e;
    int depth;
} parser;

static void skip_ws(parser *q)
{
    while (*q->s == ' ' || *q->s == '\t' || *q->s == '\n' || *q->s == '\r')
        q->s++;
}

/* "at offset N ('rest...')" for messages. */
static const char *where(const parser *q, char *buf, size_t len)
{
    char quoted[96];
    size_t n = strlen(q->s);
    if (!n)
        snprintf(buf, len, "at the end");
    else
        snprintf(buf, len, "at offset %d (%s)", (int)(q->s - q->text), tp_grammar_quote(q->s, n < 24 ? n : 24, quoted, sizeof quoted));
    return buf;
}

static int fail(parser *q, const char *what, const char *expected)
{
    char w[128], t[96];
    tp_grammar_fail(q->e, "%s %s in %s", what, where(q, w, sizeof w), tp_grammar_excerpt(q->text, t, sizeof t));
    if (!q->e->expected[0])
        snprintf(q->e->expected, sizeof q->e->expected, "%s", expected);
    return -1;
}

static int add(parser *q, ew_kind kind, int a, int b, int c)
{
    if (q->p->n >= EW_MAX_NODES) {
        char buf[64];
        snprintf(buf, sizeof buf, "an expression of at most %d operations", EW_MAX_NODES);
        return fail(q, "expression too long", buf);
    }
    ew_node *nd = &q->p->node[q->p->n];
    memset(nd, 0, sizeof *nd);
    nd->kind = kind, nd->a = a, nd->b = b, nd->c = c;
    if (kind >= EW_FIRST_FN)
        q->p->fns_used |= 1u << (kind - EW_FIRST_FN);
    return q->p->n++;
}

static int is_comparison(const parser *q, int i) { return i >= 0 && EW_IS_COMPARISON(q->p->node[i].kind); }

static int expr(parser *q);

/* A value operand: anything but a comparison. */
static int value(parser *q)
{
    const char *at = q->s;
    int i = expr(q);
    if (i >= 0 && is_comparison(q, i)) {
        q->s = at;
        return fail(q, "a comparison used as a value", "a comparison only as select's first argument");
    }
    return i;
}

static int expect(parser *q, char ch, const char *expected)
{
    skip_ws(q);
    if (*q->s != ch) {
        char what[32];
        snprintf(what, sizeof what, "missing '%c'", ch);
        return fail(q, what, expected);
    }
    q->s++;
    return 0;
}

static int number(parser *q)
{
    const char *start = q->s;
    char *end;
    /* strtof in round to nearest whatever the caller's mode: the constant
     * is the one the kernel's compiler rounds */
    const int saved = fegetround();
    fesetround(FE_TONEAREST);
    errno = 0;
    float f = strtof(start, &end);
    const double d = strtod(start, NULL);
    fesetround(saved);
    const char *after = end;
    const int suffixed = *after == 'f' || *after == 'F';
    if (suffixed)
        after++;
    if (isalnum((unsigned char)*after) || *after == '_' || *after == '.') {
        q->s = after;
        return fail(q, "a malformed number", "a number such as 2, 0.5f or 1e-5f");
    }
    const int integer = strspn(start, "0123456789") == (size_t)(end - start);
    if (!suffixed && !integer) {
        char what[160], lit[48];
        snprintf(what, sizeof what, "%s is a double constant in C (no f suffix): the kernel would compute in double",
                 tp_grammar_quote(start, (size_t)(end - start) < 40 ? (size_t)(end - start) : 40, lit, sizeof lit));
        return fail(q, what, "a binary32 constant with an f suffix, as the kernel spells it (0.5f)");
    }
    if (integer && !suffixed && !(d <= 0x1p24)) {
        return fail(q, "an integer constant above 2^24 (not exact in binary32)", "an integer up to 2^24, or an f literal");
    }
    if (!isfinite(f) || (errno == ERANGE && f != 0.0f && fabsf(f) >= 1.0f)) {
        return fail(q, "a constant beyond the binary32 range", "a finite binary32 constant");
    }
    q->s = after;
    int i = add(q, EW_CONST, -1, -1, -1);
    if (i >= 0)
        q->p->node[i].value = f;
    return i;
}

static const struct {
    const char *name;
    ew_kind kind;
    int arity;
} fns[] = {{"fmaf", EW_FMA, 3},   {"fminf", EW_MIN, 2}, {"fmaxf", EW_MAX, 2}, {"select", EW_SELECT, 3},
           {"sqrtf", EW_SQRT, 1}, {"rsqrtf", EW_RSQRT, 1}, {"expf", EW_EXP, 1}, {"logf", EW_LOG, 1},
           {"tanhf", EW_TANH, 1}, {"erff", EW_ERF, 1}, {"sinf", EW_SIN, 1}, {"cosf", EW_COS, 1},
           {"__float2half", EW_RN16, 1},
           {"__half2float", EW_NKINDS, 1} /* the identity: no node */};

static int call(parser *q, const char *name, size_t len)
{
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
        if (strlen(fns[k].name) != len || strncmp(fns[k].name, name, len) != 0)
            continue;
        int arg[3] = {-1, -1, -1};
        if (expect(q, '(', "'(' after a function name") != 0)
            return -1;
        for (int j = 0; j < fns[k].arity; j++) {
            if (j && expect(q, ',', "',' between arguments") != 0)
                return -1;
            if (fns[k].kind == EW_SELECT && j == 0) {
                const char *at = q->s;
                arg[0] = expr(q);
                if (arg[0] >= 0 && !is_comparison(q, arg[0])) {
                    q->s = at;
                    return fail(q, "select's first argument is not a comparison",
                                "a < b, a <= b, a > b, a >= b, a == b or a != b");
                }
            } else
                arg[j] = value(q);
            if (arg[j] < 0)
                return -1;
        }
        if (expect(q, ')', "')' closing the arguments") != 0)
            return -1;
        if (fns[k].kind == EW_NKINDS)
            return arg[0];
        return add(q, fns[k].kind, arg[0], arg[1], arg[2]);
    }
    char what[128], nm[80];
    snprintf(what, sizeof what, "unknown function %s", tp_grammar_quote(name, len < 60 ? len : 60, nm, sizeof nm));
    q->s = name;
    return fail(q, what, "fmaf, fminf, fmaxf, select, sqrtf, rsqrtf, expf, logf, tanhf, erff, sinf, cosf, "
                         "index, __float2half or __half2float");
}

/* The INDEX of INPUT[INDEX] or index(INDEX), up to the bracket `close`
 * that balances the one just read, as a read of tensor t (-1: index()).
 * Two reads with the same tensor and text are one input. */
static int indexed_read(parser *q, int t, char close)
{
    const char open = close == ']' ? '[' : '(';
    const char *start = q->s;
    int depth = 1;
    while (*q->s && depth) {
        depth += *q->s == open;
        depth -= *q->s == close;
        if (depth)
            q->s++;
    }
    if (*q->s != close) {
        char what[32];
        snprintf(what, sizeof what, "missing '%c'", close);
        return fail(q, what, close == ']' ? "INPUT[INDEX] with a closing ']'" : "index(INDEX) with a closing ')'");
    }
    const char *end = q->s++;
    while (start < end && isspace((unsigned char)*start))
        start++;
    while (end > start && isspace((unsigned char)end[-1]))
        end--;
    ew_prog *p = q->p;
    const size_t len = (size_t)(end - start);
    if (!len || len >= sizeof p->read[0].index) {
        q->s = start;
        return fail(q, len ? "an index expression too long" : "an empty index",
                    "a shape expression over row or col and the dims, at most 111 characters");
    }
    int k = 0;
    while (k < p->nreads && !(p->read[k].tensor == t && strlen(p->read[k].index) == len &&
                              strncmp(p->read[k].index, start, len) == 0))
        k++;
    if (k == p->nreads) {
        if (k == EW_MAX_READS || q->ninputs + k >= EW_MAX_INPUTS) {
            q->s = start;
            return fail(q, "too many indexed reads", "at most 8 different INPUT[INDEX] and index(INDEX)");
        }
        p->read[k].tensor = t;
        memcpy(p->read[k].index, start, len);
        p->read[k].index[len] = 0;
        p->nreads++;
    }
    int r = add(q, EW_INPUT, -1, -1, -1);
    if (r >= 0)
        p->node[r].input = q->ninputs + k;
    return r;
}

static int primary(parser *q)
{
    skip_ws(q);
    if (++q->depth > 64)
        return fail(q, "nesting too deep", "at most 64 nested parentheses or calls");
    int r;
    if (*q->s == '(') {
        q->s++;
        r = value(q);
        if (r >= 0 && expect(q, ')', "')'") != 0)
            r = -1;
    } else if (isdigit((unsigned char)*q->s) || (*q->s == '.' && isdigit((unsigned char)q->s[1]))) {
        r = number(q);
    } else if (isalpha((unsigned char)*q->s) || *q->s == '_') {
        const char *name = q->s;
        while (isalnum((unsigned char)*q->s) || *q->s == '_')
            q->s++;
        const size_t len = (size_t)(q->s - name);
        skip_ws(q);
        if (*q->s == '(' && len == 5 && strncmp(name, "index", 5) == 0) {
            q->s++;
            r = indexed_read(q, -1, ')');
        } else if (*q->s == '(')
            r = call(q, name, len);
        else {
            r = -2;
            for (int k = 0; k < q->ninputs && r == -2; k++)
                if (strlen(q->names[k]) == len && strncmp(q->names[k], name, len) == 0) {
                    if (*q->s == '[') {
                        q->s++;
                        r = indexed_read(q, k, ']');
                        break;
                    }
                    r = add(q, EW_INPUT, -1, -1, -1);
                    if (r >= 0)
                        q->p->node[r].input = k;
                }
            if (r == -2) {
                char what[128], nm[80], exp[400];
                size_t o = (size_t)snprintf(exp, sizeof exp, "an input tensor (");
                for (int k = 0; k < q->ninputs && o < sizeof exp; k++)
                    o += (size_t)snprintf(exp + o, sizeof exp - o, "%s%s", k ? ", " : "", q->names[k]);
                if (o < sizeof exp)
                    snprintf(exp + o, sizeof exp - o, "), a number or a function call");
                snprintf(what, sizeof what, "unknown name %s", tp_grammar_quote(name, len < 60 ? len : 60, nm, sizeof nm));
                q->s = name;
                r = fail(q, what, exp);
            }
        }
    } else
        r = fail(q, *q->s ? "unexpected character" : "missing operand", EXPECTED_PRIMARY);
    q->depth--;
    return r;
}

static int unary(parser *q)
{
    skip_ws(q);
    if (*q->s == '-') {
        q->s++;
        int a = unary(q);
        if (a < 0)
            return -1;
        /* a negated constant is the constant: -0.5f is one literal in C too */
        if (q->p->node[a].kind == EW_CONST) {
            q->p->node[a].value = -q->p->node[a].value;
            return a;
        }
        return add(q, EW_NEG, a, -1, -1);
    }
    return primary(q);
}

static int term(parser *q)
{
    int a = unary(q);
    while (a >= 0) {
        skip_ws(q);
        if (*q->s != '*' && *q->s != '/')
            break;
        ew_kind k = *q->s == '*' ? EW_MUL : EW_DIV;
        q->s++;
        int b = unary(q);
        a = b < 0 ? -1 : add(q, k, a, b, -1);
    }
    return a;
}

static int sum(parser *q)
{
    int a = term(q);
    while (a >= 0) {
        skip_ws(q);
        if (*q->s != '+' && *q->s != '-')
            break;
        ew_kind k = *q->s == '+' ? EW_ADD : EW_SUB;
        q->s++;
        int b = term(q);
        a = b < 0 ? -1 : add(q, k, a, b, -1);
    }
    return a;
}

/* A sum, or one comparison of two sums (select's first argument). */
static int expr(parser *q)
{
    int a = sum(q);
    if (a < 0)
        return -1;
    skip_ws(q);
    ew_kind k;
    if (q->s[0] == '<')
        k = q->s[1] == '=' ? EW_LE : EW_LT;
    else if (q->s[0] == '>')
        k = q->s[1] == '=' ? EW_GE : EW_GT;
    else if (q->s[0] == '=' && q->s[1] == '=')
        k = EW_EQ;
    else if (q->s[0] == '!' && q->s[1] == '=')
        k = EW_NE;
    else if (q->s[0] == '=') /* C's assignment: a kernel's comparison is == */
        return fail(q, "'=' (an assignment in C)", "== to compare two values");
    else
        return a;
    q->s += (k == EW_LT || k == EW_GT) ? 1 : 2;
    int b = sum(q);
    return b < 0 ? -1 : add(q, k, a, b, -1);
}

int ew_parse(const char *text, int ninputs, const char *const *names, ew_prog *p, tp_grammar_error *e)
{
    memset(p, 0, sizeof *p);
    e->what[0] = e->expected[0] = 0;
    parser q = {text, text, ninputs, names, p, e, 0};
    p->ninputs = ninputs;
    int r = value(&q);
    if (r >= 0) {
        skip_ws(&q);
        if (*q.s)
            r = fail(&q, "unexpected text after the expression", "an operator (+ - * /) or the end");
    }
    return r < 0 ? -1 : 0;
}

enum { EW_INDEX_MAX_NAMES = 34 }; /* a contract's dims (TP_MAX_DIMS in a case), row and col */

/* Does text name the identifier id (a whole word)? */
static int names_word(const char *text, const char *id)
{
    const size_t n = strlen(id);
    for (const char *t = strstr(text, id); t; t = strstr(t + 1, id))
        if ((t == text || !(isalnum((unsigned char)t[-1]) || t[-1] == '_')) &&
            !(isalnum((unsigned char)t[n]) || t[n] == '_'))
            return 1;
    return 0;
}

int ew_read_check(const char *index, int ndims, const char *const *dims, char *cexpr, size_t clen, int *axis,
                  tp_grammar_error *e)
{
    const char *names[EW_INDEX_MAX_NAMES];
    if (ndims + 2 > EW_INDEX_MAX_NAMES) {
        snprintf(e->what, sizeof e->what, "more than %d dims", EW_INDEX_MAX_NAMES - 2);
        snprintf(e->expected, sizeof e->expected, "fewer dims");
        return -1;
    }
    for (int d = 0; d < ndims; d++) {
        if (!strcmp(dims[d], "row") || !strcmp(dims[d], "col")) {
            snprintf(e->what, sizeof e->what, "a dim named %s hides the element's own", dims[d]);
            snprintf(e->expected, sizeof e->expected, "dims named other than row and col");
            return -1;
        }
        names[d] = dims[d];
    }
    names[ndims] = "row", names[ndims + 1] = "col";
    if (tp_expr_check(index, TP_EXPR_VALUE, ndims + 2, names, cexpr, clen, e) != 0)
        return -1;
    const int on_col = names_word(index, "col"), on_row = names_word(index, "row");
    if (on_col && on_row) {
        snprintf(e->what, sizeof e->what, "the index depends on both row and col");
        snprintf(e->expected, sizeof e->expected, "an index over one of them (or neither)");
        return -1;
    }
    *axis = on_col ? EW_ON_COL : on_row ? EW_ON_ROW : EW_ON_NONE;
    return 0;
}
