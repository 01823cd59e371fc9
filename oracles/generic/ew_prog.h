/* The elementwise expression language of op "elementwise" (issue 11): an
 * output element as an expression of the input elements at the same
 * position, in binary32 arithmetic as a CUDA or HIP kernel writes it.
 *
 *   expr     := term (('+' | '-') term)*
 *   term     := unary (('*' | '/') unary)*
 *   unary    := '-' unary | primary
 *   primary  := NUMBER | INPUT | INPUT '[' INDEX ']' | index '(' INDEX ')'
 *             | FUNC '(' args ')' | '(' expr ')'
 *   select(a < b, x, y)   x where a < b, else y (also <=, >, >=, ==, !=:
 *                         comparisons of the values, exact on reals)
 *
 * NUMBER is a binary32 constant as a kernel spells it: an integer (exact
 * below 2^24) or a literal with an `f` suffix (`0.5f`, `1e-5f`), rounded
 * to nearest as strtof does; a literal without the suffix is a double in
 * C, and is refused. INPUT names an input tensor, read as its binary32
 * value (binary16 and bfloat16 widen exactly; int32 converts exactly up
 * to 2^24), at the output element's position (op elementwise's rules).
 * INPUT[INDEX] reads it elsewhere: INDEX is a shape expression
 * (core/tp_expr.h) over the case's dims and one of `row` (the output
 * element's index over every axis but the last) or `col` (its index on
 * the last axis); on an input of the output's shape it is the column read
 * in the same row, on a vector the element read. index(INDEX) is the
 * integer itself as a binary32 value (exact up to 2^24). These make
 * kernels that read a neighbour (rotary embeddings pair x[c] with
 * x[c + d/2]) or a per-row value (a token's position) expressible; the
 * parser keeps INDEX as text, and the op evaluates it once per row or per
 * column of the case. FUNC is one of
 *   fmaf(x, y, z)                    fused, one rounding
 *   fminf(x, y), fmaxf(x, y)         exact
 *   sqrtf(x)                         correctly rounded (ulp 0) unless
 *                                    the model declares more
 *   rsqrtf, expf, logf, tanhf, erff, sinf, cosf
 *                                    within the model's vendor ulps of
 *                                    the correctly rounded result
 *   __float2half(x)                  x rounded to binary16 (to nearest
 *                                    even), as a kernel stores a value as
 *                                    __half and reads it back; the exact
 *                                    value is x itself
 *   __half2float(x)                  x: binary16 widens exactly
 *
 * A parsed expression is a program of at most EW_MAX_NODES nodes in which
 * every operand precedes its user: evaluation is one pass in order, the
 * last node being the result. */
#ifndef TP_EW_PROG_H
#define TP_EW_PROG_H
#include "core/tp_grammar.h"

#include <stddef.h>

#define EW_MAX_NODES 256
#define EW_MAX_INPUTS 32

typedef enum {
    EW_INPUT, /* input tensor `input` */
    EW_CONST, /* the binary32 `value` */
    EW_NEG,
    EW_ADD,
    EW_SUB,
    EW_MUL,
    EW_DIV,
    EW_FMA,
    EW_MIN,
    EW_MAX,
    EW_SELECT, /* a: a comparison node; b where it holds, c where not */
    EW_LT,     /* comparisons: only as select's first operand */
    EW_LE,
    EW_GT,
    EW_GE,
    EW_EQ,
    EW_NE,
    EW_RN16, /* __float2half: rounded to binary16 (to nearest), read back as binary32 */
    /* device functions, one operand, in the order of ew_fn_names */
    EW_SQRT,
    EW_RSQRT,
    EW_EXP,
    EW_LOG,
    EW_TANH,
    EW_ERF,
    EW_SIN,
    EW_COS,
    EW_NKINDS
} ew_kind;

#define EW_FIRST_FN EW_SQRT
#define EW_IS_COMPARISON(k) ((k) >= EW_LT && (k) <= EW_NE)
#define EW_NFNS (EW_NKINDS - EW_FIRST_FN)

/* An INPUT[INDEX] (tensor: the input's index among the parser's names) or
 * an index(INDEX) (tensor -1). A program's inputs are its names, then its
 * reads: a node reading read k has input ninputs + k. */
#define EW_MAX_READS 8
typedef struct {
    int tensor;
    char index[112]; /* INDEX as written, trimmed */
} ew_read;

typedef struct {
    ew_kind kind;
    int a, b, c;  /* operand node indices, each below this node's */
    int input;    /* EW_INPUT: index into the program's inputs */
    float value;  /* EW_CONST */
} ew_node;

typedef struct {
    int n;
    ew_node node[EW_MAX_NODES];
    unsigned fns_used; /* bit k: device function EW_FIRST_FN + k appears */
    int ninputs;       /* the names the parser was given */
    int nreads;
    ew_read read[EW_MAX_READS];
} ew_prog;

/* What an INDEX depends on: nothing, the element's column or its row. */
enum { EW_ON_NONE, EW_ON_COL, EW_ON_ROW };

/* Checks a read's INDEX: a shape expression over the dims and the
 * element's `row` and `col`, depending on at most one of them. 0 with its
 * C rendering (for tp_expr_eval over dims, row, col) in cexpr and the
 * coordinate it depends on in *axis, or -1 with e. */
int ew_read_check(const char *index, int ndims, const char *const *dims, char *cexpr, size_t clen, int *axis,
                  tp_grammar_error *e);

/* The model a program is evaluated under (op elementwise's [model]). */
typedef struct {
    int fma_any;      /* x*y + z may be fused or not */
    int ulp[EW_NFNS]; /* vendor ulps of each device function; -1: none declared */
} ew_model;

/* The device functions' names as kernels spell them ("sqrtf", ...), index
 * k for kind EW_FIRST_FN + k. */
const char *ew_fn_name(int k);

/* Parses text over the inputs names[0 .. ninputs-1]. 0, or -1 with what
 * is wrong and what was expected in *e. */
int ew_parse(const char *text, int ninputs, const char *const *names, ew_prog *p, tp_grammar_error *e);

#endif
