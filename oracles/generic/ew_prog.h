/* The elementwise expression language of op "elementwise" (issue 11): an
 * output element as an expression of the input elements at the same
 * position, in binary32 arithmetic as a CUDA or HIP kernel writes it.
 *
 *   expr     := term (('+' | '-') term)*
 *   term     := unary (('*' | '/') unary)*
 *   unary    := '-' unary | primary
 *   primary  := NUMBER | INPUT | FUNC '(' args ')' | '(' expr ')'
 *   select(a < b, x, y)   x where a < b, else y (also <=, >, >=)
 *
 * NUMBER is a binary32 constant as a kernel spells it: an integer (exact
 * below 2^24) or a literal with an `f` suffix (`0.5f`, `1e-5f`), rounded
 * to nearest as strtof does; a literal without the suffix is a double in
 * C, and is refused. INPUT names an input tensor, read as its binary32
 * value (binary16 and bfloat16 widen exactly). FUNC is one of
 *   fmaf(x, y, z)                    fused, one rounding
 *   fminf(x, y), fmaxf(x, y)         exact
 *   sqrtf(x)                         correctly rounded (ulp 0) unless
 *                                    the model declares more
 *   rsqrtf, expf, logf, tanhf, erff  within the model's vendor ulps of
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
    EW_RN16, /* __float2half: rounded to binary16 (to nearest), read back as binary32 */
    /* device functions, one operand, in the order of ew_fn_names */
    EW_SQRT,
    EW_RSQRT,
    EW_EXP,
    EW_LOG,
    EW_TANH,
    EW_ERF,
    EW_NKINDS
} ew_kind;

#define EW_FIRST_FN EW_SQRT
#define EW_NFNS (EW_NKINDS - EW_FIRST_FN)

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
} ew_prog;

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
