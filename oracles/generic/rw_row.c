#include "oracles/generic/rw_row.h"

#include "oracles/common/op_common.h"
#include "oracles/common/round_ends.h"
#include "oracles/common/sum_interval.h"
#include "oracles/generic/ew_admit.h"
#include "oracles/generic/rw_centred.h"

#include <math.h>
#include <stdlib.h>

int rw_ws_init(rw_ws *w, const rw_setup *s)
{
    ew_prog most = {0};
    most.n = EW_MAX_NODES;
    ew_exact_init(&w->ex, &most);
    for (int q = 0; q < RW_MAX_REDUCE; q++)
        mpfi_init2(w->red[q], EW_EXACT_PREC);
    for (int k = 0; k < EW_MAX_NODES / 2; k++)
        mpfi_init2(w->slot[k], EW_EXACT_PREC);
    mpfi_init2(w->acc, EW_EXACT_PREC);
    mpfr_init2(w->sum, 53);
    rw_centred_ws_init(&w->centred);
    w->cols = s->len;
    w->ends = malloc(sizeof(mpfr_t) * 3 * (size_t)s->len);
    w->ptrs = malloc(sizeof(mpfr_ptr) * 3 * (size_t)s->len);
    w->xs = malloc(sizeof(float) * (size_t)s->len);
    if (!w->ends || !w->ptrs || !w->xs) {
        free(w->ends), free(w->ptrs), free(w->xs);
        w->ends = NULL, w->ptrs = NULL, w->xs = NULL, w->cols = 0;
        rw_ws_clear(w);
        return -1;
    }
    for (int64_t j = 0; j < 3 * s->len; j++) {
        mpfr_init2(w->ends[j], 53); /* a double: exact */
        w->ptrs[j] = w->ends[j];
    }
    return 0;
}

void rw_ws_clear(rw_ws *w)
{
    ew_exact_clear(&w->ex);
    for (int q = 0; q < RW_MAX_REDUCE; q++)
        mpfi_clear(w->red[q]);
    for (int k = 0; k < EW_MAX_NODES / 2; k++)
        mpfi_clear(w->slot[k]);
    mpfi_clear(w->acc);
    mpfr_clear(w->sum);
    rw_centred_ws_clear(&w->centred);
    for (int64_t j = 0; j < 3 * w->cols; j++)
        mpfr_clear(w->ends[j]);
    free(w->ends);
    free(w->ptrs);
    free(w->xs);
    w->ends = NULL, w->ptrs = NULL, w->xs = NULL, w->cols = 0;
}

/* The flat index of term j of line r. */
static int64_t element(const rw_setup *s, int64_t r, int64_t j)
{
    return s->by_column ? j * s->cols + r : r * s->cols + j;
}

/* Inputs and index() reads of term j of line r into the point box and the
 * float array; the other slots are left as they are. An int32 input
 * converts exactly (rw_setup_case checked it is within 2^24). */
static void load(const rw_setup *s, int64_t r, int64_t j, tp_ival32 *box, float *x)
{
    const int64_t row = s->by_column ? j : r, col = s->by_column ? r : j;
    for (int k = 0; k < s->nin; k++) {
        const rw_where w = s->where[k];
        const int64_t at = w == RW_AT_ELEMENT ? element(s, r, j) : w == RW_AT_COLUMN ? col : w == RW_AT_ROW ? row : 0;
        x[k] = s->fmt[k] ? (float)tp_format_load(s->fmt[k], s->in[k]->data, at)
                         : (float)((const int32_t *)s->in[k]->data)[at];
        box[k].lo = box[k].hi = x[k];
    }
    const int base = s->nin + s->nred + s->ndims;
    for (int g = 0; g < s->nread; g++) {
        const int on = s->read_on[g];
        x[base + g] = (float)s->read_at[g][on == EW_ON_COL ? col : on == EW_ON_ROW ? row : 0];
        box[base + g].lo = box[base + g].hi = x[base + g];
    }
}

static int fail(rw_fail *f, int64_t col, const char *where, int node, const char *why)
{
    f->col = col, f->where = where, f->node = node, f->why = why;
    return -1;
}

/* The primitives' range in double (proven/ew_eval.c's fits): the rounding of a
 * real below FLT_MAX. */
static int fits(double d) { return fabs(d) <= 0x1.fffffcp127; }

/* The hull of term j's values as the accumulator adds them (rw_row.h). */
static int term_hull(const rw_setup *s, const rw_reduce *rd, const tp_ival32 *box, double *lo, double *hi,
                     int *node, const char **why)
{
    const ew_prog *p = &rd->term;
    tp_ival32 v[EW_MAX_NODES];
    if (ew_admit_values(p, &s->m, box, p->n - 1, NULL, NULL, NULL, v, node, why) != 0)
        return -1;
    *lo = v[p->n - 1].lo, *hi = v[p->n - 1].hi;
    const ew_node *root = &p->node[p->n - 1];
    if (rd->kind == RW_SUM && s->m.fma_any && root->kind == EW_MUL) {
        const tp_ival32 a = v[root->a], b = v[root->b];
        /* products of two binary32 values: exact in double */
        const double c[4] = {(double)a.lo * b.lo, (double)a.lo * b.hi, (double)a.hi * b.lo, (double)a.hi * b.hi};
        for (int k = 0; k < 4; k++) {
            *lo = c[k] < *lo ? c[k] : *lo;
            *hi = c[k] > *hi ? c[k] : *hi;
        }
    }
    return 0;
}

/* Reduction q of row r: its admitted binary32 interval into box[nin + q]
 * and, with exact, its enclosure into w->red[q]. */
static int reduce(const rw_setup *s, rw_ws *w, int64_t r, int q, tp_ival32 *box, float *x, int exact, rw_fail *f)
{
    const rw_reduce *rd = &s->red[q];
    const int64_t n = s->len;
    rw_centred cm;
    const int centred = rd->kind == RW_SUM && rw_centred_match(s, &rd->term, &cm);
    int64_t nonzero = 0; /* terms whose hull is not exactly {0} */
    float mlo = 0.0f, mhi = 0.0f;
    if (exact)
        mpfi_set_ui(w->acc, 0);
    for (int64_t j = 0; j < n; j++) {
        load(s, r, j, box, x);
        double lo, hi;
        int node;
        const char *why;
        if (term_hull(s, rd, box, &lo, &hi, &node, &why) != 0)
            return fail(f, j, rd->name, node, why);
        if (centred)
            w->xs[j] = x[cm.x];
        if (rd->kind == RW_SUM) {
            mpfr_set_d(w->ends[j], lo, MPFR_RNDN); /* exact */
            mpfr_set_d(w->ends[n + j], hi, MPFR_RNDN);
            mpfr_set_d(w->ends[2 * n + j], fmax(fabs(lo), fabs(hi)), MPFR_RNDN);
            nonzero += !(lo == 0.0 && hi == 0.0);
        } else if (j == 0 || (rd->kind == RW_MAX ? lo > mlo : lo < mlo))
            mlo = (float)lo; /* a term's ends are binary32 values for max and min */
        if (rd->kind != RW_SUM && (j == 0 || (rd->kind == RW_MAX ? hi > mhi : hi < mhi)))
            mhi = (float)hi;
        if (!exact)
            continue;
        if (ew_exact_nodes(&w->ex, &rd->term, x, rd->term.n - 1, NULL, NULL, NULL) != 0)
            return fail(f, j, rd->name, rd->term.n - 1, "the real term is undefined or unbounded here");
        mpfi_srcptr t = w->ex.v[rd->term.n - 1];
        if (rd->kind == RW_SUM)
            mpfi_add(w->acc, w->acc, t);
        else if (j == 0)
            mpfi_set(w->acc, t);
        else { /* max or min of enclosures, end by end (outward: the ends are exact copies) */
            const int mx = rd->kind == RW_MAX;
            if (mx ? mpfr_greater_p(&t->left, &w->acc->left) : mpfr_less_p(&t->left, &w->acc->left))
                mpfr_set(&w->acc->left, &t->left, MPFR_RNDD);
            if (mx ? mpfr_greater_p(&t->right, &w->acc->right) : mpfr_less_p(&t->right, &w->acc->right))
                mpfr_set(&w->acc->right, &t->right, MPFR_RNDU);
        }
    }
    if (exact)
        mpfi_set(w->red[q], w->acc);
    if (rd->kind != RW_SUM) {
        box[s->nin + q].lo = mlo, box[s->nin + q].hi = mhi;
        return 0;
    }
    mpfr_sum(w->sum, w->ptrs, (unsigned long)n, MPFR_RNDD);
    const double slo = mpfr_get_d(w->sum, MPFR_RNDD); /* exact: 53 bits */
    mpfr_sum(w->sum, w->ptrs + n, (unsigned long)n, MPFR_RNDU);
    const double shi = mpfr_get_d(w->sum, MPFR_RNDU);
    mpfr_sum(w->sum, w->ptrs + 2 * n, (unsigned long)n, MPFR_RNDU);
    const double a = mpfr_get_d(w->sum, MPFR_RNDU);
    double L = slo, H = shi, ignore; /* at most one nonzero term: the sum is that term (rw_row.h) */
    if (nonzero > 1 && (!tp_sum_interval_long(slo, 0.0, a, n, &L, &ignore) ||
                        !tp_sum_interval_long(shi, 0.0, a, n, &ignore, &H)))
        return fail(f, -1, rd->name, rd->term.n - 1,
                    "a row sum outside the proven sum bound's range (at most 262144 terms, the sum and the sum of "
                    "magnitudes at most 2^60)");
    if (centred) { /* both bounds hold every sum the kernel can produce: keep what both admit */
        tp_ival32 v[EW_MAX_NODES];
        int node;
        const char *why;
        double Lc, Hc;
        if (ew_admit_values(&rd->term, &s->m, box, cm.c, NULL, NULL, NULL, v, &node, &why) == 0 &&
            rw_centred_sum(&w->centred, w->xs, n, v[cm.c], w->ends, w->ptrs, &Lc, &Hc)) {
            L = fmax(L, Lc), H = fmin(H, Hc);
            if (!(L <= H))
                return fail(f, -1, rd->name, rd->term.n - 1,
                            "the centred-sum bound and the per-term bound do not meet (a tolproof bug)");
        }
    }
    if (!fits(L) || !fits(H))
        return fail(f, -1, rd->name, rd->term.n - 1, "the row sum may overflow binary32");
    box[s->nin + q].lo = (float)tp_round_lower(&tp_binary32, L);
    box[s->nin + q].hi = (float)tp_round_upper(&tp_binary32, H);
    return 0;
}

/* The enclosure of node `upto` into *ref's exact fields. */
static void exact_fields(mpfi_srcptr v, mpfr_t t, tp_ref *e)
{
    e->exact_lo = mpfr_get_d(&v->left, MPFR_RNDD);
    e->exact_hi = mpfr_get_d(&v->right, MPFR_RNDU);
    mpfi_mid(t, v);
    e->exact = mpfr_get_d(t, MPFR_RNDN);
}

int rw_row(const rw_setup *s, rw_ws *w, int64_t r, tp_ref *ref, rw_fail *f)
{
    tp_ival32 box[EW_MAX_INPUTS];
    float x[EW_MAX_INPUTS] = {0};
    const int exact = ref != NULL;
    for (int d = 0; d < s->ndims; d++) {
        const int k = s->nin + s->nred + d;
        x[k] = s->dim[d];
        box[k].lo = box[k].hi = s->dim[d];
    }
    for (int q = 0; q < s->nred; q++) {
        w->ex.box[s->nin + q] = w->red[q];
        if (reduce(s, w, r, q, box, x, exact, f) != 0)
            return -1;
    }
    load(s, r, 0, box, x); /* scalars for the row-invariant part */
    const rw_out *o = &s->out;
    const char *where = s->O->name;
    for (int k = 0; k < o->nroot; k++) {
        int node;
        const char *why;
        if (ew_admit_box(&o->full, &s->m, box, o->root[k], o->sub[k], NULL, NULL, &box[o->slot[k]], &node, &why) !=
            0)
            return fail(f, -1, where, node, why);
        if (!exact)
            continue;
        if (ew_exact_nodes(&w->ex, &o->full, x, o->root[k], o->sub[k], NULL, NULL) != 0)
            return fail(f, -1, where, o->root[k], "the real expression is undefined or unbounded here");
        mpfi_set(w->slot[k], w->ex.v[o->root[k]]);
        w->ex.box[o->slot[k]] = w->slot[k];
    }
    const tp_format *fo = tp_format_of(s->O->dtype);
    const int64_t n = s->per_row ? 1 : s->len;
    for (int64_t i = 0; i < n; i++) {
        if (!s->per_row)
            load(s, r, i, box, x);
        tp_ival32 v;
        int node;
        const char *why;
        if (ew_admit_box(&o->prog, &s->m, box, o->prog.n - 1, o->keep, NULL, NULL, &v, &node, &why) != 0)
            return fail(f, s->per_row ? -1 : i, where, node, why);
        if (!isfinite(v.lo) || !isfinite(v.hi))
            return fail(f, s->per_row ? -1 : i, where, o->prog.n - 1, "the result may overflow binary32");
        if (!exact)
            continue;
        if (ew_exact_nodes(&w->ex, &o->prog, x, o->prog.n - 1, o->keep, NULL, NULL) != 0)
            return fail(f, s->per_row ? -1 : i, where, o->prog.n - 1,
                        "the real expression is undefined or unbounded here");
        tp_ref *e = &ref[s->per_row ? r : element(s, r, i)];
        exact_fields(w->ex.v[o->prog.n - 1], w->ex.t, e);
        double lo = v.lo, hi = v.hi;
        tp_bound_shrink(e->exact, &lo, &hi); /* test-only; a no-op at its default scale 1 */
        e->allow_lo = tp_round_lower(fo, tp_round_lower(&tp_binary32, lo));
        e->allow_hi = tp_round_upper(fo, tp_round_upper(&tp_binary32, hi));
    }
    return 0;
}
