/* How the two small languages of a contract (shape expressions,
 * core/tp_expr.h, and fills, core/tp_rng.h) report what is wrong with a
 * text: the two halves of the generator's one-line error
 * `FILE:LINE: what; expected what`, so that gen/ prints the C grammar's
 * own words instead of re-implementing it. */
#ifndef TP_GRAMMAR_H
#define TP_GRAMMAR_H
#include <stddef.h>

typedef struct {
    char what[512];     /* what is wrong, quoting the offending text */
    char expected[640]; /* what would have been accepted there */
} tp_grammar_error;

/* Writes text quoted as Python's repr() quotes a str ('M + 1', or "a'b"
 * when the text holds a single quote and no double one), so messages read
 * as they did when the generator checked contracts in Python. Returns out. */
char *tp_grammar_quote(const char *text, size_t n, char *out, size_t len);

/* The first 60 bytes of text, then "... (N bytes)" when it is longer:
 * how messages name an expression or a fill that may be megabytes long,
 * so the reason after it is not cut off. Returns out. */
char *tp_grammar_excerpt(const char *text, char *out, size_t len);

/* Sets e->what from a printf format; the first error wins, later calls
 * leave it alone (0: it was set now, -1: an earlier one stands). */
int tp_grammar_fail(tp_grammar_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
