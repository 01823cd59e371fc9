/* A row sum of squared differences from one value of the row, as a
 * variance is written: sum((x - c) * (x - c)) with x an input that varies
 * along the row and c an expression of the row's reduced values, dims and
 * once-per-row inputs (LayerNorm's c = s1 / cols).
 *
 * Op rowwise bounds each term on its own, c being an interval: the term
 * hulls add up a first-order term sum_j 2 |x_j - c| width(c) that no
 * kernel can produce, since every term of a row sees the same c. Here the
 * row is bounded as a whole instead:
 *   for each value c of the kernel, T(c) = sum_j (x_j - c)^2
 *   = Sxx - 2 c Sx + n c^2 over the exact moments Sx = sum x_j and
 *   Sxx = sum x_j^2, a convex quadratic; over c in [c_lo, c_hi] it lies
 *   between its minimum there (at the vertex Sx / n when that is inside,
 *   else at an end) and its larger end;
 *   d_j = RN32(x_j - c) = (x_j - c)(1 + e), |e| <= 2^-24 (a binary32
 *   difference that lands among subnormals is exact);
 *   the term the accumulator adds is d_j^2 exactly (fused into an fmaf)
 *   or RN32(d_j^2), within 2^-24 d_j^2 + 2^-150 of it, and never negative;
 *   so the exact sum D of the terms lies in
 *   [(1 - 2^-24)^3 T_min - n 2^-150, (1 + 2^-24)^3 T_max + n 2^-150], and
 *   sum |t_j| = D: the proven any-order sum bound at the lower end with
 *   its own value as the magnitude sum, and at the upper end likewise,
 *   holds every binary32 sum of the terms (the bound's interval is
 *   monotone in D: n C < 1).
 * The moments are exact (mpfr_sum), the quadratic and the factors in MPFR
 * with outward rounding. Tested against the per-term hull, not proven. */
#ifndef TP_RW_CENTRED_H
#define TP_RW_CENTRED_H
#include "oracles/common/proven/tp_ival.h"
#include "oracles/generic/rw_model.h"

#include <mpfr.h>

/* The pattern in a reduction's term: x is the name slot of the varying
 * input, c the node of the row-constant value. */
typedef struct {
    int x, c;
} rw_centred;

/* 1 and *m when term p of setup s is sum((x - c) * (x - c)) (or
 * (c - x) * (c - x), the two factors the same expression), else 0. */
int rw_centred_match(const rw_setup *s, const ew_prog *p, rw_centred *m);

/* Work space: the moments and the quadratic, in MPFR. */
typedef struct {
    mpfr_t sx, sxx, c, t, u, tmin, tmax;
} rw_centred_ws;

void rw_centred_ws_init(rw_centred_ws *w);
void rw_centred_ws_clear(rw_centred_ws *w);

/* The real interval [*L, *H] that holds every binary32 sum, in any order,
 * of the n terms (x_j - c)^2 evaluated as above, for every binary32 c in
 * cv. x holds the row's n values of the input; terms is MPFR scratch of
 * 2n 53-bit values with ptrs pointing at them (op rowwise's ends). Returns
 * 1, or 0 where this bound does not apply (an overflow is possible, the
 * row is too long for the proven bound): the per-term bound stays. */
int rw_centred_sum(rw_centred_ws *w, const float *x, long long n, tp_ival32 cv, mpfr_t *terms, mpfr_ptr *ptrs,
                   double *L, double *H);

#endif
