/* Exact column sums for LayerNorm's grad_gamma/grad_beta reference, proven
 * in WP's IEEE float model: layernorm_cols.c runs the rows, each added to
 * the column accumulators by tp_exact_row_madd
 * (oracles/common/proven/exact_row.c) with the multiplier 1. */
#ifndef TP_LAYERNORM_COLS_H
#define TP_LAYERNORM_COLS_H

#include "layernorm.acsl"
#include "../../common/proven/exact_row.h"
#include "../../common/proven/mat_row.acsl"

/* Longest sum (terms) of every LayerNorm exact sum. */
#define TP_LN_N_MAX 8192

/* hi[c] + lo[c] = sum_{r < R} a[r*C + c] for every column c < C; a holds
 * binary16 values, row-major R x C. The memory requires are stated row by
 * row (for C > 0 the same as over a[0 .. R*C - 1]) through mat_row
 * (oracles/common/proven/mat_row.acsl): each row's facts are then an
 * instance the provers find. */
/*@ requires sizes: 0 <= R <= TP_LN_N_MAX && 0 <= C;
  @ requires valid_a: \forall integer r; 0 <= r < R ==> \valid_read(mat_row(a, C, r) + (0 .. C - 1));
  @ requires binary16: \forall integer r, c; 0 <= r < R && 0 <= c < C ==> f16_float(mat_row(a, C, r)[c]);
  @ requires valid_hi: \valid(hi + (0 .. C - 1));
  @ requires valid_lo: \valid(lo + (0 .. C - 1));
  @ requires separated: \separated(hi + (0 .. C - 1), lo + (0 .. C - 1));
  @ assigns hi[0 .. C - 1], lo[0 .. C - 1];
  @ ensures result: \forall integer c; 0 <= c < C ==> hi[c] + lo[c] == ln_col_sum(a, C, c, R);
  @*/
void tp_ln_col_sums(int R, int C, const float *a, double *hi, double *lo);

#endif
