/* The syntax tree of a shape expression: what the parser
 * (tp_expr_parse.c) builds and the evaluator (tp_expr.c) and the contract
 * check (tp_expr_check.c) walk. Private to core/tp_expr*.c. */
#ifndef TP_EXPR_TREE_H
#define TP_EXPR_TREE_H
#include "core/tp_expr.h"

#include <stddef.h>
#include <stdint.h>

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

/* The two spellings of tp_expr.h: as a contract writes it, as a plan carries it. */
enum dialect { CONTRACT, PLAN };

#define MAX_NODES 256 /* expressions are a few terms: a fixed pool, no allocation */
/* Parentheses, calls and unary operators nest at most this deep: the
 * parser recurses once per level, and a contract needs a handful. */
#define MAX_DEPTH 64

/* The parser's state and the tree it builds (nodes[0 .. n-1]). */
typedef struct {
    const char *text, *s;
    enum dialect d;
    node nodes[MAX_NODES];
    int n;
    int depth; /* of the recursion, against MAX_DEPTH */
    int failed;
    char msg[320];   /* the first syntax error */
    const char *at;  /* where it was found */
} P;

/* Parses p->text in spelling p->d into p->nodes; returns the root. On a
 * syntax error p->failed is set, with the message in p->msg and the place
 * in p->at. */
int tp_expr_parse(P *p);
int tp_expr_nkids(const P *p, int i);

/* The function called `name` (n bytes); plan: also by its tp_ name. */
const tp_expr_function *tp_expr_find(const char *name, size_t n, int plan);
/* "ceil_div(a, b), min(a, b), ..." (with_args) or "ceil_div/min/..." */
void tp_expr_function_list(char *out, size_t len, int with_args);
#endif
