/* Shape expressions: integers over a case's dims, and conditions over
 * them (a contract's `require` entries). The one implementation of the
 * language, in two spellings:
 *
 *   as a contract writes it   integers, + - * / %, unary - +, parentheses,
 *                             the functions below; a condition adds the
 *                             comparisons < <= > >= == != (chained as in
 *                             `1 <= M <= 64`) and `and` / `or`.
 *                             tp_expr_check validates such a text (the
 *                             generator calls it through
 *                             oracles/registry_tool.c) and renders it as C;
 *   as a plan carries it      that C rendering: fully parenthesised, && ||,
 *                             tp_ceil_div() ...; tp_expr_eval evaluates it
 *                             (it also takes ! and the unprefixed names).
 *
 * Hand-written: a recursive descent parser is shorter than binding a
 * scripting library for this. */
#ifndef TP_EXPR_H
#define TP_EXPR_H
#include "core/tp_grammar.h"

#include <stddef.h>
#include <stdint.h>

/* The functions of the language: name as contracts write it, arity, the
 * argument names for messages ("a, b"), and the C function plans call
 * (harness/tp_hip.h defines them for device code). */
typedef struct {
    const char *name;
    int arity;
    const char *args;
    const char *c_name;
} tp_expr_function;

/* Terminated by an entry whose name is NULL. */
const tp_expr_function *tp_expr_functions(void);

/* Evaluates a plan's expression with the given dims. Returns 0 and sets
 * *value, or -1 with a message (unknown name, syntax, division by zero)
 * in err. */
int tp_expr_eval(const char *expr, int ndims, const char *const *names, const int64_t *values,
                 int64_t *value, char *err, size_t errlen);

typedef enum { TP_EXPR_VALUE, TP_EXPR_CONDITION } tp_expr_kind;

/* Checks a contract's expression over the dims `dims`: an integer value
 * (a shape extent, a launch dimension) or a condition. Returns 0 and
 * writes its C rendering (what the plan carries) into c, or -1 with what
 * is wrong and what was expected in *e. */
int tp_expr_check(const char *text, tp_expr_kind kind, int ndims, const char *const *dims, char *c, size_t clen,
                  tp_grammar_error *e);

/* Checks a name a contract declares: a dim (dim = 1: a C identifier that is
 * no C or C++ keyword, no function of the language and not tp_*, since
 * expressions and harnesses use it as C) or a tensor (dim = 0: a C
 * identifier that is no keyword). 0, or -1 with *e filled. */
int tp_expr_check_name(const char *name, int dim, tp_grammar_error *e);
#endif
