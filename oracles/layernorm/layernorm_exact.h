/* Exact LayerNorm sums longer than one call of the proven routines:
 * row sums and row dot products of up to TP_LN_COLS_MAX binary16 terms,
 * column sums of up to TP_LN_ROWS_MAX rows.
 *
 * Each is the proven routine of oracles/layernorm/proven/ (layernorm.c,
 * layernorm_cols.c: exact for at most TP_LN_N_MAX = 8192 terms) called on
 * consecutive chunks of at most TP_LN_N_MAX terms, the chunks' results
 * combined by additions that are exact (layernorm_exact.c argues why, and
 * checks each addition at run time: an inexact one is an error, never a
 * wrong sum). A sum of at most TP_LN_N_MAX terms is one chunk: the proven
 * routine's own result. */
#ifndef TP_LAYERNORM_EXACT_H
#define TP_LAYERNORM_EXACT_H

#include <mpfr.h>
#include <stdint.h>

/* Longest row (terms) of a row sum or row dot product. */
#define TP_LN_COLS_MAX 65536

/* Longest column (rows) of a column sum. */
#define TP_LN_ROWS_MAX 1048576

/* The least MPFR precision that holds every row sum and row dot product
 * of at most TP_LN_COLS_MAX terms exactly (layernorm_exact.c). */
#define TP_LN_EXACT_PREC 128

/* out = sum_{j < n} a[j] (b == NULL) or sum_{j < n} a[j] * b[j], exactly;
 * a[j], b[j] binary16 values held in floats, 0 <= n <= TP_LN_COLS_MAX, out
 * of precision >= TP_LN_EXACT_PREC. Returns 0, or -1 when n or out's
 * precision is outside those ranges or an addition was inexact. */
int tp_ln_row_sum_exact(int n, const float *a, const float *b, mpfr_t out);

/* fix[c] = 2^24 * sum_{r < R} a[r*C + c] for every column c < C (an
 * integer: binary16 values are multiples of 2^-24), exactly; a holds
 * binary16 values in floats, row-major R x C, 0 <= R <= TP_LN_ROWS_MAX
 * (|fix| < 2^16 * 2^20 * 2^24 = 2^60). Returns 0, or -1 when R is out of
 * range, memory runs out, or a conversion was inexact. */
int tp_ln_col_sums_fix(int R, int C, const float *a, int64_t *fix);

/* v * 2^-24 rounded to a double in the current rounding mode (one
 * rounding: the int64 conversion; the scaling by 2^-24 is exact). */
double tp_ln_fix_to_double(int64_t v);

#endif
