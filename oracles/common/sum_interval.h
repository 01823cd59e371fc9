/* The interval of the proven any-order binary32 sum bound
 * (oracles/common/proven/tp_sum_bound.c, T3) for the ops' sums of exact
 * terms, where its requires and its constant hold: S = hi + lo an exact
 * double pair, absum >= sum |t|, at most 65536 terms (TP_DOT_C, the
 * constant tp_sum_bound_rn is proven with, is the bound's only up to
 * there: oracles/common/sum_bound.h), and round-to-nearest, which its
 * proof assumes. Returns 1 with [*L, *H] holding every real within
 * n*C*absum + n*TP_DOT_ETA of S; 0 where it does not apply (the caller
 * keeps its own directed-rounding bound). */
#ifndef TP_SUM_INTERVAL_H
#define TP_SUM_INTERVAL_H

#include "oracles/common/proven/tp_sum_bound.h"
#include "oracles/common/sum_bound.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>

static inline int tp_sum_interval_exact(double hi, double lo, double absum, long long n, double *L, double *H)
{
    if (!(n >= 0 && n <= 65536 && tp_sum_c(n) == TP_DOT_C && fegetround() == FE_TONEAREST && isfinite(hi) &&
          isfinite(lo) && fabs(hi) <= 0x1p60 && fabs(lo) <= 0x1p60 && absum >= 0.0 && absum <= 0x1p60))
        return 0;
    const tp_ival64 b = tp_sum_bound_rn(hi, lo, absum, 0.0, (double)n);
    *L = b.lo;
    *H = b.hi;
    return 1;
}

/* The same for rows of up to 262144 terms: beyond 65536 through
 * tp_sum_bound_long_rn (the constant dot_fp32.c's `bound_long` is proven
 * with), the interval of 1.0087890625 n terms of the short constant. Op
 * rowwise, softmax_fwd and softmax_xent_bwd use it; the ops that stop at
 * 65536 terms call tp_sum_interval_exact. */
static inline int tp_sum_interval_long(double hi, double lo, double absum, long long n, double *L, double *H)
{
    if (n <= 65536)
        return tp_sum_interval_exact(hi, lo, absum, n, L, H);
    /* m = 0x1.024 n, exact; the `terms` requires checked in integers */
    const double m = (double)(1033 * n) * 0x1p-10;
    if (!(n <= 262144 && m * 1024.0 == (double)(1033 * n) && m == 0x1.024p0 * (double)n &&
          fegetround() == FE_TONEAREST && isfinite(hi) && isfinite(lo) && fabs(hi) <= 0x1p60 && fabs(lo) <= 0x1p60 &&
          absum >= 0.0 && absum <= 0x1p60))
        return 0;
    const tp_ival64 b = tp_sum_bound_long_rn(hi, lo, absum, 0.0, (double)n, m);
    *L = b.lo;
    *H = b.hi;
    return 1;
}

/* The same for S = fx 2^-24, an int64 fixed-point exact sum (binary16
 * terms are integers times 2^-24): within 2^62 its double and the
 * remainder form an exact pair. */
static inline int tp_sum_interval_fix24(int64_t fx, double absum, long long n, double *L, double *H)
{
    const double h = (double)fx;
    if (!(fabs(h) <= 0x1p62))
        return 0;
    const double l = (double)(fx - (int64_t)h);
    return tp_sum_interval_exact(ldexp(h, -24), ldexp(l, -24), absum, n, L, H);
}

#endif
