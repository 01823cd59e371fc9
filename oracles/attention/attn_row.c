/* docs/attention.md, "The bound", is the derivation this follows; the
 * comments name its steps. Three phases per row, each in the rounding
 * mode its arithmetic needs:
 *   1. round-to-nearest, proven code: the exact scores (tp_exact_row_madd,
 *      WP-proven exact in the IEEE model), the kernel's binary32 score
 *      sets (tp_sum_interval_exact over the proven any-order sum bound,
 *      the proven binary32 ends, the proven interval product by scale);
 *   2. FE_UPWARD, not proven: enclosures of exp(S_j - Mref) and of the
 *      row's sums L, A_c, B_c, and the model's perturbation of them;
 *   3. round-to-nearest, proven code: the binary32 quotient set
 *      (tp_ival32_div, tp_ival32_mul) and the binary16 / binary32 ends. */
#include "oracles/attention/attn_row.h"

#include "core/tp_format.h"
#include "core/tp_fp16.h"
#include "oracles/common/exp_enclose.h"
#include "oracles/common/ival_guard.h"
#include "oracles/common/op_common.h"
#include "oracles/common/proven/exact_row.h"
#include "oracles/common/proven/tp_ival_mul.h"
#include "oracles/common/round_ends.h"
#include "oracles/common/sum_interval.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>

#define U32 0x1p-24 /* binary32 unit roundoff */
#define U16 0x1p-11 /* binary16 unit roundoff */

struct attn_ws {
    int64_t S, d;
    int borrowed; /* the head's arrays below are another ws's */
    float *kt, *akt; /* d x S: K transposed, and |K| */
    float *vf;       /* S x d: V as binary32 (exact) */
    double *maxv;    /* d: max_j |V[j][c]| */
    double *hi, *lo, *abs_hi, *abs_lo; /* S: exact q.k_j and sum |q k_j| as double pairs */
    double *sl, *sh; /* the kernel's score s_j (in units of the exact S_j) lies in [sl_j, sh_j] */
    double *el, *eh; /* S: exp(S_j - Mref) lies in [el_j, eh_j] */
    double *ml, *mh; /* S: the model's p~_j / c* lies in [ml_j, mh_j] */
    double *a_up, *a_nlo;          /* d: the exact sum A_c, as up(A_hi) and up(-A_lo) */
    double *ma_up, *ma_nlo, *mb_up; /* d: the model's, and up(sum mh_j |v_jc|) */
    double *alo, *ahi, *olo, *ohi; /* d: acc / c* and the exact O, enclosed */
    mpfr_t t;
};

/* The per-row arrays, and the head's own (K^T, |K|^T, V, max |V|) unless
 * it borrows them from `head`. */
static attn_ws *ws_new(int64_t S, int64_t d, const attn_ws *head)
{
    attn_ws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->S = S, w->d = d;
    if (head) {
        w->borrowed = 1;
        w->kt = head->kt, w->akt = head->akt, w->vf = head->vf, w->maxv = head->maxv;
    } else {
        w->kt = malloc(sizeof(float) * (size_t)(S * d));
        w->akt = malloc(sizeof(float) * (size_t)(S * d));
        w->vf = malloc(sizeof(float) * (size_t)(S * d));
        w->maxv = malloc(sizeof(double) * (size_t)d);
    }
    w->hi = malloc(sizeof(double) * (size_t)S), w->lo = malloc(sizeof(double) * (size_t)S);
    w->abs_hi = malloc(sizeof(double) * (size_t)S), w->abs_lo = malloc(sizeof(double) * (size_t)S);
    w->sl = malloc(sizeof(double) * (size_t)S), w->sh = malloc(sizeof(double) * (size_t)S);
    w->el = malloc(sizeof(double) * (size_t)S), w->eh = malloc(sizeof(double) * (size_t)S);
    w->ml = malloc(sizeof(double) * (size_t)S), w->mh = malloc(sizeof(double) * (size_t)S);
    w->a_up = malloc(sizeof(double) * (size_t)d), w->a_nlo = malloc(sizeof(double) * (size_t)d);
    w->ma_up = malloc(sizeof(double) * (size_t)d), w->ma_nlo = malloc(sizeof(double) * (size_t)d);
    w->mb_up = malloc(sizeof(double) * (size_t)d);
    w->alo = malloc(sizeof(double) * (size_t)d), w->ahi = malloc(sizeof(double) * (size_t)d);
    w->olo = malloc(sizeof(double) * (size_t)d), w->ohi = malloc(sizeof(double) * (size_t)d);
    mpfr_init2(w->t, 64);
    if (!w->kt || !w->akt || !w->vf || !w->maxv || !w->hi || !w->lo || !w->abs_hi || !w->abs_lo || !w->sl ||
        !w->sh || !w->el || !w->eh || !w->ml || !w->mh || !w->a_up || !w->a_nlo || !w->ma_up || !w->ma_nlo ||
        !w->mb_up || !w->alo || !w->ahi || !w->olo || !w->ohi) {
        attn_ws_free(w);
        return NULL;
    }
    return w;
}

attn_ws *attn_ws_new(int64_t S, int64_t d) { return ws_new(S, d, NULL); }

attn_ws *attn_ws_borrow(const attn_ws *head) { return head ? ws_new(head->S, head->d, head) : NULL; }

void attn_ws_free(attn_ws *w)
{
    if (!w)
        return;
    if (!w->borrowed)
        free(w->kt), free(w->akt), free(w->vf), free(w->maxv);
    free(w->hi), free(w->lo), free(w->abs_hi), free(w->abs_lo);
    free(w->sl), free(w->sh), free(w->el), free(w->eh), free(w->ml), free(w->mh);
    free(w->a_up), free(w->a_nlo), free(w->ma_up), free(w->ma_nlo), free(w->mb_up);
    free(w->alo), free(w->ahi), free(w->olo), free(w->ohi);
    mpfr_clear(w->t);
    free(w);
}

static float h2f(uint16_t h) { return (float)tp_f16_to_double(h); }

void attn_ws_head(attn_ws *w, const attn_head *h)
{
    for (int64_t j = 0; j < h->S; j++)
        for (int64_t c = 0; c < h->d; c++) {
            const float x = h2f(h->k[j * h->d + c]);
            w->kt[c * h->S + j] = x;
            w->akt[c * h->S + j] = fabsf(x);
        }
    for (int64_t c = 0; c < h->d; c++)
        w->maxv[c] = 0.0;
    for (int64_t j = 0; j < h->S; j++)
        for (int64_t c = 0; c < h->d; c++) {
            w->vf[j * h->d + c] = h2f(h->v[j * h->d + c]);
            w->maxv[c] = fmax(w->maxv[c], fabsf(w->vf[j * h->d + c]));
        }
}

/* The larger of two numbers (no NaN here): inlined and vectorised, where
 * fmax is a libm call under -frounding-math. */
static inline double max2(double a, double b) { return a > b ? a : b; }

/* In FE_UPWARD: the lower-bound forms of +, *, / (down(x) = -up(-x)). */
static inline double dn_add(double a, double b) { return -((-a) + (-b)); }
static inline double dn_mul(double a, double b) { return -((-a) * b); }
static inline double dn_div(double a, double b) { return -((-a) / b); }

/* The binary32 value nearest below (above) x: the ends of a real interval
 * widened to binary32 for the proven primitives, which take binary32
 * intervals and hold every real in them. Mode-independent. */
static float f32_down(double x)
{
    float f = (float)x;
    if ((double)f > x)
        f = nextafterf(f, -INFINITY);
    return f;
}
static float f32_up(double x)
{
    float f = (float)x;
    if ((double)f < x)
        f = nextafterf(f, INFINITY);
    return f;
}

/* Phase 1 for keys j < n: the exact score pairs (hi + lo = q.k_j), and the
 * set of the kernel's binary32 scores RN32(RN32(dot) scale) (exp2f_scaled:
 * the kernel never forms it; scale RN32(dot), exact in double, stands for
 * its score in the exact scores' units). */
static int scores(attn_ws *w, const attn_head *h, int64_t i, int64_t n, const char **why)
{
    const uint16_t *q = h->q + i * h->d;
    for (int64_t j = 0; j < n; j++)
        w->hi[j] = w->lo[j] = w->abs_hi[j] = w->abs_lo[j] = 0.0;
    for (int64_t c = 0; c < h->d; c++) {
        const float x = h2f(q[c]);
        tp_exact_row_madd((int)n, (int)c, x, w->kt + c * h->S, w->hi, w->lo);
        tp_exact_row_madd((int)n, (int)c, fabsf(x), w->akt + c * h->S, w->abs_hi, w->abs_lo);
    }
    const long long terms = h->m->faithful_scores ? 2 * h->d : h->d; /* a faithful addition errs by up to 2u */
    const tp_ival32 sc = {h->scale, h->scale};
    for (int64_t j = 0; j < n; j++) {
        double DL, DH;
        const double absum = w->abs_hi[j] + w->abs_lo[j];
        /* absum rounded to nearest may fall below the exact sum: one ulp up covers it */
        if (!tp_sum_interval_exact(w->hi[j], w->lo[j], nextafter(absum, INFINITY), terms, &DL, &DH)) {
            *why = "a score's exact sum is beyond the proven sum bound's range";
            return -1;
        }
        const tp_ival32 D = {(float)tp_round_lower(&tp_binary32, DL), (float)tp_round_upper(&tp_binary32, DH)};
        if (!isfinite(D.lo) || !isfinite(D.hi) || !tp_ival32_mul_ok(D, sc)) {
            *why = "a binary32 score may overflow";
            return -1;
        }
        if (h->m->exp2_scaled) {
            w->sl[j] = (double)h->scale * D.lo, w->sh[j] = (double)h->scale * D.hi; /* exact: 24 x 24 bits */
            continue;
        }
        const tp_ival32 s = tp_ival32_mul(D, sc);
        w->sl[j] = s.lo, w->sh[j] = s.hi;
    }
    return 0;
}

/* What phase 2 derives for a row. The exact terms are e_j = exp(S_j - Mx)
 * with Mx near the largest exact score; the kernel's are taken divided by
 * c* = exp(Mm - M_k) with Mm the largest score it may have, so that
 * 1 <= c*: p~_j / c* lies in [ml_j, mh_j] (docs/attention.md). */
typedef struct {
    double Mx;
    double Mlo, Mhi; /* the model's terms are exp(s_j - M) with M in [Mlo, Mhi] */
    double mk_lo, mk_hi;    /* the kernel's final maximum M_k */
    double L_lo, L_hi;      /* exact: sum_j e_j, e_j = exp(S_j - Mref) */
    double ML_lo, ML_hi;    /* model: sum_j [ml_j, mh_j] */
    double cs_lo, cs_hi;    /* c* */
    double cnt_sub;         /* terms whose local p may be binary16-subnormal */
    double sub_abs;         /* |p16_j - p_j| w_j / c* for such a term */
    double gamma;           /* the accumulations' relative bound */
    double round_abs;       /* the accumulations' underflows, / c* */
    double top_lo;          /* the term at M_k is at least this (1 for expf: expf(0) = 1, never rescaled) */
} row_bound;

/* Phase 2 (FE_UPWARD): exact exp(S_j - Mref) in [el_j, eh_j]; the model's
 * p~_j / c* in [ml_j, mh_j]. */
static void row_terms(attn_ws *w, const attn_head *h, int64_t n, row_bound *b)
{
    const attn_model *m = h->m;
    /* Mx: any double near the largest exact score; the exact enclosures are relative to it */
    double Mx = -INFINITY;
    for (int64_t j = 0; j < n; j++)
        Mx = fmax(Mx, h->scale * w->hi[j]);
    tp_exp_ctx ec;
    tp_exp_ctx_init(&ec);
    double mk_lo = -INFINITY, mk_hi = -INFINITY;
    for (int64_t j = 0; j < n; j++)
        mk_lo = max2(mk_lo, w->sl[j]), mk_hi = max2(mk_hi, w->sh[j]);
    b->Mx = Mx, b->mk_lo = mk_lo, b->mk_hi = mk_hi;
    /* Normalised by c* = exp(mk_hi - M_k) when M_k is known to within 1: c* then cancels in O exactly;
     * otherwise in the kernel's own units (c* = 1), each term with the whole range of M_k */
    const int normalised = mk_hi - mk_lo < 1.0;
    b->Mlo = normalised ? mk_hi : mk_lo, b->Mhi = mk_hi;
    const double T = ceil((double)n / m->min_tile_keys) + 1.0; /* tiles holding keys of this row */
    const double eps = (m->expf_ulp + 1) * 0x1p-23;            /* one expf, relative, normal result */
    double lo, hi, growth;                                       /* growth >= (1 + eps)^T */
    tp_exp_enclose_up(&ec, T * eps, T * eps, &lo, &growth);
    const double shrink = dn_add(1.0, -T * eps); /* (1 - eps)^T >= 1 - T eps */
    /* exp2f_scaled: the term at M_k is exp2f(fma(M, c, -RN32(M c))), the fma the rounding error of M c, and
     * its later rescales are not known to be exact: (1 - eps)^T exp(-u |M|) at least */
    b->top_lo = 1.0;
    if (m->exp2_scaled) {
        const double x = -1.0001 * U32 * max2(fabs(mk_hi), fabs(mk_lo));
        tp_exp_enclose_up(&ec, x, x, &b->top_lo, &hi);
        b->top_lo = dn_mul(b->top_lo, shrink);
    }
    b->cs_lo = 1.0, b->cs_hi = 1.0;
    if (normalised)
        tp_exp_enclose_up(&ec, mk_hi - mk_lo, mk_hi - mk_lo, &lo, &b->cs_hi);
    /* every exponential of a term's chain (its own p, and each alpha after it) may err absolutely by
     * (k + 1) 2^-149 (a subnormal result), or by 2^-126 where subnormal results are flushed to zero; a term
     * never exceeds growth */
    const double under =
        2.0 * T * (m->exp2_scaled ? 0x1p-126 : (m->expf_ulp + 1) * 0x1p-149) * growth / b->cs_lo;
    const double cap = growth / b->cs_lo;
    const double thresh = 0x1p-14 * growth; /* below it, p_j may be binary16-subnormal */
    double L_up = 0.0, L_nlo = 0.0, ML_up = 0.0, ML_nlo = 0.0, cnt_sub = 0.0;
    for (int64_t j = 0; j < n; j++) {
        /* exact: S_j - Mx = scale (hi + lo) - Mx, enclosed */
        const double xh = (h->scale * w->hi[j] + h->scale * w->lo[j]) - Mx;
        const double xl = dn_add(dn_add(dn_mul(h->scale, w->hi[j]), dn_mul(h->scale, w->lo[j])), -Mx);
        tp_exp_enclose_up(&ec, xl, xh, &w->el[j], &w->eh[j]);
        L_up += w->eh[j];
        L_nlo += -w->el[j];
        /* model: p~_j / c* = exp(s_j - Mm) exp(+-delta_j) (1 +- eps)^T: the arguments' roundings telescope
         * along the rescales to u (M_k - s_j); exp2f_scaled: 3u (M_k - s_j) (c's rounding, the fma's, the
         * rescale's product by c) plus u |m| for RN32(m c) at the term's own tile, m between s_j and M_k */
        const double gap = mk_hi - w->sl[j];
        const double delta = m->exp2_scaled ? 3.0001 * U32 * gap + 1.0001 * U32 * max2(fabs(mk_hi), fabs(w->sl[j]))
                                            : U32 * gap;
        const double al = dn_add(dn_add(w->sl[j], -b->Mhi), -delta), ah = (w->sh[j] - b->Mlo) + delta;
        double pl, ph;
        tp_exp_enclose_up(&ec, al, ah, &pl, &ph);
        pl = dn_add(dn_mul(pl, shrink), -under);
        w->ml[j] = pl > 0.0 ? pl : 0.0;
        w->mh[j] = fmin(ph * growth + under, cap);
        ML_up += w->mh[j];
        ML_nlo += -w->ml[j];
        if (m->p_binary16 && dn_mul(w->ml[j], b->cs_lo) < thresh)
            cnt_sub++;
    }
    b->L_hi = L_up, b->L_lo = -L_nlo;
    b->ML_hi = ML_up, b->ML_lo = -ML_nlo;
    b->cnt_sub = cnt_sub;
    b->sub_abs = 0x1p-25 * growth / b->cs_lo; /* |p16 - p| <= 2^-25 below 2^-14, times w_j <= growth */
    const double steps = (double)n - 1.0 + T;
    const double uu = m->faithful_pv ? 2 * U32 : U32;
    b->gamma = steps * uu / dn_add(1.0, -steps * uu);
    b->round_abs = steps * 0x1p-149 / b->cs_lo; /* each rounding may lose up to 2^-150 to underflow */
}

/* l / c*: the model's terms summed with the accumulation's relative error
 * (positive terms); at least (1 - gamma) / c* since the term at M_k is
 * expf(0) = 1 exactly (a documented special value) and is never rescaled
 * after (alpha = expf(0) = 1 once the maximum stops rising). */
static void l_interval(const row_bound *b, double *lo, double *hi)
{
    *hi = b->ML_hi * (1.0 + b->gamma) + b->round_abs;
    const double a = dn_add(dn_mul(b->ML_lo, dn_add(1.0, -b->gamma)), -b->round_abs);
    const double one = dn_add(dn_div(dn_mul(dn_add(1.0, -b->gamma), b->top_lo), b->cs_hi), -b->round_abs);
    *lo = fmax(a, one);
}

/* Phase 2 for O (FE_UPWARD): the exact row sums A_c = sum e_j v_jc
 * (enclosed), and the model's sum [ml_j, mh_j] v_jc and sum mh_j |v_jc|. */
static void o_sums(attn_ws *w, const attn_head *h, int64_t n)
{
    const int64_t d = h->d;
    for (int64_t c = 0; c < d; c++)
        w->a_up[c] = w->a_nlo[c] = w->ma_up[c] = w->ma_nlo[c] = w->mb_up[c] = 0.0;
    for (int64_t j = 0; j < n; j++) {
        const double el = w->el[j], eh = w->eh[j], nel = -el, neh = -eh;
        const double ml = w->ml[j], mh = w->mh[j], nml = -ml, nmh = -mh;
        const float *v = w->vf + j * d;
        double *restrict a_up = w->a_up, *restrict a_nlo = w->a_nlo, *restrict ma_up = w->ma_up,
                         *restrict ma_nlo = w->ma_nlo, *restrict mb_up = w->mb_up;
        for (int64_t c = 0; c < d; c++) {
            const double x = v[c];
            a_up[c] += max2(el * x, eh * x);    /* up(max e v) */
            a_nlo[c] += max2(nel * x, neh * x); /* up(-min e v) */
            ma_up[c] += max2(ml * x, mh * x);
            ma_nlo[c] += max2(nml * x, nmh * x);
            mb_up[c] += mh * fabs(x);
        }
    }
}

/* Phase 2 for the log-sum-exp (FE_UPWARD, MPFR for the logarithms): the
 * exact Mx + log L, and the kernel's M_k + logf(l) = Mm + log(l / c*)
 * plus logf's error (M_k and c* cancel: log c* = Mm - M_k). */
static void lse_ends(attn_ws *w, const attn_model *m, const row_bound *b, double llo, double lhi, double *x_lo,
                     double *x_hi, double *m_lo, double *m_hi)
{
    mpfr_set_d(w->t, b->L_lo, MPFR_RNDN), mpfr_log(w->t, w->t, MPFR_RNDD);
    *x_lo = dn_add(mpfr_get_d(w->t, MPFR_RNDD), b->Mx);
    mpfr_set_d(w->t, b->L_hi, MPFR_RNDN), mpfr_log(w->t, w->t, MPFR_RNDU);
    *x_hi = mpfr_get_d(w->t, MPFR_RNDU) + b->Mx;
    mpfr_set_d(w->t, llo, MPFR_RNDN), mpfr_log(w->t, w->t, MPFR_RNDD);
    const double lg_lo = mpfr_get_d(w->t, MPFR_RNDD);
    mpfr_set_d(w->t, lhi, MPFR_RNDN), mpfr_log(w->t, w->t, MPFR_RNDU);
    const double lg_hi = mpfr_get_d(w->t, MPFR_RNDU);
    /* logf within k ulps of RN32(log l_k): |error| <= (k + 1) 2^-23 |log l_k| + (k + 1) 2^-149, with
     * |log l_k| <= |Mm - M_k| + |log(l / c*)| */
    const double logc = b->mk_hi - b->mk_lo; /* >= |Mm - M_k|, 0 in the kernel's units */
    const double mag = logc + fmax(fabs(lg_lo), fabs(lg_hi));
    const double Ey = (m->logf_ulp + 1) * 0x1p-23 * mag + (m->logf_ulp + 1) * 0x1p-149;
    *m_lo = dn_add(dn_add(b->Mlo, lg_lo), -Ey);
    *m_hi = (b->Mhi + lg_hi) + Ey;
}

/* Phase 2 for O, column c: acc / c* lies in the model's sum_j [ml_j, mh_j] v_jc
 * widened by P's binary16 rounding and the accumulation's error. */
static void acc_interval(const attn_ws *w, const attn_model *m, const row_bound *b, int64_t c, double *lo,
                         double *hi)
{
    const double sub = b->cnt_sub * b->sub_abs * w->maxv[c]; /* binary16-subnormal P */
    const double mass = w->mb_up[c];                           /* >= sum_j |p~_j v_jc| / c* */
    const double p16 = m->p_binary16 ? U16 * mass + sub : 0.0;
    const double E = p16 + b->gamma * (mass + p16) + b->round_abs;
    *lo = dn_add(-w->ma_nlo[c], -E), *hi = w->ma_up[c] + E;
}

static void set_exact(tp_ref *r, double lo, double hi)
{
    r->exact_lo = lo, r->exact_hi = hi;
    r->exact = lo == hi ? lo : 0.5 * lo + 0.5 * hi;
}

/* Phase 3 for O, column c: the binary32 set of the kernel's final step on
 * acc in [a] and l in [lq] (both / c*), by the proven primitives. */
static int o_final(const attn_model *m, const row_bound *b, tp_ival32 a, tp_ival32 lq, tp_ival32 *q,
                   const char **why)
{
    if (!m->reciprocal) { /* RN32(acc / l) = RN32((acc / c*) / (l / c*)) */
        if (!tp_ival32_div_ok(a, lq)) {
            *why = "a binary32 quotient acc / l may overflow";
            return -1;
        }
        *q = tp_ival32_div(a, lq);
        return 0;
    }
    /* RN32(acc RN32(1 / l)): c* does not cancel inside RN32(1 / l); acc and l at the kernel's scale, their
     * real products enclosed by the binary32 product sets widened one step */
    const tp_ival32 cs = {f32_down(b->cs_lo), f32_up(b->cs_hi)}, one = {1.0f, 1.0f};
    if (!tp_ival32_mul_ok(a, cs) || !tp_ival32_mul_ok(lq, cs)) {
        *why = "a binary32 product may overflow";
        return -1;
    }
    tp_ival32 ak = tp_ival32_mul(a, cs), lk = tp_ival32_mul(lq, cs);
    ak.lo = nextafterf(ak.lo, -INFINITY), ak.hi = nextafterf(ak.hi, INFINITY);
    lk.lo = nextafterf(lk.lo, -INFINITY), lk.hi = nextafterf(lk.hi, INFINITY);
    if (!tp_ival32_div_ok(one, lk)) {
        *why = "a binary32 reciprocal may overflow";
        return -1;
    }
    const tp_ival32 inv = tp_ival32_div(one, lk);
    if (!tp_ival32_mul_ok(ak, inv)) {
        *why = "a binary32 product may overflow";
        return -1;
    }
    *q = tp_ival32_mul(ak, inv);
    return 0;
}

int attn_row(attn_ws *w, const attn_head *h, int64_t i, tp_ref *o, tp_ref *lse, const char **why)
{
    const attn_model *m = h->m;
    const int64_t n = m->causal ? i + 1 : h->S;
    if (scores(w, h, i, n, why) != 0)
        return -1;
    fesetround(FE_UPWARD);
    row_bound b;
    row_terms(w, h, n, &b);
    double llo, lhi;
    l_interval(&b, &llo, &lhi);
    double x_lo = 0, x_hi = 0, m_lo = 0, m_hi = 0;
    if (lse && llo > 0)
        lse_ends(w, m, &b, llo, lhi, &x_lo, &x_hi, &m_lo, &m_hi);
    if (o) {
        o_sums(w, h, n);
        for (int64_t c = 0; c < h->d; c++) {
            acc_interval(w, m, &b, c, &w->alo[c], &w->ahi[c]);
            const double A_hi = w->a_up[c], A_lo = -w->a_nlo[c]; /* exact O_c = A_c / L */
            w->olo[c] = A_lo >= 0 ? dn_div(A_lo, b.L_hi) : dn_div(A_lo, b.L_lo);
            w->ohi[c] = A_hi >= 0 ? A_hi / b.L_lo : A_hi / b.L_hi;
        }
    }
    fesetround(FE_TONEAREST);
    if (!(llo > 0)) {
        *why = "the model's row sum l may be 0";
        return -1;
    }
    if (lse) {
        if (m->logf_ulp < 0) {
            *why = "no documented logf bound for this backend";
            return -1;
        }
        set_exact(lse, x_lo, x_hi);
        double lo = m_lo, hi = m_hi;
        tp_bound_shrink(lse->exact, &lo, &hi);
        lse->allow_lo = tp_round_lower(&tp_binary32, lo);
        lse->allow_hi = tp_round_upper(&tp_binary32, hi);
    }
    const tp_ival32 lq = {f32_down(llo), f32_up(lhi)};
    for (int64_t c = 0; o && c < h->d; c++) {
        set_exact(&o[c], w->olo[c], w->ohi[c]);
        tp_ival32 q;
        if (o_final(m, &b, (tp_ival32){f32_down(w->alo[c]), f32_up(w->ahi[c])}, lq, &q, why) != 0)
            return -1;
        double lo = q.lo, hi = q.hi;
        tp_bound_shrink(o[c].exact, &lo, &hi);
        o[c].allow_lo = tp_round_lower(&tp_binary16, lo);
        o[c].allow_hi = tp_round_upper(&tp_binary16, hi);
    }
    return 0;
}
