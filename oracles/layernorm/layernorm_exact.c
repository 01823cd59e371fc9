/* Chunked exact LayerNorm sums (see layernorm_exact.h).
 *
 * Why the combinations are exact.
 *
 * Row sums and dot products. tp_ln_row_sum and tp_ln_row_dot are proven
 * (oracles/layernorm/proven/layernorm.c, IEEE float model) to return hi +
 * lo equal to the exact sum of their at most TP_LN_N_MAX = 2^13 terms,
 * with hi a multiple of 2^-8, |hi| <= 2^13 * 2^32 = 2^45, and lo a
 * multiple of 2^-48, |lo| <= 2^13 * TP_EXACT_REST < 2^5 (their loop
 * invariant acc_ok). A row of n <= TP_LN_COLS_MAX = 2^16 terms is at most
 * 8 chunks, so every partial sum of the chunks' hi and lo is a multiple of
 * 2^-48 below 8 (2^45 + 2^5) < 2^49 in magnitude: an integer below 2^97
 * times 2^-48, which an MPFR number of 97 bits or more holds exactly. So
 * each mpfr_add_d at precision >= TP_LN_EXACT_PREC = 128 is exact, and
 * MPFR says so: its ternary value is 0 exactly when the result is the
 * exact sum. It is checked all the same: a non-zero one is an error.
 *
 * Column sums. tp_ln_col_sums is proven in WP's IEEE float model
 * (layernorm_cols.c, with oracles/common/proven/exact_row.c; binary16
 * inputs, at most 2^13 rows) to return hi[c] + lo[c] equal to the exact
 * column sum of its chunk of rows. Its terms
 * are binary16 values, multiples of 2^-24, so hi[c] (a multiple of 2^-8)
 * and lo[c] (a sum of low parts p - t, multiples of 2^-24) are multiples of
 * 2^-24 too, with |hi[c]| <= 2^13 * 65504 < 2^29 and |lo[c]| < 2^5: times
 * 2^24 (exact: a power of two) they are integers below 2^53, converted to
 * int64 exactly (checked: the conversion back must give the same double).
 * Summed over at most 2^20 / 2^13 = 128 chunks in int64 they stay below
 * 2^20 * 65504 * 2^24 < 2^60 in magnitude: integer additions, exact.
 *
 * Nothing here depends on the rounding mode: the proven routines' double
 * operations are exact in every mode (their results are representable),
 * and so are the scalings, conversions and MPFR additions above. */
#include "oracles/layernorm/layernorm_exact.h"

#include "oracles/layernorm/proven/layernorm.h"

#include <stdlib.h>

int tp_ln_row_sum_exact(int n, const float *a, const float *b, mpfr_t out)
{
    if (n < 0 || n > TP_LN_COLS_MAX || mpfr_get_prec(out) < TP_LN_EXACT_PREC)
        return -1;
    int inexact = mpfr_set_ui(out, 0, MPFR_RNDN);
    for (int j0 = 0; j0 < n; j0 += TP_LN_N_MAX) {
        const int m = n - j0 < TP_LN_N_MAX ? n - j0 : TP_LN_N_MAX;
        double hi, lo;
        if (b)
            tp_ln_row_dot(m, a + j0, b + j0, &hi, &lo);
        else
            tp_ln_row_sum(m, a + j0, &hi, &lo);
        inexact |= mpfr_add_d(out, out, hi, MPFR_RNDN);
        inexact |= mpfr_add_d(out, out, lo, MPFR_RNDN);
    }
    return inexact ? -1 : 0;
}

/* v (a multiple of 2^-24 below 2^53 * 2^-24) as the integer v * 2^24, or
 * -1 in *bad when it is not one. */
static int64_t fix_of(double v, int *bad)
{
    const double s = v * 0x1p24;
    if (!(s > -0x1p53 && s < 0x1p53)) {
        *bad = 1;
        return 0;
    }
    const int64_t i = (int64_t)s;
    if ((double)i != s)
        *bad = 1;
    return i;
}

int tp_ln_col_sums_fix(int R, int C, const float *a, int64_t *fix)
{
    if (R < 0 || R > TP_LN_ROWS_MAX || C < 0)
        return -1;
    double *hi = malloc((size_t)(C ? C : 1) * sizeof *hi), *lo = malloc((size_t)(C ? C : 1) * sizeof *lo);
    if (!hi || !lo) {
        free(hi), free(lo);
        return -1;
    }
    for (int c = 0; c < C; c++)
        fix[c] = 0;
    int bad = 0;
    for (int r0 = 0; r0 < R; r0 += TP_LN_N_MAX) {
        const int m = R - r0 < TP_LN_N_MAX ? R - r0 : TP_LN_N_MAX;
        tp_ln_col_sums(m, C, a + (size_t)r0 * C, hi, lo);
        for (int c = 0; c < C; c++)
            fix[c] += fix_of(hi[c], &bad) + fix_of(lo[c], &bad);
    }
    free(hi), free(lo);
    return bad ? -1 : 0;
}

double tp_ln_fix_to_double(int64_t v) { return (double)v * 0x1p-24; }
