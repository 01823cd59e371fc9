#include "oracles/common/exp_enclose.h"

#include <math.h>

/* ln2 = LN2_HI + ln2_lo: LN2_HI has 32 significant bits, so k * LN2_HI is
 * exact for |k| < 2^21; the rest, 1.908...e-10 (fdlibm's ln2LO, the double
 * nearest ln2 - LN2_HI), is enclosed by its two neighbours. */
#define LN2_HI 0x1.62e42feep-1
#define LN2_LO_MID 1.90821492927058770002e-10
#define INV_LN2 1.4426950408889634 /* any value near: k is a choice */

/* exp(t) - sum_{i <= 13} t^i / i! <= t^14 / 14! e^t <= 2^-55 for 0 <= t <= 0.375 */
#define TAYLOR_DEG TP_EXP_TAYLOR_DEG
#define REM_UP 0x1p-55
#define R_MAX 0.375

/* In FE_UPWARD: sums and products round up; their lower bounds come from
 * down(a + b) = -((-a) + (-b)) and down(a * b) = -((-a) * b). */
static inline double dn_add(double a, double b) { return -((-a) + (-b)); }
static inline double dn_mul(double a, double b) { return -((-a) * b); }
static inline double dn_div(double a, double b) { return -((-a) / b); }

/* 1/i! enclosed: from 1/0! = 1 by division by i, each bound rounded its
 * own way. */
void tp_exp_ctx_init(tp_exp_ctx *c)
{
    c->lo[0] = c->hi[0] = 1.0;
    for (int i = 1; i <= TAYLOR_DEG; i++) {
        c->hi[i] = c->hi[i - 1] / i;
        c->lo[i] = dn_div(c->lo[i - 1], i);
    }
}

/* sum c_i t^i for 0 <= t, every operation rounded down (a lower bound of
 * the polynomial, hence of exp(t)) or up (an upper bound of the
 * polynomial). Horner's rule: all terms positive, so rounding each step
 * one way bounds the result that way. */
static double poly_dn(const tp_exp_ctx *c, double t)
{
    double p = c->lo[TAYLOR_DEG];
    for (int i = TAYLOR_DEG - 1; i >= 0; i--)
        p = dn_add(dn_mul(p, t), c->lo[i]);
    return p;
}

static double poly_up(const tp_exp_ctx *c, double t)
{
    double p = c->hi[TAYLOR_DEG];
    for (int i = TAYLOR_DEG - 1; i >= 0; i--)
        p = p * t + c->hi[i];
    return p;
}

/* A bound of exp(x) for one point x in [-708, 709]: a lower bound when
 * upper is 0, an upper bound when 1. */
static double exp_end(const tp_exp_ctx *c, double x, int upper)
{
    const double k = floor(x * INV_LN2 + 0.5);
    const double l2lo = nextafter(LN2_LO_MID, 0.0), l2hi = nextafter(LN2_LO_MID, 1.0);
    /* r = x - k ln2 = (x - k LN2_HI) - k ln2_lo: k LN2_HI exact, the rest rounded outward */
    const double a = k * LN2_HI; /* exact */
    double r;
    if (upper)
        r = (x - a) - (k >= 0 ? dn_mul(k, l2lo) : dn_mul(k, l2hi)); /* up(x - a) - down(k ln2_lo) */
    else
        r = dn_add(dn_add(x, -a), -(k >= 0 ? k * l2hi : k * l2lo));
    if (!(fabs(r) <= R_MAX)) /* cannot happen for x in range: k is the nearest multiple */
        return upper ? INFINITY : 0.0;
    double e;
    if (upper)
        e = r >= 0.0 ? poly_up(c, r) + REM_UP : 1.0 / poly_dn(c, -r); /* exp(r) = 1 / exp(-r) */
    else
        e = r >= 0.0 ? poly_dn(c, r) : dn_div(1.0, poly_up(c, -r) + REM_UP);
    return ldexp(e, (int)k); /* exact: 2^k e stays normal for x in [-708, 709] */
}

void tp_exp_enclose_up(const tp_exp_ctx *c, double xlo, double xhi, double *lo, double *hi)
{
    *lo = xlo < -708.0 ? 0.0 : exp_end(c, fmin(xlo, 709.0), 0); /* exp increases: exp(709) bounds beyond */
    *hi = xhi < -708.0 ? 0x1p-1020 : xhi > 709.0 ? INFINITY : exp_end(c, xhi, 1);
}
