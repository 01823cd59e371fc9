/* Checks harness/tp_check.c (tp_check_output) on hand-made references:
 * verdicts at and just beyond the ends of the admitted interval, NaN, the
 * infinities, signed zeros, the error statistics, the worst-element list
 * and its order, first_violations, and the claim audit ("implied", "too
 * strict", "too loose", both) with its equality cases; violations more
 * accurate than the model admits (tp_more_accurate, "more_accurate"); and
 * bit-pattern comparison (tp_check_output_bits): NaN payloads, signed
 * zeros. */
#include "tests/tap.h"
#include "harness/tp_check.h"
#include "core/tp_fp16.h"

#include <jansson.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PINF 0x7c00
#define NINF 0xfc00
#define QNAN 0x7e00

static uint16_t h(double x) { return tp_f16_from_double(x); }
static uint16_t up(uint16_t x) { return tp_f16_next_up(x); }
static uint16_t down(uint16_t x) { return tp_f16_next_down(x); }
static double v(uint16_t x) { return tp_f16_to_double(x); }

static tp_ref mkref(double exact, double lo, double hi)
{
    tp_ref r = {exact, exact, exact, lo, hi};
    return r;
}

/* Runs tp_check_output on a rank-2 (rows x cols) or rank-1 output. */
static json_t *check(int rows, int cols, const uint16_t *y, const tp_ref *ref, double atol)
{
    tp_tensor t = {"C", TP_F16, rows ? 2 : 1, {rows ? rows : cols, rows ? cols : 0}, (rows ? rows : 1) * cols,
                   (void *)y, NULL};
    return tp_check_output(&t, ref, atol, 0.0);
}

/* The same with admitted bit patterns (an op with reference_bits). */
static json_t *check_bits(int n, const uint16_t *y, const tp_ref *ref, const uint32_t *bits)
{
    tp_tensor t = {"out", TP_F16, 1, {n}, n, (void *)y, NULL};
    return tp_check_output_bits(&t, ref, bits, 1e-2, 0.0);
}

static json_int_t jint(const json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }
static const char *jstr(const json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }
/* Numbers, with "inf" / "-inf" / "nan" strings decoded. */
static double jnum(const json_t *o, const char *k)
{
    const json_t *x = json_object_get(o, k);
    if (json_is_string(x)) {
        const char *s = json_string_value(x);
        return strcmp(s, "inf") == 0 ? INFINITY : strcmp(s, "-inf") == 0 ? -INFINITY : NAN;
    }
    return x ? json_number_value(x) : NAN;
}

/* One element: the verdict. */
static int passes(uint16_t y, tp_ref r)
{
    json_t *o = check(0, 1, &y, &r, 1.0);
    int ok = strcmp(jstr(o, "verdict"), "pass") == 0;
    if (ok != (jint(o, "violations") == 0))
        ok = -1; /* inconsistent */
    json_decref(o);
    return ok;
}

static const char *claim(int n, const uint16_t *y, const tp_ref *r, double atol, json_int_t *strict, json_int_t *loose)
{
    static char verdict[64];
    json_t *o = check(0, n, y, r, atol);
    json_t *c = json_object_get(o, "claim");
    snprintf(verdict, sizeof verdict, "%s", jstr(c, "verdict"));
    if (strict)
        *strict = jint(c, "strict_elements");
    if (loose)
        *loose = jint(c, "loose_elements");
    json_decref(o);
    return verdict;
}

int main(void)
{
    /* ---- verdicts at the ends of the admitted interval ---- */
    /* exact 1 + 2^-12 (not a binary16 value), admitted [1 - 2^-11, 1 + 2^-10] */
    tp_ref r = mkref(1.0 + 0x1p-12, 1.0 - 0x1p-11, 1.0 + 0x1p-10);
    uint16_t lo = h(r.allow_lo), hi = h(r.allow_hi);
    tap_ok(passes(h(1.0), r) == 1, "an output inside the admitted interval passes");
    tap_ok(passes(lo, r) == 1 && passes(hi, r) == 1, "both ends of the admitted interval pass");
    tap_ok(passes(up(hi), r) == 0, "one binary16 step above the admitted interval fails (%a)", v(up(hi)));
    tap_ok(passes(down(lo), r) == 0, "one binary16 step below the admitted interval fails (%a)", v(down(lo)));
    tap_ok(passes(QNAN, r) == 0 && passes(0xfe01, r) == 0 && passes(0x7c01, r) == 0,
           "NaN outputs (quiet, negative, signalling pattern) fail");
    tp_ref wide_open = mkref(3.0, -INFINITY, INFINITY);
    tap_ok(passes(QNAN, wide_open) == 0, "NaN fails even when every value is admitted");
    tap_ok(passes(PINF, wide_open) == 1 && passes(NINF, wide_open) == 1 && passes(h(-65504), wide_open) == 1,
           "with [-inf, inf] admitted, +-inf and -65504 pass");

    /* ---- infinities ---- */
    tp_ref near_max = mkref(65500.0, 65472.0, 65504.0);
    tp_ref overflows = mkref(65530.0, 65504.0, INFINITY);
    tp_ref only_inf = mkref(70000.0, INFINITY, INFINITY);
    tap_ok(passes(PINF, near_max) == 0, "+inf fails when allow_hi is 65504");
    tap_ok(passes(PINF, overflows) == 1 && passes(h(65504), overflows) == 1, "+inf passes when allow_hi is inf");
    tap_ok(passes(PINF, only_inf) == 1 && passes(h(65504), only_inf) == 0 && passes(NINF, only_inf) == 0,
           "when only +inf is admitted, 65504 and -inf fail");
    tp_ref neg_over = mkref(-65530.0, -INFINITY, -65504.0);
    tap_ok(passes(NINF, neg_over) == 1 && passes(PINF, neg_over) == 0, "-inf passes when allow_lo is -inf, +inf does not");

    /* ---- signed zeros ---- */
    tp_ref zero = mkref(0.0, 0.0, 0.0), negzero = mkref(-0.0, -0.0, -0.0);
    tap_ok(passes(0x0000, zero) == 1 && passes(0x8000, zero) == 1 && passes(0x0000, negzero) == 1 &&
               passes(0x8000, negzero) == 1,
           "-0 and +0 are the same value: each passes where the other is admitted");
    tap_ok(passes(0x0001, zero) == 0 && passes(0x8001, zero) == 0, "+-2^-24 fail where only 0 is admitted");
    tp_ref tiny = mkref(0x1p-26, -0.0, 0x1p-24);
    tap_ok(passes(0x8000, tiny) == 1 && passes(0x0001, tiny) == 1 && passes(0x8001, tiny) == 0,
           "admitted [-0, 2^-24]: -0 and 2^-24 pass, -2^-24 fails");

    /* ---- statistics: max_err_over_bound, max_abs_err, worst list order ---- */
    {
        /* exact 1 + 2^-12 with admitted [1 - 2^-11, 1 + 2^-10]: bound above
         * 3 * 2^-12, below 3 * 2^-12 too; the outputs and their err/bound: */
        enum { NE = 8 };
        tp_ref refs[NE];
        uint16_t y[NE];
        double e = 1.0 + 0x1p-12;
        for (int i = 0; i < NE; i++)
            refs[i] = mkref(e, 1.0 - 0x1p-11, 1.0 + 0x1p-10);
        y[0] = h(1.0);             /* err 2^-12, ratio 1/3 */
        y[1] = h(1.0 + 0x1p-10);   /* err 3*2^-12, ratio 1 */
        y[2] = h(1.0 + 0x1p-9);    /* err 7*2^-12, ratio 7/3: violation */
        y[3] = h(1.0 - 0x1p-11);   /* err 3*2^-12, ratio 1 */
        y[4] = h(1.0 - 0x1p-10);   /* err 5*2^-12, ratio 5/3: violation */
        y[5] = h(1.0 + 0x1p-9);    /* same as [2]: tie broken by index */
        y[6] = h(1.0);             /* ratio 1/3 */
        y[7] = h(1.0 + 0x1p-10);   /* ratio 1 */
        json_t *o = check(2, 4, y, refs, 1e-2);
        tap_ok(strcmp(jstr(o, "verdict"), "fail") == 0 && jint(o, "violations") == 3 && jint(o, "elements") == 8 &&
                   jint(o, "nonfinite_outputs") == 0,
               "verdict fail, 3 violations of 8 elements");
        tap_ok(jnum(o, "max_err_over_bound") == (7 * 0x1p-12) / (3 * 0x1p-12) && jnum(o, "max_abs_err") == 7 * 0x1p-12 &&
                   jnum(o, "max_bound") == 3 * 0x1p-12,
               "max_err_over_bound %.17g (7/3), max_abs_err %a, max_bound %a", jnum(o, "max_err_over_bound"),
               jnum(o, "max_abs_err"), jnum(o, "max_bound"));
        tap_ok(jnum(o, "max_ulp_err") == 7 * 0x1p-12 / 0x1p-10, "max_ulp_err %g (err / ulp(exact) = 1.75)",
               jnum(o, "max_ulp_err"));
        json_t *w = json_object_get(o, "worst");
        /* by ratio desc, then err desc, then index asc: 2, 5, 4, then ratio 1
         * with err 3*2^-12: 1, 3 (index order) */
        static const int want[5][2] = {{0, 2}, {1, 1}, {1, 0}, {0, 1}, {0, 3}};
        int order_ok = json_array_size(w) == 5;
        for (size_t i = 0; order_ok && i < 5; i++) {
            json_t *idx = json_object_get(json_array_get(w, i), "index");
            order_ok = json_integer_value(json_array_get(idx, 0)) == want[i][0] &&
                       json_integer_value(json_array_get(idx, 1)) == want[i][1];
        }
        char *txt = json_dumps(w, JSON_COMPACT);
        if (!tap_ok(order_ok, "worst: 5 elements by err/bound, then err, then index; [row, col] indices"))
            tap_diag("worst = %s", txt);
        free(txt);
        json_t *w0 = json_array_get(w, 0);
        json_t *allowed = json_object_get(w0, "allowed");
        tap_ok(jnum(w0, "got") == 1.0 + 0x1p-9 && jnum(w0, "exact") == e &&
                   json_real_value(json_array_get(allowed, 0)) == 1.0 - 0x1p-11 &&
                   json_real_value(json_array_get(allowed, 1)) == 1.0 + 0x1p-10 && jnum(w0, "bound") == 3 * 0x1p-12 &&
                   jnum(w0, "err") == 7 * 0x1p-12 && jnum(w0, "err_over_bound") == 7.0 / 3.0,
               "worst[0] reports got, exact, allowed, bound, err, err_over_bound");
        json_t *f = json_object_get(o, "first_violations");
        int first_ok = json_array_size(f) == 3;
        static const int wantf[3][2] = {{0, 2}, {1, 0}, {1, 1}};
        for (size_t i = 0; first_ok && i < 3; i++) {
            json_t *idx = json_object_get(json_array_get(f, i), "index");
            first_ok = json_integer_value(json_array_get(idx, 0)) == wantf[i][0] &&
                       json_integer_value(json_array_get(idx, 1)) == wantf[i][1];
        }
        tap_ok(first_ok, "first_violations lists the violations in index order");
        /* SHA-256 of the output bytes */
        unsigned char md[32];
        unsigned int mdlen = 0;
        EVP_Digest(y, sizeof y, md, &mdlen, EVP_sha256(), NULL);
        char hex[65];
        for (int i = 0; i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", md[i]);
        tap_ok(jstr(o, "sha256") && strcmp(jstr(o, "sha256"), hex) == 0, "sha256 of the output bytes");
        json_decref(o);

        /* passing: max_err_over_bound <= 1, exactly 1 at an end */
        uint16_t yp[3] = {h(1.0), h(1.0 + 0x1p-10), h(1.0)};
        o = check(0, 3, yp, refs, 1e-2);
        tap_ok(strcmp(jstr(o, "verdict"), "pass") == 0 && jnum(o, "max_err_over_bound") == 1.0 &&
                   json_array_size(json_object_get(o, "first_violations")) == 0 &&
                   json_array_size(json_object_get(o, "worst")) == 3,
               "a passing output: max_err_over_bound 1 at an end, no first_violations, 3 worst of 3");
        json_decref(o);
        /* more than 5 violations: first_violations keeps the first 5 */
        uint16_t yv[8];
        for (int i = 0; i < 8; i++)
            yv[i] = h(2.0 + i);
        o = check(0, 8, yv, refs, 1e-2);
        json_t *fv = json_object_get(o, "first_violations");
        tap_ok(jint(o, "violations") == 8 && json_array_size(fv) == 5 &&
                   json_integer_value(json_array_get(json_object_get(json_array_get(fv, 4), "index"), 0)) == 4 &&
                   json_integer_value(json_array_get(json_object_get(json_array_get(json_object_get(o, "worst"), 0), "index"), 0)) == 7,
               "8 violations: first_violations = elements 0..4, worst[0] = element 7 (largest error)");
        json_decref(o);
        /* NaN and inf outputs in the statistics */
        uint16_t yn[3] = {QNAN, PINF, h(1.0)};
        tp_ref rn[3] = {refs[0], mkref(65530.0, 65504.0, INFINITY), refs[0]};
        o = check(0, 3, yn, rn, 1e-2);
        json_t *wn = json_object_get(o, "worst");
        tap_ok(jint(o, "violations") == 1 && jint(o, "nonfinite_outputs") == 2 && isinf(jnum(o, "max_err_over_bound")) &&
                   strcmp(json_string_value(json_object_get(json_array_get(wn, 0), "got")), "nan") == 0,
               "NaN output: a violation, counted non-finite, err_over_bound \"inf\", first in worst, got \"nan\"");
        json_decref(o);
        /* an admitted +inf: err is infinite but err/bound is 1 (it is at the
         * end of the admitted interval) */
        uint16_t yi[2] = {PINF, h(1.0)};
        tp_ref ri[2] = {mkref(65530.0, 65504.0, INFINITY), refs[0]};
        o = check(0, 2, yi, ri, 1e-2);
        tap_ok(jint(o, "violations") == 0 && jint(o, "nonfinite_outputs") == 1 && jnum(o, "max_err_over_bound") == 1.0 &&
                   jnum(o, "max_abs_err") == INFINITY,
               "an admitted +inf: passes, non-finite, err \"inf\", err_over_bound 1 (got %g, %g)",
               jnum(o, "max_abs_err"), jnum(o, "max_err_over_bound"));
        json_decref(o);
    }

    /* ---- the claim audit ---- */
    {
        /* exact 1.5 with admitted [1.5 - 2^-10, 1.5 + 2^-10]: the bound is
         * 2^-10; the nearest binary16 values outside are 1.5 -+ 2^-9. */
        tp_ref c = mkref(1.5, 1.5 - 0x1p-10, 1.5 + 0x1p-10);
        uint16_t y = h(1.5);
        json_int_t s, l;
        const char *vd;
        vd = claim(1, &y, &c, 0x1p-10, &s, &l);
        tap_ok(strcmp(vd, "implied") == 0 && s == 0 && l == 0, "atol == bound, next outside value beyond atol: implied (%s)", vd);
        vd = claim(1, &y, &c, nextafter(0x1p-10, 0), &s, &l);
        tap_ok(strcmp(vd, "too strict") == 0 && s == 1 && l == 0,
               "admitted width > atol (atol one double below the bound): too strict (%s)", vd);
        vd = claim(1, &y, &c, 1e-4, &s, &l);
        tap_ok(strcmp(vd, "too strict") == 0, "atol 1e-4 < bound 2^-10: too strict (%s)", vd);
        vd = claim(1, &y, &c, nextafter(0x1p-9, 0), &s, &l);
        tap_ok(strcmp(vd, "implied") == 0, "atol just below the distance to the next outside value: implied (%s)", vd);
        vd = claim(1, &y, &c, 0x1p-9, &s, &l);
        tap_ok(strcmp(vd, "too loose") == 0 && s == 0 && l == 1,
               "atol == distance to the next binary16 value outside: too loose (%s)", vd);
        vd = claim(1, &y, &c, 1e-2, &s, &l);
        tap_ok(strcmp(vd, "too loose") == 0, "atol 1e-2 >> bound: too loose (%s)", vd);
        /* asymmetric: exact 1 + 2^-12, admitted [1 - 2^-11, 1 + 2^-10]:
         * bound 3 * 2^-12; below, 1 - 2^-10 is 5 * 2^-12 away; above,
         * 1 + 2^-9 is 7 * 2^-12 away */
        tp_ref a = mkref(1.0 + 0x1p-12, 1.0 - 0x1p-11, 1.0 + 0x1p-10);
        uint16_t ya = h(1.0);
        vd = claim(1, &ya, &a, 4 * 0x1p-12, &s, &l);
        tap_ok(strcmp(vd, "implied") == 0, "asymmetric interval, atol between bound and nearest outside: implied (%s)", vd);
        vd = claim(1, &ya, &a, 5 * 0x1p-12, &s, &l);
        tap_ok(strcmp(vd, "too loose") == 0, "asymmetric: the outside value below is within atol: too loose (%s)", vd);
        /* its mirror image: now the outside value ABOVE is the near one */
        tp_ref m = mkref(-(1.0 + 0x1p-12), -(1.0 + 0x1p-10), -(1.0 - 0x1p-11));
        uint16_t ym = h(-1.0);
        vd = claim(1, &ym, &m, 4 * 0x1p-12, &s, &l);
        tap_ok(strcmp(vd, "implied") == 0, "mirrored asymmetric interval, atol between: implied (%s)", vd);
        vd = claim(1, &ym, &m, 5 * 0x1p-12, &s, &l);
        tap_ok(strcmp(vd, "too loose") == 0, "mirrored: the outside value above is exactly atol away: too loose (%s)",
               vd);
        /* allow_hi = inf: no binary16 value above it to be loose about */
        tp_ref o = mkref(65530.0, 65504.0, INFINITY);
        uint16_t yo = PINF;
        vd = claim(1, &yo, &o, 1e-2, &s, &l);
        tap_ok(strcmp(vd, "too strict") == 0 && l == 0, "admitted [65504, inf]: too strict, never too loose (%s)", vd);
        /* both at once, on two elements */
        tp_ref two[2] = {c, mkref(100.0, 100.0 - 0.0625, 100.0 + 0.0625)};
        uint16_t y2[2] = {h(1.5), h(100.0)};
        vd = claim(2, y2, two, 1e-2, &s, &l);
        tap_ok(strcmp(vd, "too strict and too loose") == 0 && s == 1 && l == 1,
               "one element too strict, another too loose: both, counted per element (%s, %lld, %lld)", vd,
               (long long)s, (long long)l);
        /* exactly representable result, admitted just itself: any atol >=
         * 2^-24 near 0 is loose, atol 0 is implied */
        tp_ref z = mkref(0.0, 0.0, 0.0);
        uint16_t yz = 0;
        vd = claim(1, &yz, &z, 0.0, &s, &l);
        tap_ok(strcmp(vd, "implied") == 0, "exact 0, admitted {0}, atol 0: implied (%s)", vd);
        vd = claim(1, &yz, &z, 0x1p-24, &s, &l);
        tap_ok(strcmp(vd, "too loose") == 0, "exact 0, admitted {0}, atol 2^-24: too loose (%s)", vd);
    }
    /* ---- more accurate than the model admits ---- */
    {
        /* the softmax element: exact 2.95e-8, the double-rounding
         * path admits only 2^-24 (5.96e-8); the correctly rounded 0 is
         * closer to the exact value than 2^-24 is */
        tp_ref sm = mkref(2.95e-8, 0x1p-24, 0x1p-24);
        tap_ok(tp_more_accurate(0.0, &sm) && tp_more_accurate(0x1p-25, &sm) && !tp_more_accurate(0x1p-24, &sm) &&
                   !tp_more_accurate(-0x1p-24, &sm) && !tp_more_accurate(0x1p-23, &sm),
               "exact 2.95e-8, admitted {2^-24}: 0 and 2^-25 are more accurate; 2^-24 (admitted), -2^-24 and 2^-23 "
               "are not");
        uint16_t y0 = 0;
        json_t *o = check(0, 1, &y0, &sm, 1e-2);
        json_t *f0 = json_array_get(json_object_get(o, "first_violations"), 0);
        tap_ok(strcmp(jstr(o, "verdict"), "fail") == 0 && jint(o, "violations") == 1 && jint(o, "more_accurate") == 1 &&
                   json_is_true(json_object_get(f0, "more_accurate")) && jnum(f0, "err") < jnum(f0, "bound") &&
                   jnum(o, "max_err_over_bound") > 1,
               "the verdict stays a violation (err %g < bound %g, err/bound %g > 1); more_accurate 1, the element "
               "flagged",
               jnum(f0, "err"), jnum(f0, "bound"), jnum(o, "max_err_over_bound"));
        json_decref(o);
        /* exact 1 below the admitted [1 + 2^-9, 1 + 2^-8]: closer than
         * 2^-9 on either side is more accurate, 2^-9 away is not (a tie) */
        tp_ref below = mkref(1.0, 1.0 + 0x1p-9, 1.0 + 0x1p-8);
        tap_ok(tp_more_accurate(1.0, &below) && tp_more_accurate(1.0 + 0x1p-10, &below) &&
                   tp_more_accurate(1.0 - 0x1p-10, &below) && !tp_more_accurate(1.0 - 0x1p-9, &below) &&
                   !tp_more_accurate(1.0 - 0x1p-8, &below) && !tp_more_accurate(1.0 + 0x1p-7, &below),
               "exact below the interval: y within 2^-9 of it, on either side, is more accurate; at 2^-9 (a tie) "
               "or beyond, or above the interval, it is not");
        tp_ref above = mkref(-1.0, -(1.0 + 0x1p-8), -(1.0 + 0x1p-9));
        tap_ok(tp_more_accurate(-1.0, &above) && tp_more_accurate(-1.0 + 0x1p-10, &above) &&
                   !tp_more_accurate(-1.0 + 0x1p-9, &above) && !tp_more_accurate(-(1.0 + 0x1p-7), &above),
               "its mirror image: the same, above the interval");
        /* decided over the whole enclosure of the exact value */
        tp_ref enc = {1.0 + 0x1p-11, 1.0, 1.0 + 0x1p-10, 1.0 + 0x1p-8, 1.0 + 0x1p-7};
        tap_ok(tp_more_accurate(1.0 + 0x1p-11, &enc) && !tp_more_accurate(1.0 - 0.75 * 0x1p-8, &enc),
               "with an enclosure [1, 1 + 2^-10]: a y inside it is more accurate; one that is closer only to some "
               "points of it is not");
        tp_ref inside = mkref(1.0 + 0x1p-12, 1.0 - 0x1p-11, 1.0 + 0x1p-10);
        tap_ok(!tp_more_accurate(1.0 + 0x1p-9, &inside) && !tp_more_accurate(1.0 - 0x1p-10, &inside),
               "exact inside the admitted interval: no violation is more accurate");
        tp_ref only_inf2 = mkref(70000.0, INFINITY, INFINITY);
        tap_ok(!tp_more_accurate(65504.0, &only_inf2) && !tp_more_accurate(NAN, &sm) &&
                   !tp_more_accurate(INFINITY, &below),
               "not where only an overflow to inf is admitted (65504 for 70000: saturation, not accuracy), nor "
               "for NaN or infinite outputs");
        /* results without such elements do not carry the field */
        uint16_t yy[2] = {h(1.0 + 0x1p-9), h(1.0)};
        tp_ref rr[2] = {inside, inside};
        o = check(0, 2, yy, rr, 1e-2);
        tap_ok(jint(o, "violations") == 1 && !json_object_get(o, "more_accurate") &&
                   !json_object_get(json_array_get(json_object_get(o, "first_violations"), 0), "more_accurate"),
               "a violation that is not more accurate: no more_accurate field in the output or the element");
        json_decref(o);
    }

    /* ---- bit-exact comparison ---- */
    {
        tp_ref nanref = mkref(NAN, NAN, NAN), zref = mkref(-0.0, -0.0, -0.0), one = mkref(1.0, 1.0, 1.0);
        uint16_t y[1];
        uint32_t b[1];
        y[0] = 0x7e01, b[0] = 0x7e01;
        json_t *o = check_bits(1, y, &nanref, b);
        tap_ok(strcmp(jstr(o, "verdict"), "pass") == 0 && jnum(o, "max_abs_err") == 0 &&
                   jnum(o, "max_err_over_bound") == 0 && jint(o, "nonfinite_outputs") == 1,
               "a NaN copied bit for bit passes (err 0, err/bound 0; counted non-finite)");
        json_decref(o);
        y[0] = 0x7e00;
        o = check_bits(1, y, &nanref, b);
        json_t *f0 = json_array_get(json_object_get(o, "first_violations"), 0);
        tap_ok(strcmp(jstr(o, "verdict"), "fail") == 0 && strcmp(jstr(f0, "got_bits"), "0x7e00") == 0 &&
                   strcmp(jstr(f0, "admitted_bits"), "0x7e01") == 0 && isinf(jnum(o, "max_err_over_bound")),
               "a NaN whose payload changed fails, its patterns reported (0x7e00 for 0x7e01)");
        json_decref(o);
        y[0] = 0xfe01;
        o = check_bits(1, y, &nanref, b);
        tap_ok(strcmp(jstr(o, "verdict"), "fail") == 0, "a NaN whose sign changed fails");
        json_decref(o);
        y[0] = 0x0000, b[0] = 0x8000;
        o = check_bits(1, y, &zref, b);
        f0 = json_array_get(json_object_get(o, "first_violations"), 0);
        tap_ok(strcmp(jstr(o, "verdict"), "fail") == 0 && strcmp(jstr(f0, "got_bits"), "0x0000") == 0 &&
                   strcmp(jstr(f0, "admitted_bits"), "0x8000") == 0 && jnum(o, "max_abs_err") == 0 &&
                   isinf(jnum(o, "max_err_over_bound")),
               "-0 written as +0 fails (err 0, err/bound inf: a single pattern has no room; the patterns tell them "
               "apart)");
        json_decref(o);
        o = check(0, 1, y, &zref, 1e-2);
        tap_ok(strcmp(jstr(o, "verdict"), "pass") == 0, "compared as values (no patterns given), the same +0 passes");
        json_decref(o);
        y[0] = 0x8000;
        o = check_bits(1, y, &zref, b);
        tap_ok(strcmp(jstr(o, "verdict"), "pass") == 0, "-0 copied as -0 passes");
        json_decref(o);
        y[0] = h(2.0), b[0] = h(1.0);
        o = check_bits(1, y, &one, b);
        f0 = json_array_get(json_object_get(o, "first_violations"), 0);
        tap_ok(strcmp(jstr(o, "verdict"), "fail") == 0 && !json_object_get(f0, "got_bits") && jnum(f0, "got") == 2.0,
               "a wrong value fails; its value shows it, so no patterns are added");
        json_decref(o);
        y[0] = h(1.0);
        o = check_bits(1, y, &one, b);
        tap_ok(strcmp(jstr(o, "verdict"), "pass") == 0 && !json_object_get(o, "more_accurate"),
               "the admitted pattern passes, with the fields a value comparison gives");
        json_decref(o);
    }
    return tap_done();
}
