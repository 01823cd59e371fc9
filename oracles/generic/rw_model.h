/* The model of op "rowwise" (issue 11, generic op families), read from a
 * contract's [model] and one case: reductions along the last axis of each
 * row, then an elementwise expression per output that uses the reduced
 * values.
 *
 *   [model.reduce]     NAME = { sum = "TERM" , order = "any" }   (or max, min)
 *   [model.expr]       OUTPUT = "EXPRESSION"
 *
 * TERM and EXPRESSION are programs of the elementwise language
 * (oracles/generic/ew_prog.h) over one name list:
 *   the input tensors    read at the element's row and column (a tensor
 *                        of the rows' shape), at its column (a vector of
 *                        the row length) or once (one element);
 *   the reductions       each a binary32 interval per row; a TERM may use
 *                        only the reductions declared before it;
 *   the contract's dims  as binary32 values (exact below 2^24), as a
 *                        kernel writes `ss / (float)cols`;
 *   index(INDEX)         the element's column or row as a binary32 value
 *                        (INDEX over `col` or `row` and the dims, as in op
 *                        elementwise), as a kernel compares `j == target`.
 * Inputs may be int32 (a row's target class), read as binary32 values:
 * a case with one beyond 2^24 is refused. INPUT[INDEX] stays op
 * elementwise's.
 * An input of the rows' shape with a last extent of 1 ([rows, 1]) is read
 * once per row. With along = "column" the reductions run down each column
 * of a 2-D input instead (a parameter gradient's sum over tokens), and
 * per-column inputs are the ones read once per line. An output with one
 * element per line (rows, or columns) may use only reductions, dims and
 * inputs read once per line. */
#ifndef TP_RW_MODEL_H
#define TP_RW_MODEL_H
#include "core/tp_format.h"
#include "core/tp_tensor.h"
#include "core/tp_value.h"
#include "oracles/generic/ew_prog.h"

#include <stddef.h>
#include <stdint.h>

#define RW_MAX_REDUCE 4

typedef enum { RW_SUM, RW_MAX, RW_MIN } rw_kind;
typedef enum { RW_AT_ELEMENT, RW_AT_COLUMN, RW_AT_ROW, RW_AT_SCALAR } rw_where;

typedef struct {
    const char *name;
    rw_kind kind;
    ew_prog term;
} rw_reduce;

/* One output's program with its row-invariant parts taken out: node root[k]
 * of `full` (a subtree of reductions, dims, scalars and constants only) is
 * evaluated once per row into name slot `slot[k]`, and `prog` is `full`
 * with those roots read as inputs; `keep` marks the nodes of prog still
 * evaluated per element. Both ways give the same values: the same
 * operations on the same operands. */
typedef struct {
    ew_prog full, prog;
    int nroot, root[EW_MAX_NODES / 2], slot[EW_MAX_NODES / 2];
    unsigned char sub[EW_MAX_NODES / 2][EW_MAX_NODES]; /* each root's subtree in full */
    unsigned char keep[EW_MAX_NODES];
} rw_out;

typedef struct {
    ew_model m;
    int nin;                          /* input tensors: name slots 0 .. nin-1 */
    const tp_tensor *in[TP_MAX_TENSORS];
    const tp_format *fmt[TP_MAX_TENSORS];
    rw_where where[TP_MAX_TENSORS];
    int nred;                         /* reductions: slots nin .. nin+nred-1 */
    rw_reduce red[RW_MAX_REDUCE];
    int ndims;                        /* dims: slots nin+nred .. */
    float dim[TP_MAX_DIMS];
    int nread;                        /* index() reads: slots nin+nred+ndims .. */
    char read_index[EW_MAX_READS][sizeof(((ew_read *)0)->index)];
    int read_on[EW_MAX_READS];        /* EW_ON_NONE, EW_ON_COL, EW_ON_ROW */
    int64_t *read_at[EW_MAX_READS];   /* its value per column, per row or once */
    int nslots;                       /* with the row-invariant slots of out */
    int64_t rows, cols;               /* of the largest input of rank >= 2, all but its last axis as rows */
    int by_column;                    /* along = "column": the lines are the columns */
    int64_t lines, len;               /* lines reduced, and terms in each */
    const tp_tensor *O;               /* the output */
    int per_row;                      /* O has one element per line */
    rw_out out;
} rw_setup;

/* Whether name slot k varies along a line: an input read per element, per
 * column along rows or per row along columns, or an index() over that
 * coordinate. */
int rw_varies(const rw_setup *s, int k);

/* Whether input k is read once per line (a scalar, or per row along rows,
 * per column along columns). */
int rw_line_constant(const rw_setup *s, int k);

/* [model] alone: the keys and their forms. 0, or -1 with a message. */
int rw_check_model(const tp_value *model, char *err, size_t errlen);

/* The setup for output `output` of case c: 0, or -1 with what is wrong
 * and what was expected in err. */
int rw_setup_case(const tp_value *model, const tp_case *c, const char *output, rw_setup *s, char *err,
                  size_t errlen);

/* Frees what rw_setup_case allocated (the index() values), not s. */
void rw_setup_clear(rw_setup *s);

#endif
