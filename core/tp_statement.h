/* Evidence and Non-claims: what the check of a case rests on and what its
 * verdict does not show, one statement at a time. Each statement has a
 * stable id (results.json keys on it, tools and reviewers may too) and a
 * text; the producer (the runtime, an op, the check command through the
 * runtime) says a statement because it did what the statement describes,
 * for this case. The registry of every id is harness/tp_statements.c;
 * docs/evidence.md lists them.
 *
 * Ids: lower-case words of [a-z0-9_] joined by dots. The runtime's start
 * with what they are about (inputs., outputs., op., model., claim.,
 * nonclaim.), an op's with the op's name (gemm.exact.split_double,
 * gemm.bound.any_order_fp32, gemm.nonclaim.order_hidden). An id names
 * the method or the fact; what varies within it (a seed, a path, a model
 * choice the text spells out) is a parameter of its text. */
#ifndef TP_STATEMENT_H
#define TP_STATEMENT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TP_EVIDENCE = 0, TP_NON_CLAIM = 1 } tp_statement_kind;

/* A statement as its producer declares it: the text is a printf format
 * whose arguments the producer passes when it says the statement. */
typedef struct {
    const char *id;
    tp_statement_kind kind;
    const char *text;
} tp_statement;

/* One statement as said about a case: its id and its filled-in text. */
typedef struct {
    const char *id; /* the declaration's, not owned */
    char *text;     /* owned */
} tp_said;

/* What was said about one case: the Evidence and the Non-claims lists, in
 * the order said. Zero-initialise; free with tp_statements_free. */
typedef struct {
    tp_said *list[2]; /* indexed by tp_statement_kind */
    int n[2], cap[2];
} tp_statements;

/* Appends the statement to the list of its kind, its text formatted with
 * the arguments. 0, or -1 when out of memory (the statement is lost). */
int tp_say(tp_statements *out, const tp_statement *st, ...);
/* Says every statement of a NULL-terminated list (texts without
 * parameters): for ops whose statements do not depend on the case. */
void tp_say_all(tp_statements *out, const tp_statement *const *list);
void tp_statements_free(tp_statements *s);

/* 1 when id follows the syntax above, else 0. */
int tp_statement_id_ok(const char *id);

#ifdef __cplusplus
}
#endif
#endif
