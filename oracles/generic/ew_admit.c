#include "oracles/generic/ew_admit.h"
#include "oracles/generic/proven/ew_eval.h"

#include "oracles/common/round_ends.h"
#include "oracles/common/vendor_ulp.h"

#include <float.h>
#include <math.h>
#include <mpfi.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* RN32 of device function k at x, remembered per thread: a rotary
 * embedding meets each angle once per head and element of its pair. A
 * pure function of (k, x), so a remembered value is the value computed
 * again. */
enum { RN32_MEMO_BITS = 12 };
static _Thread_local struct {
    uint32_t x;
    int k; /* k + 1: 0 marks an empty slot */
    float v;
} rn32_memo[1 << RN32_MEMO_BITS];

static float fn_rn32(int k, float x);

float ew_fn_rn32(int k, float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t h = ((bits ^ (uint32_t)k * 0x85ebca6bu) * 0x9e3779b1u) >> (32 - RN32_MEMO_BITS);
    if (rn32_memo[h].k == k + 1 && rn32_memo[h].x == bits)
        return rn32_memo[h].v;
    const float v = fn_rn32(k, x);
    rn32_memo[h].x = bits, rn32_memo[h].k = k + 1, rn32_memo[h].v = v;
    return v;
}

static float fn_rn32(int k, float x)
{
    const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    mpfr_t t, r;
    mpfr_init2(t, 24);
    mpfr_init2(r, 24);
    mpfr_set_flt(t, x, MPFR_RNDN); /* exact */
    int inex = 0;
    switch (EW_FIRST_FN + k) {
    case EW_SQRT: inex = mpfr_sqrt(r, t, MPFR_RNDN); break;
    case EW_RSQRT: inex = mpfr_rec_sqrt(r, t, MPFR_RNDN); break;
    case EW_EXP: inex = mpfr_exp(r, t, MPFR_RNDN); break;
    case EW_LOG: inex = mpfr_log(r, t, MPFR_RNDN); break;
    case EW_TANH: inex = mpfr_tanh(r, t, MPFR_RNDN); break;
    case EW_ERF: inex = mpfr_erf(r, t, MPFR_RNDN); break;
    case EW_SIN: inex = mpfr_sin(r, t, MPFR_RNDN); break;
    case EW_COS: inex = mpfr_cos(r, t, MPFR_RNDN); break;
    default: mpfr_set_nan(r); break;
    }
    inex = mpfr_check_range(r, inex, MPFR_RNDN);
    mpfr_subnormalize(r, inex, MPFR_RNDN);
    const float v = mpfr_get_flt(r, MPFR_RNDN); /* exact: r is a binary32 value */
    mpfr_clear(t);
    mpfr_clear(r);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return v;
}

/* sinf and cosf are not monotone: over an interval of arguments, the
 * ends of an MPFI enclosure of the function's range, rounded outward to
 * binary32, hold every RN32 of a value in it (RN32 is monotone). */
static void trig_range(ew_kind kind, tp_ival32 a, float *lo, float *hi)
{
    mpfi_t t;
    mpfi_init2(t, 64);
    mpfi_interv_d(t, a.lo, a.hi); /* exact: binary32 ends */
    if (kind == EW_SIN)
        mpfi_sin(t, t);
    else
        mpfi_cos(t, t);
    *lo = mpfr_get_flt(&t->left, MPFR_RNDD);
    *hi = mpfr_get_flt(&t->right, MPFR_RNDU);
    mpfi_clear(t);
}

/* A device function on an interval (ew_eval.h; sqrtf with ulp 0 is
 * ew_eval.c's, through the proven tp_ival32_sqrt): the correctly rounded
 * ends (the functions other than sinf and cosf are monotone on their
 * domains: rsqrtf decreasing, the others increasing), widened by ulp
 * vendor ulps, or exactly those ends (ulp = 0). Not proven: a contract
 * given to WP (proofs/TRUSTED.md). */
int ew_device_ends(int k, int ulp, tp_ival32 a, tp_ival32 *r, const char **why)
{
    const ew_kind kind = (ew_kind)(EW_FIRST_FN + k);
    if (!isfinite(a.lo) || !isfinite(a.hi)) {
        *why = "a device function of a value that may overflow binary32";
        return -1;
    }
    if ((kind == EW_SQRT && a.lo < 0.0f) || ((kind == EW_LOG || kind == EW_RSQRT) && !(a.lo > 0.0f))) {
        *why = kind == EW_SQRT ? "sqrtf of an interval reaching below 0" : "the argument interval reaches 0 or below";
        return -1;
    }
    float lo, hi;
    if ((kind == EW_SIN || kind == EW_COS) && a.lo != a.hi)
        trig_range(kind, a, &lo, &hi);
    else
        lo = ew_fn_rn32(k, a.lo), hi = a.hi == a.lo ? lo : ew_fn_rn32(k, a.hi);
    if (kind == EW_RSQRT) {
        const float t = lo;
        lo = hi, hi = t;
    }
    /* An end that rounds to +inf (expf overflowing): the device may return
     * inf or a value within its ulps below the largest finite one, so the
     * lower end widens from FLT_MAX and the upper end stays +inf (sums and
     * divisors below handle it); any other non-finite end is not bounded. */
    const float clo = lo == INFINITY ? FLT_MAX : lo, chi = hi == INFINITY ? FLT_MAX : hi;
    const float wlo = tp_vendor_lower(clo, chi, ulp), whi = hi == INFINITY ? hi : tp_vendor_upper(clo, chi, ulp);
    if (!isfinite(wlo) || isnan(whi) || whi == -INFINITY) {
        *why = "the device function's result may overflow binary32";
        return -1;
    }
    r->lo = wlo, r->hi = whi;
    return 0;
}

/* x / y within the binary32 range, checked in double (ew_eval.h: a
 * contract WP takes as given). */
int ew_quot_fits(float x, float y)
{
    return fabs((double)x / y) <= 0x1.fffffcp127;
}

/* __float2half of finite ends (ew_eval.h): the proven binary16 ends
 * (oracles/common/round_ends.h), binary16 values read back exactly. */
int ew_rn16_ends(tp_ival32 a, tp_ival32 *r, const char **why)
{
    const double lo = tp_round_lower(&tp_binary16, a.lo), hi = tp_round_upper(&tp_binary16, a.hi);
    if (!isfinite(lo) || !isfinite(hi)) {
        *why = "a binary16 rounding that may overflow to infinity";
        return -1;
    }
    r->lo = (float)lo, r->hi = (float)hi; /* binary16 values: exact */
    return 0;
}

/* Table k's value at its input's pattern (ew_eval.h): *node and *why are
 * written only where the evaluation failed for that pattern. */
int ew_tab_value(const ew_tabs *t, int k, const uint16_t *bits, tp_ival32 *r, int *node, const char **why)
{
    const uint16_t h = bits[t->input[k]];
    if (t->fnode[k][h] >= 0) {
        *node = t->fnode[k][h];
        *why = t->fwhy[k][h];
        return -1;
    }
    *r = t->ival[k][h];
    return 0;
}

int ew_prog_check(const ew_prog *p, const char *op, const char *where, char *err, size_t errlen)
{
    if (ew_prog_ok(p))
        return 0;
    snprintf(err, errlen, "%s: %s: the parsed program is ill-formed for the proven evaluator (1 to %d nodes, each "
             "operand before its user, input indices below %d); expected an expression the parser accepts within "
             "those limits", op, where, EW_MAX_NODES, EW_MAX_INPUTS);
    return -1;
}

/* The node loop is ew_eval_values (oracles/generic/proven/ew_eval.c,
 * proven T1 by WP). */
int ew_admit_values(const ew_prog *p, const ew_model *m, const tp_ival32 *in, int upto, const unsigned char *only,
                    const ew_tabs *t, const uint16_t *bits, tp_ival32 *v, int *node, const char **why)
{
    return ew_eval_values(p, m, in, upto, only, t ? t->skip : NULL, t ? t->tab_of : NULL, t, bits, v, node, why);
}

int ew_admit_box(const ew_prog *p, const ew_model *m, const tp_ival32 *in, int upto, const unsigned char *only,
                 const ew_tabs *t, const uint16_t *bits, tp_ival32 *out, int *node, const char **why)
{
    tp_ival32 v[EW_MAX_NODES];
    if (ew_admit_values(p, m, in, upto, only, t, bits, v, node, why) != 0)
        return -1;
    *out = v[upto];
    return 0;
}

int ew_admit_nodes(const ew_prog *p, const ew_model *m, const float *in, int upto, const unsigned char *only,
                   const ew_tabs *t, const uint16_t *bits, tp_ival32 *out, int *node, const char **why)
{
    tp_ival32 box[EW_MAX_INPUTS];
    for (int i = 0; i <= upto; i++)
        if (p->node[i].kind == EW_INPUT)
            box[p->node[i].input].lo = box[p->node[i].input].hi = in[p->node[i].input];
    return ew_admit_box(p, m, box, upto, only, t, bits, out, node, why);
}

int ew_admit(const ew_prog *p, const ew_model *m, const float *in, tp_ival32 *out, int *node, const char **why)
{
    return ew_admit_nodes(p, m, in, p->n - 1, NULL, NULL, NULL, out, node, why);
}
