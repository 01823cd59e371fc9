#include "oracles/generic/ew_exact.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void ew_exact_init(ew_exact_ws *w, const ew_prog *p)
{
    w->n = p->n;
    for (int i = 0; i < w->n; i++)
        mpfi_init2(w->v[i], EW_EXACT_PREC);
    mpfr_init2(w->t, EW_EXACT_PREC);
    for (int k = 0; k < EW_MAX_INPUTS; k++)
        w->box[k] = NULL;
    for (int i = 0; i < EW_MAX_NODES; i++)
        w->memo[i] = NULL;
}

void ew_exact_clear(ew_exact_ws *w)
{
    for (int i = 0; i < w->n; i++)
        mpfi_clear(w->v[i]);
    mpfr_clear(w->t);
    for (int i = 0; i < EW_MAX_NODES; i++) {
        if (!w->memo[i])
            continue;
        for (int k = 0; k < EW_MEMO_SLOTS; k++)
            if (w->memo[i][k].full)
                mpfi_clear(w->memo[i][k].v);
        free(w->memo[i]);
        w->memo[i] = NULL;
    }
    w->n = 0;
}

/* A device function of a point operand that is a double (a rotary
 * embedding's angle pos * f: one per token and pair, read by every head
 * and both elements of the pair) is computed once per value: the slot of
 * node i for that double, or NULL when the operand is not such a point or
 * no memory is left (then the caller computes it). *hit tells whether the
 * slot already holds f(x). The function is the real one, so a remembered
 * enclosure is the enclosure computed again; a slot is keyed by the
 * function and the value, not by the program (op rowwise evaluates
 * several programs in one workspace). */
static ew_memo_slot *memo_slot(ew_exact_ws *w, int i, ew_kind kind, mpfi_srcptr a, int *hit)
{
    if (!mpfr_equal_p(&a->left, &a->right))
        return NULL;
    const double x = mpfr_get_d(&a->left, MPFR_RNDN);
    if (!isfinite(x) || mpfr_cmp_d(&a->left, x) != 0)
        return NULL;
    if (!w->memo[i] && !(w->memo[i] = calloc(EW_MEMO_SLOTS, sizeof *w->memo[i])))
        return NULL;
    uint64_t key;
    memcpy(&key, &x, sizeof key);
    ew_memo_slot *m = &w->memo[i][(key * 0x9e3779b97f4a7c15ull) >> (64 - EW_MEMO_BITS)];
    *hit = m->full && m->key == key && m->kind == kind;
    if (!m->full)
        mpfi_init2(m->v, EW_EXACT_PREC), m->full = 1;
    m->key = key, m->kind = kind;
    return m;
}

/* r = f(a) for the device functions memo_slot may serve. exp of a point
 * is one correctly rounded evaluation: rounded down, and the next number
 * above where that was inexact, is [RNDD, RNDU], what mpfi_exp gives with
 * two (the same enclosure: it is the hot path of softmax-like rows). */
static void device_fn_exact(ew_kind k, mpfi_ptr r, mpfi_srcptr a)
{
    if (k == EW_EXP && mpfr_equal_p(&a->left, &a->right)) {
        if (mpfr_exp(&r->left, &a->left, MPFR_RNDD) == 0)
            mpfr_set(&r->right, &r->left, MPFR_RNDU);
        else {
            mpfr_set(&r->right, &r->left, MPFR_RNDU); /* same precision: exact */
            mpfr_nextabove(&r->right);
        }
        return;
    }
    switch (k) {
    case EW_EXP: mpfi_exp(r, a); break;
    case EW_TANH: mpfi_tanh(r, a); break;
    case EW_SIN: mpfi_sin(r, a); break;
    default: mpfi_cos(r, a); break; /* EW_COS */
    }
}

/* Three-valued comparison of two enclosures: 1 holds for every pair of
 * reals in them, 0 for none, 2 undecided. */
static int compare(ew_kind k, mpfi_t a, mpfi_t b)
{
    const int lt = mpfr_less_p(&a->right, &b->left), ge = mpfr_greaterequal_p(&a->left, &b->right),
              le = mpfr_lessequal_p(&a->right, &b->left), gt = mpfr_greater_p(&a->left, &b->right);
    switch (k) {
    case EW_LT: return lt ? 1 : ge ? 0 : 2;
    case EW_LE: return le ? 1 : gt ? 0 : 2;
    case EW_GT: return gt ? 1 : le ? 0 : 2;
    case EW_GE: return ge ? 1 : lt ? 0 : 2;
    default: { /* EW_EQ, EW_NE: equal reals only where both enclosures are the same point */
        const int eq = mpfr_equal_p(&a->left, &a->right) && mpfr_equal_p(&b->left, &b->right) &&
                               mpfr_equal_p(&a->left, &b->left)
                           ? 1
                       : lt || gt ? 0
                                  : 2;
        return k == EW_NE && eq != 2 ? !eq : eq;
    }
    }
}

/* min or max of two enclosures, end by end */
static void minmax(mpfi_t r, mpfi_t a, mpfi_t b, int max)
{
    mpfr_t l, h;
    mpfr_init2(l, mpfi_get_prec(r));
    mpfr_init2(h, mpfi_get_prec(r));
    if (max) {
        mpfr_max(l, &a->left, &b->left, MPFR_RNDD);
        mpfr_max(h, &a->right, &b->right, MPFR_RNDU);
    } else {
        mpfr_min(l, &a->left, &b->left, MPFR_RNDD);
        mpfr_min(h, &a->right, &b->right, MPFR_RNDU);
    }
    mpfi_interv_fr(r, l, h);
    mpfr_clear(l);
    mpfr_clear(h);
}

int ew_exact_nodes(ew_exact_ws *w, const ew_prog *p, const float *in, int upto, const unsigned char *only,
                   const ew_tabs *t, const uint16_t *bits)
{
    int truth[EW_MAX_NODES];
    for (int i = 0; i <= upto; i++) {
        const ew_node *nd = &p->node[i];
        mpfi_ptr r = w->v[i];
        if ((only && !only[i]) || (t && t->skip[i]))
            continue;
        if (t && t->tab_of[i] >= 0) { /* a tabulated subtree: its enclosure at this pattern */
            const int k = t->tab_of[i];
            const uint16_t h = bits[t->input[k]];
            if (t->efail[k][h])
                return -1;
            mpfi_set(r, t->exact[k][h]); /* exact: the same precision */
            continue;
        }
        switch (nd->kind) {
        case EW_INPUT: /* exact */
            if (w->box[nd->input])
                mpfi_set(r, w->box[nd->input]);
            else
                mpfi_set_d(r, in[nd->input]);
            break;
        case EW_CONST: mpfi_set_d(r, nd->value); break;
        case EW_NEG: mpfi_neg(r, w->v[nd->a]); break;
        case EW_ADD: mpfi_add(r, w->v[nd->a], w->v[nd->b]); break;
        case EW_SUB: mpfi_sub(r, w->v[nd->a], w->v[nd->b]); break;
        case EW_MUL: mpfi_mul(r, w->v[nd->a], w->v[nd->b]); break;
        case EW_DIV:
            if (mpfi_has_zero(w->v[nd->b]))
                return -1;
            mpfi_div(r, w->v[nd->a], w->v[nd->b]);
            break;
        case EW_FMA:
            mpfi_mul(r, w->v[nd->a], w->v[nd->b]);
            mpfi_add(r, r, w->v[nd->c]);
            break;
        case EW_MIN: minmax(r, w->v[nd->a], w->v[nd->b], 0); break;
        case EW_MAX: minmax(r, w->v[nd->a], w->v[nd->b], 1); break;
        case EW_LT:
        case EW_LE:
        case EW_GT:
        case EW_GE:
        case EW_EQ:
        case EW_NE:
            truth[i] = compare(nd->kind, w->v[nd->a], w->v[nd->b]);
            mpfi_set_ui(r, 0);
            break;
        case EW_SELECT: {
            const int t = truth[nd->a];
            if (t == 1)
                mpfi_set(r, w->v[nd->b]);
            else if (t == 0)
                mpfi_set(r, w->v[nd->c]);
            else
                mpfi_union(r, w->v[nd->b], w->v[nd->c]);
            break;
        }
        case EW_SQRT:
        case EW_RSQRT:
            if (mpfi_is_strictly_neg(w->v[nd->a]) || mpfr_sgn(&w->v[nd->a]->left) < 0 ||
                (nd->kind == EW_RSQRT && mpfi_has_zero(w->v[nd->a])))
                return -1;
            mpfi_sqrt(r, w->v[nd->a]);
            if (nd->kind == EW_RSQRT)
                mpfi_ui_div(r, 1, r);
            break;
        case EW_RN16: mpfi_set(r, w->v[nd->a]); break; /* the real expression: no rounding */
        case EW_EXP:
        case EW_TANH:
        case EW_SIN:
        case EW_COS: {
            int hit = 0;
            ew_memo_slot *m = memo_slot(w, i, nd->kind, w->v[nd->a], &hit);
            if (m && !hit)
                device_fn_exact(nd->kind, m->v, w->v[nd->a]);
            if (m)
                mpfi_set(r, m->v); /* exact: the same precision */
            else
                device_fn_exact(nd->kind, r, w->v[nd->a]);
            break;
        }
        case EW_LOG:
            if (mpfr_sgn(&w->v[nd->a]->left) <= 0)
                return -1;
            mpfi_log(r, w->v[nd->a]);
            break;
        case EW_ERF: {
            mpfr_t l, h;
            mpfr_init2(l, EW_EXACT_PREC);
            mpfr_init2(h, EW_EXACT_PREC);
            mpfr_erf(l, &w->v[nd->a]->left, MPFR_RNDD);
            mpfr_erf(h, &w->v[nd->a]->right, MPFR_RNDU);
            mpfi_interv_fr(r, l, h);
            mpfr_clear(l);
            mpfr_clear(h);
            break;
        }
        default: return -1;
        }
        /* An infinite end of an intermediate is MPFR's range overflowing
         * (exp(3e38), reachable from a bfloat16 input), not an unbounded
         * real: [M, +inf] still encloses it, and a later division can
         * bring the result back, as a / (1 + exp(-a)) does. The node
         * asked for must be finite. */
        if (mpfi_nan_p(r) || (i == upto && mpfi_inf_p(r)))
            return -1;
    }
    return 0;
}

int ew_exact(ew_exact_ws *w, const ew_prog *p, const float *in, const ew_tabs *t, const uint16_t *bits, double *lo,
             double *mid, double *hi)
{
    if (ew_exact_nodes(w, p, in, p->n - 1, NULL, t, bits) != 0)
        return -1;
    mpfi_srcptr res = w->v[p->n - 1];
    *lo = mpfr_get_d(&res->left, MPFR_RNDD);
    *hi = mpfr_get_d(&res->right, MPFR_RNDU);
    mpfi_mid(w->t, res);
    *mid = mpfr_get_d(w->t, MPFR_RNDN);
    return 0;
}
