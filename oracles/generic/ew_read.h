/* The case-time side of the expression language's indexed reads
 * (oracles/generic/ew_prog.h): an INPUT[INDEX] or index(INDEX) evaluated
 * over a case, and the int32 inputs that the language reads as binary32.
 * Shared by ops elementwise and rowwise, whose messages differ only in the
 * op's name and the program's place (OP: WHERE: ...). */
#ifndef TP_EW_READ_H
#define TP_EW_READ_H
#include "core/tp_tensor.h"

#include <stddef.h>
#include <stdint.h>

/* INDEX's values over the case: axis (EW_ON_NONE, EW_ON_COL, EW_ON_ROW)
 * and one value per column, per row or once (at, n of them). */
typedef struct {
    int axis;
    int64_t n;
    int64_t *at;
} ew_read_vals;

/* Checks INDEX (ew_read_check over c's dims) and evaluates it at every
 * row (0 .. rows-1) or column (0 .. cols-1) it depends on, into v (v->at
 * malloc'd; the caller frees it). what names the read in messages (the
 * tensor, or "index"). 0, or -1 with "OP: WHERE: WHAT[INDEX]: why" in err
 * and v->at NULL. */
int ew_read_eval(const char *index, const tp_case *c, int64_t rows, int64_t cols, const char *op, const char *where,
                 const char *what, ew_read_vals *v, char *err, size_t errlen);

/* index(INDEX) is read as binary32: every value of v must be exact there
 * (within 2^24). 0, or -1 with "OP: WHERE: index(INDEX) is V at ...". */
int ew_index_exact(const ew_read_vals *v, const char *index, const char *op, const char *where, char *err,
                   size_t errlen);

/* An int32 input T is read as binary32: every value must be within 2^24.
 * 0, or -1 with "OP: input T holds V at element I; expected ...". */
int ew_int_input_exact(const tp_tensor *T, const char *op, char *err, size_t errlen);

#endif
