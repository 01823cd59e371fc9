/* The model of op "contraction" (issue 11, generic op families), read from
 * a contract's [model] and one case: a binary16 GEMM with fp32
 * accumulation in any order, batched, either operand transposed, followed
 * by an elementwise epilogue in binary32 written in the contract.
 *
 *   accumulation = "fp32"     order = "any"
 *   transpose_a, transpose_b  true or false (default false)
 *   arithmetic = "fp32"       fma = "no" | "any"   (the epilogue's)
 *   output_rounding = "nearest"
 *   [model.expr]   OUTPUT = "EXPRESSION"   (oracles/generic/ew_prog.h)
 *   [model.ulp]    FUNCTION = { cuda = K, hip = K }
 *
 * The operands are the contract's first two input tensors, A and B, both
 * binary16: op(A) is M x K, op(B) K x N (op the transpose of the last two
 * axes where transpose_a / transpose_b). The output is M x N, or
 * [batch, M, N]; then an operand of rank 3 has the batch as its leading
 * axis (batch stride M*K or K*N elements) and one of rank 2 is shared by
 * every batch entry (stride 0: a weight). EXPRESSION names:
 *   acc                  the binary32 accumulator of the element: sum_k
 *                        op(A)[b,m,k] op(B)[b,k,n];
 *   the other inputs     read at the element (the output's shape), at its
 *                        column (a vector of N: a bias) or once (one
 *                        element: a scale);
 *   the contract's dims  as binary32 values (exact up to 2^24). */
#ifndef TP_CT_SETUP_H
#define TP_CT_SETUP_H
#include "core/tp_format.h"
#include "core/tp_tensor.h"
#include "core/tp_value.h"
#include "oracles/common/proven/tp_ival.h"
#include "oracles/generic/ew_prog.h"

#include <stddef.h>
#include <stdint.h>

typedef enum { CT_AT_ELEMENT, CT_AT_COLUMN, CT_AT_SCALAR } ct_where;

/* Name slot 0 is acc; slots 1 .. nin the other inputs; then the dims. */
typedef struct {
    ew_model m;
    ew_prog prog;
    int identity; /* the expression is `acc` alone */
    const tp_tensor *A, *B, *O;
    int ta, tb;
    int64_t batch;              /* 1 for a rank-2 output */
    int64_t a_stride, b_stride; /* elements between batch entries (0: shared) */
    int M, N, K;
    int nin;
    const tp_tensor *in[EW_MAX_INPUTS];
    const tp_format *fmt[EW_MAX_INPUTS];
    ct_where where[EW_MAX_INPUTS];
    int ndims;
    float dim[TP_MAX_DIMS];
    int nslots;
    const tp_format *fo; /* the output's */
} ct_setup;

/* [model] alone: the keys and their forms. 0, or -1 with a message. */
int ct_check_model(const tp_value *model, char *err, size_t errlen);

/* The setup for output `output` of case c: 0, or -1 with what is wrong
 * and what was expected in err. */
int ct_setup_case(const tp_value *model, const tp_case *c, const char *output, ct_setup *s, char *err,
                  size_t errlen);

/* Batch entry b of operand T (A or B) as a rank-2 tensor (its last two
 * axes), sharing T's data. */
tp_tensor ct_operand(const ct_setup *s, const tp_tensor *T, int64_t b);

/* The epilogue's binary32 inputs of output element (b, m, n) into x and
 * point intervals box (slots 1 .. nslots-1; slot 0, acc, untouched). */
void ct_load(const ct_setup *s, int64_t b, int64_t m, int64_t n, float *x, tp_ival32 *box);

#endif
