#include "oracles/generic/rw_centred.h"

#include "oracles/common/sum_interval.h"

#include <math.h>
#include <string.h>

/* Sx spans at most 2^-149 .. 2^149 (2^21 binary32 terms), Sxx at most
 * 2^-298 .. 2^277: 704 bits hold either exactly (mpfr_sum says so). The
 * quadratic's few operations round outward at 1024 bits. */
#define MOMENT_PREC 704
#define QUAD_PREC 1024

/* Whether subtrees i and j of p compute the same expression. */
static int same_tree(const ew_prog *p, int i, int j)
{
    if (i == j)
        return 1;
    const ew_node *a = &p->node[i], *b = &p->node[j];
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case EW_INPUT:
        return a->input == b->input;
    case EW_CONST:
        return memcmp(&a->value, &b->value, sizeof a->value) == 0;
    case EW_NEG:
    case EW_RN16:
        return same_tree(p, a->a, b->a);
    case EW_FMA:
    case EW_SELECT:
        return same_tree(p, a->a, b->a) && same_tree(p, a->b, b->b) && same_tree(p, a->c, b->c);
    default:
        if (a->kind >= EW_FIRST_FN)
            return same_tree(p, a->a, b->a);
        return same_tree(p, a->a, b->a) && same_tree(p, a->b, b->b);
    }
}

/* Whether subtree i reads nothing that varies along the line. */
static int row_constant(const rw_setup *s, const ew_prog *p, int i)
{
    const ew_node *nd = &p->node[i];
    switch (nd->kind) {
    case EW_INPUT:
        return !rw_varies(s, nd->input);
    case EW_CONST:
        return 1;
    case EW_NEG:
    case EW_RN16:
        return row_constant(s, p, nd->a);
    case EW_FMA:
    case EW_SELECT:
        return row_constant(s, p, nd->a) && row_constant(s, p, nd->b) && row_constant(s, p, nd->c);
    default:
        if (nd->kind >= EW_FIRST_FN)
            return row_constant(s, p, nd->a);
        return row_constant(s, p, nd->a) && row_constant(s, p, nd->b);
    }
}

int rw_centred_match(const rw_setup *s, const ew_prog *p, rw_centred *m)
{
    const ew_node *root = &p->node[p->n - 1];
    if (p->n < 3 || root->kind != EW_MUL || !same_tree(p, root->a, root->b))
        return 0;
    const ew_node *d = &p->node[root->a];
    if (d->kind != EW_SUB)
        return 0;
    for (int side = 0; side < 2; side++) {
        const int xi = side ? d->b : d->a, ci = side ? d->a : d->b;
        const ew_node *x = &p->node[xi];
        if (x->kind == EW_INPUT && rw_varies(s, x->input) && row_constant(s, p, ci)) {
            m->x = x->input, m->c = ci;
            return 1;
        }
    }
    return 0;
}

void rw_centred_ws_init(rw_centred_ws *w)
{
    mpfr_inits2(MOMENT_PREC, w->sx, w->sxx, (mpfr_ptr)0);
    mpfr_inits2(QUAD_PREC, w->c, w->t, w->u, w->tmin, w->tmax, (mpfr_ptr)0);
}

void rw_centred_ws_clear(rw_centred_ws *w)
{
    mpfr_clears(w->sx, w->sxx, w->c, w->t, w->u, w->tmin, w->tmax, (mpfr_ptr)0);
}

/* T(c) = Sxx - 2 c Sx + n c^2 into out, rounded toward rnd (MPFR_RNDD or
 * MPFR_RNDU): each operation rounds that way, and each product has exact
 * operands, so out is a lower (upper) bound. */
static void quad_at(rw_centred_ws *w, float c, long long n, mpfr_t out, mpfr_rnd_t rnd)
{
    mpfr_set_flt(w->c, c, MPFR_RNDN); /* exact */
    mpfr_mul(w->t, w->c, w->sx, rnd == MPFR_RNDD ? MPFR_RNDU : MPFR_RNDD);
    mpfr_mul_2ui(w->t, w->t, 1, MPFR_RNDN); /* exact */
    mpfr_sub(out, w->sxx, w->t, rnd);
    mpfr_sqr(w->u, w->c, rnd);
    mpfr_mul_si(w->u, w->u, (long)n, rnd);
    mpfr_add(out, out, w->u, rnd);
}

/* The largest binary32 value that round-to-nearest leaves finite, less
 * one half ulp: a real whose magnitude is at most this rounds finite. */
#define F32_SAFE 0x1.fffffcp127

int rw_centred_sum(rw_centred_ws *w, const float *x, long long n, tp_ival32 cv, mpfr_t *terms, mpfr_ptr *ptrs,
                   double *L, double *H)
{
    if (n < 1 || !isfinite(cv.lo) || !isfinite(cv.hi))
        return 0;
    double dmax = 0.0; /* max |x_j - c|: the differences must round finite */
    for (long long j = 0; j < n; j++) {
        const double a = fabs((double)x[j] - cv.lo), b = fabs((double)x[j] - cv.hi); /* exact: 2 floats */
        dmax = fmax(dmax, fmax(a, b));
        mpfr_set_flt(terms[j], x[j], MPFR_RNDN);                    /* exact */
        mpfr_set_d(terms[n + j], (double)x[j] * x[j], MPFR_RNDN); /* exact: 48 bits */
    }
    /* d_j^2 <= dmax^2 (1 + 2^-24)^2 and its rounding must stay finite */
    if (!(dmax <= 0x1p63 && dmax * dmax * (1.0 + 0x1p-22) <= F32_SAFE))
        return 0;
    if (mpfr_sum(w->sx, ptrs, (unsigned long)n, MPFR_RNDN) != 0 ||
        mpfr_sum(w->sxx, ptrs + n, (unsigned long)n, MPFR_RNDN) != 0)
        return 0; /* not exact: cannot happen at MOMENT_PREC bits */

    quad_at(w, cv.lo, n, w->tmax, MPFR_RNDU);
    quad_at(w, cv.hi, n, w->tmin, MPFR_RNDU);
    mpfr_max(w->tmax, w->tmax, w->tmin, MPFR_RNDU);
    /* the vertex Sx / n lies in [c_lo, c_hi] iff n c_lo <= Sx <= n c_hi */
    mpfr_set_flt(w->c, cv.lo, MPFR_RNDN);
    mpfr_mul_si(w->t, w->c, (long)n, MPFR_RNDN); /* exact: 24 + 21 bits */
    mpfr_set_flt(w->c, cv.hi, MPFR_RNDN);
    mpfr_mul_si(w->u, w->c, (long)n, MPFR_RNDN);
    if (mpfr_lessequal_p(w->t, w->sx) && mpfr_lessequal_p(w->sx, w->u)) {
        mpfr_sqr(w->t, w->sx, MPFR_RNDU); /* Sxx - Sx^2 / n, rounded down */
        mpfr_div_si(w->t, w->t, (long)n, MPFR_RNDU);
        mpfr_sub(w->tmin, w->sxx, w->t, MPFR_RNDD);
    } else {
        quad_at(w, cv.lo, n, w->tmin, MPFR_RNDD);
        quad_at(w, cv.hi, n, w->t, MPFR_RNDD);
        mpfr_min(w->tmin, w->tmin, w->t, MPFR_RNDD);
    }
    if (mpfr_sgn(w->tmin) < 0)
        mpfr_set_zero(w->tmin, 1);

    /* D in [(1 - 2^-24)^3 T_min - n 2^-150, (1 + 2^-24)^3 T_max + n 2^-150],
     * and D >= 0 (every term is) */
    mpfr_set_d(w->t, 1.0 - 0x1p-24, MPFR_RNDN); /* exact */
    mpfr_pow_ui(w->t, w->t, 3, MPFR_RNDD);
    mpfr_mul(w->tmin, w->tmin, w->t, MPFR_RNDD);
    mpfr_set_si(w->t, (long)n, MPFR_RNDN);
    mpfr_mul_2si(w->t, w->t, -150, MPFR_RNDN); /* exact */
    mpfr_sub(w->tmin, w->tmin, w->t, MPFR_RNDD);
    if (mpfr_sgn(w->tmin) < 0)
        mpfr_set_zero(w->tmin, 1);
    mpfr_set_d(w->u, 1.0 + 0x1p-24, MPFR_RNDN);
    mpfr_pow_ui(w->u, w->u, 3, MPFR_RNDU);
    mpfr_mul(w->tmax, w->tmax, w->u, MPFR_RNDU);
    mpfr_add(w->tmax, w->tmax, w->t, MPFR_RNDU);
    const double dlo = mpfr_get_d(w->tmin, MPFR_RNDD), dhi = mpfr_get_d(w->tmax, MPFR_RNDU);

    /* every binary32 sum is within n C D + n eta of D (sum |t_j| = D), so
     * at least the bound's lower end at dlo and at most its upper end at
     * dhi */
    double ignore;
    return tp_sum_interval_long(dlo, 0.0, dlo, n, L, &ignore) && tp_sum_interval_long(dhi, 0.0, dhi, n, &ignore, H);
}
