#include "oracles/layernorm/layernorm_model.h"

#include "oracles/common/sum_bound.h" /* tp_sum_c, TP_DOT_ETA: the sum bound's constants, derived per length */
#include "oracles/layernorm/layernorm_exact.h"
#include "oracles/common/op_common.h" /* tp_parse_f32 */
#include "oracles/common/ival_guard.h"
#include "oracles/common/sum_interval.h"
#include "oracles/common/vendor_ulp.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

int tp_ln_parse_f32(const char *s, float *out) { return tp_parse_f32(s, out) != 0 || !isfinite(*out) ? -1 : 0; }

float tp_ln_f32_up(double v)
{
    float f = (float)v; /* a neighbour of v in any rounding mode */
    if ((double)f < v)
        f = nextafterf(f, INFINITY);
    return f;
}

float tp_ln_f32_down(double v)
{
    float f = (float)v;
    if ((double)f > v)
        f = nextafterf(f, -INFINITY);
    return f;
}

float tp_ln_rsqrt_rn(float w)
{
    /* 24 bits and round-to-nearest give RN32 directly: 1/sqrt(w) of a
     * finite positive float lies in [2^-64, 2^75], inside the normal range,
     * so no double rounding through subnormals can occur. */
    mpfr_t a, r;
    mpfr_init2(a, 24);
    mpfr_init2(r, 24);
    mpfr_set_flt(a, w, MPFR_RNDN);
    mpfr_rec_sqrt(r, a, MPFR_RNDN);
    float f = mpfr_get_flt(r, MPFR_RNDN);
    mpfr_clear(a);
    mpfr_clear(r);
    return f;
}

void tp_ln_sum_reals(double slo, double shi, double absum, int n, int rounded_terms, double *lo, double *hi)
{
    int saved = fegetround();
    fesetround(FE_UPWARD);
    double e = (double)n * tp_sum_c(n) * absum + (double)(rounded_terms ? 2 * n : n) * TP_DOT_ETA;
    *hi = shi + e;
    fesetround(FE_DOWNWARD);
    *lo = slo - e;
    fesetround(saved);
}

tp_ln_fint tp_ln_sum_model(double slo, double shi, double absum, int n, int rounded_terms)
{
    double lo, hi;
    tp_ln_sum_reals(slo, shi, absum, n, rounded_terms, &lo, &hi);
    tp_ln_fint r = {tp_ln_f32_up(lo), tp_ln_f32_down(hi)};
    return r;
}

tp_ln_fint tp_ln_sum_model_exact(const mpfr_t S, double absum, int n)
{
    /* S as a double pair hi + lo, when two doubles hold it exactly (sums of
     * binary16 values and of their exact products do, up to 2^31 terms) */
    mpfr_t r;
    mpfr_init2(r, mpfr_get_prec(S));
    const double hi = mpfr_get_d(S, MPFR_RNDN);
    mpfr_sub_d(r, S, hi, MPFR_RNDN);
    const double lo = mpfr_get_d(r, MPFR_RNDN);
    mpfr_sub_d(r, r, lo, MPFR_RNDN);
    const int pair_exact = mpfr_zero_p(r);
    mpfr_clear(r);
    double L, H;
    if (pair_exact && tp_sum_interval_exact(hi, lo, absum, n, &L, &H)) {
        const tp_ln_fint f = {tp_ln_f32_up(L), tp_ln_f32_down(H)};
        return f;
    }
    return tp_ln_sum_model(mpfr_get_d(S, MPFR_RNDD), mpfr_get_d(S, MPFR_RNDU), absum, n, 0);
}

/* The proven interval quotient where its requires hold, else the same two
 * roundings on the host (n > 0: the ends are RN32(a.lo / n) and
 * RN32(a.hi / n), division by a positive constant being monotone). */
tp_ln_fint tp_ln_div_n(tp_ln_fint a, float nf)
{
    const tp_ival32 av = {a.lo, a.hi}, nv = {nf, nf};
    if (tp_ival32_div_ok(av, nv)) {
        const tp_ival32 q = tp_ival32_div(av, nv);
        const tp_ln_fint r = {q.lo, q.hi};
        return r;
    }
    const tp_ln_fint r = {a.lo / nf, a.hi / nf};
    return r;
}

/* { RN32(v + eps) : v in [a.lo, a.hi] }: the proven interval sum
 * (oracles/common/proven/tp_ival.c, T3) where its requires hold. */
static tp_ln_fint add_eps(tp_ln_fint a, float eps)
{
    const tp_ival32 av = {a.lo, a.hi}, ev = {eps, eps};
    if (tp_ival32_addsub_ok(av, ev)) {
        const tp_ival32 w = tp_ival32_add(av, ev);
        const tp_ln_fint r = {w.lo, w.hi};
        return r;
    }
    const tp_ln_fint r = {a.lo + eps, a.hi + eps};
    return r;
}

/* T(m) = sum_j (x_j - m)^2 = Q - 2 m S + n m^2, rounded in direction rnd
 * (every operation rounds the same way, and the subtrahend the other way). */
static void sumsq_at(mpfr_t out, float m, const mpfr_t S, const mpfr_t Q, int n, mpfr_rnd_t rnd)
{
    mpfr_rnd_t other = rnd == MPFR_RNDD ? MPFR_RNDU : MPFR_RNDD;
    mpfr_t a, b;
    mpfr_inits2(mpfr_get_prec(out), a, b, (mpfr_ptr)0);
    mpfr_mul_d(a, S, 2.0 * (double)m, other);   /* 2 m S */
    mpfr_set_flt(b, m, MPFR_RNDN);               /* exact */
    mpfr_sqr(b, b, rnd);
    mpfr_mul_si(b, b, n, rnd);                   /* n m^2 */
    mpfr_sub(out, Q, a, rnd);
    mpfr_add(out, out, b, rnd);
    mpfr_clears(a, b, (mpfr_ptr)0);
}

int tp_ln_row_stats(int n, const float *x, float eps, int rsqrt_ulp, tp_ln_fint *mean, tp_ln_fint *rstd, mpfi_t mu,
                    mpfi_t rho)
{
    if (n < 1 || n > TP_LN_COLS_MAX)
        return -1;
    int saved = fegetround();
    /* the exact sums S = sum x and Q = sum x^2 (layernorm_exact.c) */
    mpfr_t Se, Qe;
    mpfr_inits2(TP_LN_EXACT_PREC, Se, Qe, (mpfr_ptr)0);
    if (tp_ln_row_sum_exact(n, x, NULL, Se) != 0 || tp_ln_row_sum_exact(n, x, x, Qe) != 0) {
        mpfr_clears(Se, Qe, (mpfr_ptr)0);
        return -1;
    }

    if (mu || rho) {
        mpfi_t S, Q, t;
        mpfi_init2(S, TP_LN_PREC);
        mpfi_init2(Q, TP_LN_PREC);
        mpfi_init2(t, TP_LN_PREC);
        mpfi_set_fr(S, Se); /* exact: TP_LN_PREC >= TP_LN_EXACT_PREC */
        mpfi_set_fr(Q, Qe);
        if (mu)
            mpfi_div_ui(mu, S, (unsigned long)n);
        if (rho) {
            /* var = (Q - S^2/n) / n >= 0; the enclosure may dip below 0 */
            mpfi_sqr(t, S);
            mpfi_div_ui(t, t, (unsigned long)n);
            mpfi_sub(t, Q, t);
            mpfi_div_ui(t, t, (unsigned long)n);
            mpfi_add_d(t, t, (double)eps);
            mpfi_sqrt(t, t);
            mpfi_inv(rho, t);
        }
        mpfi_clear(S);
        mpfi_clear(Q);
        mpfi_clear(t);
    }
    if (!mean && !rstd) {
        mpfr_clears(Se, Qe, (mpfr_ptr)0);
        return 0;
    }

    /* pass 1: s, then mean = RN32(s / n), monotone in s */
    fesetround(FE_UPWARD);
    double absx = 0.0; /* exact up to 2^13 terms, rounded up beyond */
    for (int j = 0; j < n; j++)
        absx += fabs((double)x[j]);
    fesetround(FE_TONEAREST);
    const tp_ln_fint s = tp_ln_sum_model_exact(Se, absx, n);
    const float nf = (float)n;
    const tp_ln_fint m = tp_ln_div_n(s, nf);
    if (mean)
        *mean = m;
    if (!rstd) {
        mpfr_clears(Se, Qe, (mpfr_ptr)0);
        fesetround(saved);
        return 0;
    }

    /* pass 2. For any fp32 mean m of the kernel, d_j = RN32(x_j - m) =
     * (x_j - m)(1 + delta_j), |delta_j| <= 2^-24 (a difference of floats
     * that lands among subnormals is exact), so sum d_j^2 lies within
     * (1 -+ 2^-24)^2 T(m), T(m) = sum (x_j - m)^2 = V + n (mu - m)^2: T is
     * convex in m with its minimum V at mu. Then q adds the sum bound. */
    mpfr_t S, Q, Tlo, Thi, a, b;
    mpfr_inits2(704, S, Q, Tlo, Thi, a, b, (mpfr_ptr)0);
    mpfr_set(S, Se, MPFR_RNDN); /* exact: 704 bits */
    mpfr_set(Q, Qe, MPFR_RNDN);
    sumsq_at(a, m.lo, S, Q, n, MPFR_RNDU);
    sumsq_at(b, m.hi, S, Q, n, MPFR_RNDU);
    mpfr_max(Thi, a, b, MPFR_RNDU);
    /* mu in [m.lo, m.hi] iff n m.lo <= S <= n m.hi (exact products) */
    mpfr_set_flt(a, m.lo, MPFR_RNDN);
    mpfr_mul_si(a, a, n, MPFR_RNDN);
    mpfr_set_flt(b, m.hi, MPFR_RNDN);
    mpfr_mul_si(b, b, n, MPFR_RNDN);
    if (mpfr_lessequal_p(a, S) && mpfr_lessequal_p(S, b)) {
        mpfr_sqr(a, S, MPFR_RNDU);
        mpfr_div_si(a, a, n, MPFR_RNDU);
        mpfr_sub(Tlo, Q, a, MPFR_RNDD); /* V */
    } else {
        sumsq_at(a, m.lo, S, Q, n, MPFR_RNDD);
        sumsq_at(b, m.hi, S, Q, n, MPFR_RNDD);
        mpfr_min(Tlo, a, b, MPFR_RNDD);
    }
    if (mpfr_sgn(Tlo) < 0)
        mpfr_set_zero(Tlo, 1);
    /* D = sum d_j^2, the exact sum of the kernel's squares, lies in
     * [(1 - 2^-24)^2 Tlo, (1 + 2^-24)^2 Thi]. */
    mpfr_set_d(a, 1.0 - 0x1p-24, MPFR_RNDN);
    mpfr_sqr(a, a, MPFR_RNDD);
    mpfr_mul(Tlo, Tlo, a, MPFR_RNDD);
    mpfr_set_d(a, 1.0 + 0x1p-24, MPFR_RNDN);
    mpfr_sqr(a, a, MPFR_RNDU);
    mpfr_mul(Thi, Thi, a, MPFR_RNDU);
    const double dlo = mpfr_get_d(Tlo, MPFR_RNDD), dhi = mpfr_get_d(Thi, MPFR_RNDU);
    /* q, their fp32 dot product in any order, fused or not, lies within
     * n C D + n eta of D (squares: sum |d_j d_j| = D). Up to 65536 terms
     * by the proven any-order sum bound (tp_sum_bound_rn, T3, through
     * sum_interval.h) at each end, with the abs sum equal to that end: its
     * interval at dlo reaches down to dlo (1 - n C) - n eta, below
     * D (1 - n C) - n eta for every D >= dlo, and at dhi up to
     * dhi (1 + n C) + n eta. Longer rows: the same bound by hand, with
     * 2 n eta. */
    fesetround(FE_TONEAREST);
    double qlo_d, qhi_d, L_lo, H_lo, L_hi, H_hi;
    if (dlo >= 0.0 && tp_sum_interval_exact(dlo, 0.0, dlo, n, &L_lo, &H_lo) &&
        tp_sum_interval_exact(dhi, 0.0, dhi, n, &L_hi, &H_hi)) {
        qlo_d = L_lo;
        qhi_d = H_hi;
    } else {
        mpfr_set_d(a, (double)n, MPFR_RNDN);
        mpfr_mul_d(a, a, tp_sum_c(n), MPFR_RNDU); /* n C */
        mpfr_si_sub(b, 1, a, MPFR_RNDD);
        mpfr_mul(Tlo, Tlo, b, MPFR_RNDD);
        mpfr_sub_d(Tlo, Tlo, 2.0 * (double)n * TP_DOT_ETA, MPFR_RNDD);
        mpfr_add_si(b, a, 1, MPFR_RNDU);
        mpfr_mul(Thi, Thi, b, MPFR_RNDU);
        mpfr_add_d(Thi, Thi, 2.0 * (double)n * TP_DOT_ETA, MPFR_RNDU);
        qlo_d = mpfr_get_d(Tlo, MPFR_RNDD);
        qhi_d = mpfr_get_d(Thi, MPFR_RNDU);
    }
    mpfr_clears(S, Q, Tlo, Thi, a, b, Se, Qe, (mpfr_ptr)0);
    float qlo = tp_ln_f32_up(qlo_d), qhi = tp_ln_f32_down(qhi_d);
    if (qlo < 0.0f) /* a sum of rounded squares is never negative */
        qlo = 0.0f;
    /* var = RN32(q / n), w = RN32(var + eps), rstd near RN32(1/sqrt(w)):
     * each step monotone (the last decreasing) */
    const tp_ln_fint q = {qlo, qhi}, w = add_eps(tp_ln_div_n(q, nf), eps);
    const float wlo = w.lo, whi = w.hi;
    const float rlo = tp_ln_rsqrt_rn(whi), rhi = tp_ln_rsqrt_rn(wlo);
    rstd->lo = tp_vendor_lower(rlo, rhi, rsqrt_ulp); /* rsqrtf within its ulps: oracles/common/vendor_ulp.h */
    rstd->hi = tp_vendor_upper(rlo, rhi, rsqrt_ulp);
    fesetround(saved);
    return 0;
}

void tp_ln_enclosure(const mpfi_t v, double *lo, double *mid, double *hi)
{
    mpfr_t t;
    mpfr_init2(t, mpfi_get_prec(v));
    mpfi_get_left(t, v);
    *lo = mpfr_get_d(t, MPFR_RNDD);
    mpfi_get_right(t, v);
    *hi = mpfr_get_d(t, MPFR_RNDU);
    mpfi_mid(t, v);
    *mid = mpfr_get_d(t, MPFR_RNDN);
    mpfr_clear(t);
}
