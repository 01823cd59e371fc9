/* Integer expressions over a case's dims, as a contract's `require`
 * entries write them (C syntax: + - * / % comparisons && || ! and the
 * functions ceil_div, min, max, next_pow2). Hand-written: a recursive
 * descent parser is shorter than binding a scripting library for this. */
#ifndef TP_EXPR_H
#define TP_EXPR_H
#include <stddef.h>
#include <stdint.h>

/* Evaluates expr with the given dims. Returns 0 and sets *value, or -1
 * with a message (unknown name, syntax, division by zero) in err. */
int tp_expr_eval(const char *expr, int ndims, const char *const *names, const int64_t *values,
                 int64_t *value, char *err, size_t errlen);
#endif
