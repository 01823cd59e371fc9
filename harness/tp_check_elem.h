/* The element check's per-element rule and the tally it gathers, in one
 * header that the CPU check (harness/tp_check.c) and the GPU check of
 * `tolproof check --device` (oracles/gemm/gemm_check_cuda.cuh) both
 * compile: the same source on both sides, so the same bits (core/tp_hd.h
 * says why the arithmetic agrees). Plain C types only: the GPU's tallies
 * come back to the host as they are. */
#ifndef TP_CHECK_ELEM_H
#define TP_CHECK_ELEM_H
#include "core/tp_hd.h"
#include "core/tp_ieee.h"
#include "core/tp_ref.h"
#include "oracles/common/f16_decode.h"

#include <math.h>
#include <stdint.h>

#define TP_CHECK_WORST 5

typedef struct {
    int64_t index;
    double got, ratio, err;
    /* more_accurate: a violation closer to the exact value than anything the
     * model admits (tp_more_accurate). bits_shown: a violation of a
     * bit-exact op that the values cannot show (a signed zero, a NaN), whose
     * patterns got_bits and want_bits the element's JSON then carries. */
    int more_accurate, bits_shown;
    uint32_t got_bits, want_bits;
    tp_ref ref; /* the element's reference, for its JSON (a ranged check keeps no array) */
} tp_check_elem;

/* What the element loop gathers over a range of elements. */
typedef struct {
    int64_t violations, strict, loose, nonfinite, more_accurate;
    double max_err, max_ulp, max_ratio, max_bound;
    tp_check_elem worst[TP_CHECK_WORST], first[TP_CHECK_WORST];
    int nworst, nfirst;
    int unordered; /* an err or ratio is NaN: keep_worst's order is not total there */
} tp_check_tally;

/* Keeps the k largest by (ratio, err, -index): a total order, so ties
 * resolve the same way on every machine. */
static inline TP_HD int tp_check_worse(const tp_check_elem *a, const tp_check_elem *b)
{
    if (a->ratio != b->ratio)
        return a->ratio > b->ratio;
    if (a->err != b->err)
        return a->err > b->err;
    return a->index < b->index;
}

static inline TP_HD void tp_check_keep_worst(tp_check_elem *w, int *nw, const tp_check_elem *e)
{
    if (*nw < TP_CHECK_WORST)
        w[(*nw)++] = *e;
    else if (tp_check_worse(e, &w[TP_CHECK_WORST - 1]))
        w[TP_CHECK_WORST - 1] = *e;
    else
        return;
    for (int i = *nw - 1; i > 0 && tp_check_worse(&w[i], &w[i - 1]); i--) {
        tp_check_elem tmp = w[i];
        w[i] = w[i - 1];
        w[i - 1] = tmp;
    }
}

/* Distance from the exact value to the allowed end on the side of y;
 * err/bound on that side is <= 1 exactly when y is admitted. */
static inline TP_HD double tp_check_side_ratio(double y, const tp_ref *r)
{
    if (isnan(y))
        return INFINITY;
    double d = y >= r->exact ? y - r->exact : r->exact - y;
    double b = y >= r->exact ? r->allow_hi - r->exact : r->exact - r->allow_lo;
    if (d == 0)
        return 0;
    if (!(b > 0))
        return INFINITY;
    if (isinf(d))
        return isinf(b) ? 1 : INFINITY;
    return d / b;
}

/* The verdict of a value against its admitted interval: the one rule,
 * proven (oracles/common/proven/tp_f16_decode.h: a NaN never, a finite
 * value exactly inside finite ends). */
static inline TP_HD int tp_check_value_admitted(double y, const tp_ref *r)
{
    return tp_admitted(y, r->allow_lo, r->allow_hi);
}

/* An output pattern's value: binary16's finite patterns through the
 * proven decoder (E and F are constants where the check is instantiated,
 * so the test goes away). */
static inline TP_HD double tp_check_decode(uint32_t h, int E, int F)
{
    return E == 5 && F == 10 ? tp_f16_decode_any(h) : tp_ieee_decode(h, E, F);
}

/* y is closer to every point x of [exact_lo, exact_hi] than the admitted
 * interval is: |y - x| < dist(x, [allow_lo, allow_hi]). That needs the
 * enclosure wholly on one side of the interval, say below (exact_hi <
 * allow_lo), and then, for every x: y < allow_lo, and where x > y also
 * x - y < allow_lo - x, i.e. 2x < allow_lo + y, decided at x = exact_hi.
 * The sum allow_lo + y is rounded in whatever mode the caller runs; it is
 * within one double step of the real sum, so the step below (above) it is
 * a safe lower (upper) bound, and no element is called more accurate
 * unless it is. 2x is exact (it may overflow to inf, which only refuses).
 * An infinite end is excluded: where the model admits only an overflow to
 * infinity, every finite y is "closer", which says nothing about accuracy
 * (a saturating kernel is not a more accurate one). */
static inline TP_HD int tp_check_more_accurate(double y, const tp_ref *r)
{
    if (!isfinite(y) || !isfinite(r->exact_lo) || !isfinite(r->exact_hi))
        return 0;
    if (r->exact_hi < r->allow_lo && isfinite(r->allow_lo))
        return y < r->allow_lo && (y >= r->exact_hi || 2 * r->exact_hi < nextafter(r->allow_lo + y, -(double)INFINITY));
    if (r->exact_lo > r->allow_hi && isfinite(r->allow_hi))
        return y > r->allow_hi && (y <= r->exact_lo || 2 * r->exact_lo > nextafter(r->allow_hi + y, (double)INFINITY));
    return 0;
}

/* Element i, pattern h of the output's format (E exponent and F fraction
 * bits, core/tp_ieee.h), against its reference r, into t. want: NULL, or
 * the one admitted pattern of a bit-exact op (r then still gives the
 * values for the statistics). The claim audited is |y - exact| <= atol +
 * rtol |exact|. Computed in the caller's rounding mode (err and the audit
 * round). */
static inline TP_HD void tp_check_element(int E, int F, int64_t i, uint32_t h, const uint32_t *want, const tp_ref *r,
                                          double claim_atol, double claim_rtol, tp_check_tally *t)
{
    double y = tp_check_decode(h, E, F);
    int ok = want ? h == *want : tp_check_value_admitted(y, r);
    double err = isnan(y) ? INFINITY : fabs(y - r->exact);
    if (isinf(y) && isinf(r->exact) && y == r->exact)
        err = 0;
    tp_check_elem e = {i, y, tp_check_side_ratio(y, r), err, 0, 0, 0, 0, *r};
    if (want && ok)
        e.err = e.ratio = 0; /* the admitted pattern itself, a NaN included */
    else if (want) {
        /* a set of one pattern has no room on either side: -0 for +0
         * too, though their values are the same */
        e.ratio = INFINITY;
        if (isnan(r->exact))
            e.err = INFINITY; /* anything but the admitted NaN pattern */
    }
    if (want && !ok && (y == r->exact || isnan(y) || isnan(r->exact))) {
        e.bits_shown = 1; /* -0 for +0, another NaN: the values do not show it */
        e.got_bits = h;
        e.want_bits = *want;
    }
    if (!ok && e.ratio <= 1)
        e.ratio = nextafter(1.0, 2.0); /* the enclosure of exact is coarser than the verdict */
    if (!want && !ok && tp_check_more_accurate(y, r)) {
        e.more_accurate = 1;
        t->more_accurate++;
    }
    if (!isfinite(y))
        t->nonfinite++;
    if (!ok) {
        t->violations++;
        if (t->nfirst < TP_CHECK_WORST)
            t->first[t->nfirst++] = e;
    }
    t->unordered |= isnan(e.err) || isnan(e.ratio);
    t->max_err = fmax(t->max_err, e.err);
    t->max_ulp = fmax(t->max_ulp, e.err / tp_ieee_ulp(r->exact, E, F));
    t->max_ratio = fmax(t->max_ratio, e.ratio);
    double bound = fmax(r->allow_hi - r->exact, r->exact - r->allow_lo);
    t->max_bound = fmax(t->max_bound, bound);
    tp_check_keep_worst(t->worst, &t->nworst, &e);
    /* Claim audit: does |y - exact| <= atol accept exactly the outputs
     * the model admits? strict: it rejects some admitted output (a
     * false alarm is possible); loose: it accepts some value of the format
     * outside the admitted set (a missed bug is possible). */
    double atol = claim_atol + claim_rtol * fabs(r->exact);
    if (bound > atol)
        t->strict++;
    double above = tp_ieee_decode(tp_ieee_next_up(tp_ieee_encode(r->allow_hi, E, F), E, F), E, F);
    double below = tp_ieee_decode(tp_ieee_next_down(tp_ieee_encode(r->allow_lo, E, F), E, F), E, F);
    if ((above > r->allow_hi && above - r->exact <= atol) || (below < r->allow_lo && r->exact - below <= atol))
        t->loose++;
}

/* t += u, u covering the elements right after t's. Counts add, maxima are
 * fmax (NaN-ignoring, so in any order), the first violations are t's then
 * u's, and the worst are u's offered to t's list in the order the
 * sequential loop would offer them: the same list whenever keep_worst's
 * order is total (no NaN err or ratio; the caller checks that). Merging
 * is associative, so tallies of consecutive ranges may be merged in any
 * grouping that keeps their order. */
static inline TP_HD void tp_check_tally_merge(tp_check_tally *t, const tp_check_tally *u)
{
    t->violations += u->violations;
    t->strict += u->strict;
    t->loose += u->loose;
    t->nonfinite += u->nonfinite;
    t->more_accurate += u->more_accurate;
    t->max_err = fmax(t->max_err, u->max_err);
    t->max_ulp = fmax(t->max_ulp, u->max_ulp);
    t->max_ratio = fmax(t->max_ratio, u->max_ratio);
    t->max_bound = fmax(t->max_bound, u->max_bound);
    for (int i = 0; i < u->nfirst && t->nfirst < TP_CHECK_WORST; i++)
        t->first[t->nfirst++] = u->first[i];
    for (int i = 0; i < u->nworst; i++)
        tp_check_keep_worst(t->worst, &t->nworst, &u->worst[i]);
    t->unordered |= u->unordered;
}

#endif
