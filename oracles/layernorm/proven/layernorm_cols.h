/* Exact column sums for LayerNorm's grad_gamma/grad_beta reference
 * (layernorm_cols.c). Declared apart from layernorm.h so that its proof
 * (real model) does not re-prove the IEEE-model helpers of exact_sum.h. */
#ifndef TP_LAYERNORM_COLS_H
#define TP_LAYERNORM_COLS_H

#include "layernorm.acsl"

/* Longest sum (terms) of every LayerNorm exact sum. */
#define TP_LN_N_MAX 8192

/* The split scale of oracles/common/proven/exact_sum.h (TP_EXACT_SPLIT). */
#define TP_LN_SPLIT 0x1.8p44

/* hi[c] + lo[c] = sum_{r < R} a[r*C + c] for every column c < C; a holds
 * binary16 values, row-major R x C. */
/*@ requires sizes: 0 <= R <= TP_LN_N_MAX && 0 <= C;
  @ requires valid_a: \valid_read(a + (0 .. R*C - 1));
  @ requires binary16: \forall integer k; 0 <= k < R*C ==> f16_float(a[k]);
  @ requires valid_hi: \valid(hi + (0 .. C - 1));
  @ requires valid_lo: \valid(lo + (0 .. C - 1));
  @ requires separated: \separated(hi + (0 .. C - 1), lo + (0 .. C - 1));
  @ assigns hi[0 .. C - 1], lo[0 .. C - 1];
  @ ensures result: \forall integer c; 0 <= c < C ==> hi[c] + lo[c] == ln_col_sum(a, C, c, R);
  @*/
void tp_ln_col_sums(int R, int C, const float *a, double *hi, double *lo);

#endif
