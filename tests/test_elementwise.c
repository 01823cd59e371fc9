/* op elementwise (oracles/generic): the expression parser, the binary32
 * model against brute-force binary32 evaluations, the exact enclosure
 * against MPFR at 1024 bits, the op on hand-built cases, and the
 * cross-check of issue 11 item 2 for GELU forward: the generic admitted
 * interval of the GELU expression against the hand-written op's, on every
 * finite binary16 input. */
#include "oracles/gelu/gelu_fwd_tables.h"
#include "oracles/generic/ew_admit.h"
#include "oracles/generic/ew_exact.h"
#include "tests/model_json.h"
#include "tests/tap.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const AB[] = {"a", "b"};

static void test_parse(void)
{
    static const struct {
        const char *text, *needle; /* needle NULL: accepted */
    } cases[] = {
        {"a / (1.0f + expf(-a)) * b", NULL},
        {"fmaf(a, b, -0.5f) + fminf(a, 2) - fmaxf(b, 1e-5f)", NULL},
        {"select(a <= b, sqrtf(b), rsqrtf(1.0f + a * a))", NULL},
        {"-(-a)", NULL},
        {"__half2float(__float2half(a * b)) * 0.5f", NULL},
        {"__float2half(a, b)", "missing ')'"},
        {"a * 0.5", "double constant in C"},
        {"a + c", "unknown name 'c'"},
        {"powf(a, 2)", "unknown function 'powf'"},
        {"a < b", "a comparison used as a value"},
        {"select(a, a, b)", "select's first argument is not a comparison"},
        {"(a + b", "missing ')'"},
        {"a b", "unexpected text after the expression"},
        {"16777217", "above 2^24"},
        {"1e39f", "beyond the binary32 range"},
        {"", "missing operand"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ew_prog p;
        tp_grammar_error e;
        int rc = ew_parse(cases[i].text, 2, AB, &p, &e);
        int good = cases[i].needle ? rc != 0 && strstr(e.what, cases[i].needle) : rc == 0;
        if (!tap_ok(good, "parse \"%s\": %s", cases[i].text, cases[i].needle ? cases[i].needle : "accepted"))
            tap_diag("rc %d: %s; expected %s", rc, e.what, e.expected);
    }
    ew_prog p;
    tp_grammar_error e;
    ew_parse("__half2float(__float2half(a))", 2, AB, &p, &e);
    tap_ok(p.n == 2 && p.node[0].kind == EW_INPUT && p.node[1].kind == EW_RN16,
           "__half2float(__float2half(a)) is input, binary16 rounding: __half2float adds no operation");
    /* the binary16 rounding of an interval: the binary16 values around its ends */
    static const ew_model none = {0, {0, -1, -1, -1, -1, -1}};
    const float third = 1.0f / 3.0f;
    tp_ival32 r;
    int node;
    const char *why;
    int rc = ew_admit(&p, &none, (const float[]){third, 0}, &r, &node, &why);
    tap_ok(rc == 0 && r.lo == (float)tp_f16_to_double(tp_f16_from_float(third)) && r.lo == r.hi,
           "__float2half(1/3) admits exactly RN16(1/3) = %.9g", (double)r.lo);
    rc = ew_admit(&p, &none, (const float[]){70000.0f, 0}, &r, &node, &why);
    tap_ok(rc != 0 && strstr(why, "binary16 rounding that may overflow"), "__float2half(70000) is refused: %s",
           rc ? why : "accepted");
    ew_parse("2 * a - 0.25f", 2, AB, &p, &e);
    tap_ok(p.n == 5 && p.node[0].kind == EW_CONST && p.node[0].value == 2.0f && p.node[3].value == 0.25f &&
               p.node[4].kind == EW_SUB,
           "2 * a - 0.25f is const, input, mul, const, sub in that order");
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint16_t draw_f16(int emax)
{
    for (;;) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        uint16_t h = (uint16_t)rng;
        if ((h & 0x7c00) != 0x7c00 && ((h >> 10) & 0x1f) <= (unsigned)(15 + emax))
            return h;
    }
}

/* A device function's result k binary32 steps from the correctly rounded one. */
static float fn_steps(int fn, float x, int k)
{
    float r = ew_fn_rn32(fn, x);
    for (int i = 0; i < k; i++)
        r = nextafterf(r, INFINITY);
    for (int i = 0; i > k; i--)
        r = nextafterf(r, -INFINITY);
    return r;
}

/* The binary32 model holds every brute-force evaluation: expf anywhere
 * within 2 steps of RN32(exp), x*y + z fused or not. */
static void test_admit(void)
{
    ew_prog silu, fmab, sel;
    tp_grammar_error e;
    ew_parse("a / (1.0f + expf(-a)) * b", 2, AB, &silu, &e);
    ew_parse("a * b * a + a", 2, AB, &fmab, &e); /* a*b is exact: the product by a is not */
    ew_parse("select(a < b, a - b, rsqrtf(a * a + 1.0f))", 2, AB, &sel, &e);
    ew_model any = {1, {0, 2, 2, 1, 2, 2}}, no = {0, {0, 2, 2, 1, 2, 2}};
    long outside = 0, fused_out = 0, n = 0, refused = 0;
    for (int t = 0; t < 200000; t++) {
        const float in[2] = {(float)tp_f16_to_double(draw_f16(7)), (float)tp_f16_to_double(draw_f16(15))};
        const float a = in[0], b = in[1];
        tp_ival32 r;
        int node;
        const char *why;
        if (ew_admit(&silu, &any, in, &r, &node, &why) == 0) {
            for (int k = -2; k <= 2; k++) {
                const float y = a / (1.0f + fn_steps(EW_EXP - EW_FIRST_FN, -a, k)) * b;
                outside += !(r.lo <= y && y <= r.hi);
                n++;
            }
        } else
            refused++;
        if (ew_admit(&fmab, &any, in, &r, &node, &why) == 0) {
            const float u = a * b * a + a, f = fmaf(a * b, a, a);
            outside += !(r.lo <= u && u <= r.hi) + !(r.lo <= f && f <= r.hi);
            n += 2;
        }
        if (ew_admit(&fmab, &no, in, &r, &node, &why) == 0)
            fused_out += !(r.lo <= fmaf(a * b, a, a) && fmaf(a * b, a, a) <= r.hi);
        if (ew_admit(&sel, &any, in, &r, &node, &why) == 0) {
            for (int k = -2; k <= 2; k++)
                for (int fu = 0; fu < 2; fu++) {
                    const float q = fu ? fmaf(a, a, 1.0f) : a * a + 1.0f;
                    const float y = a < b ? a - b : fn_steps(EW_RSQRT - EW_FIRST_FN, q, k);
                    outside += !(r.lo <= y && y <= r.hi);
                    n++;
                }
        }
    }
    tap_ok(outside == 0 && n > 1000000,
           "binary32 model: %ld brute-force evaluations (expf, rsqrtf within 2 steps; fused or not), %ld outside "
           "(%ld inputs refused: expf(-a) beyond binary32 is kept, a product of it is not)",
           n, outside, refused);
    tap_ok(fused_out > 0, "with fma = \"no\", fmaf(a * b, a, a) leaves the model for some inputs (%ld): the key matters",
           fused_out);
}

/* The enclosure holds the value MPFR computes at 1024 bits. */
static void test_exact(void)
{
    ew_prog p;
    tp_grammar_error e;
    ew_parse("a / (1.0f + expf(-a)) * b - erff(a) * tanhf(b) + logf(fmaxf(a * a, 0.5f))", 2, AB, &p, &e);
    ew_exact_ws w;
    ew_exact_init(&w, &p);
    mpfr_t a, b, t, u, y;
    mpfr_inits2(1024, a, b, t, u, y, (mpfr_ptr)0);
    int bad = 0, wide = 0;
    for (int k = 0; k < 20000; k++) {
        const float in[2] = {(float)tp_f16_to_double(draw_f16(6)), (float)tp_f16_to_double(draw_f16(6))};
        double lo, mid, hi;
        if (ew_exact(&w, &p, in, NULL, NULL, &lo, &mid, &hi) != 0) {
            bad++;
            continue;
        }
        mpfr_set_flt(a, in[0], MPFR_RNDN);
        mpfr_set_flt(b, in[1], MPFR_RNDN);
        mpfr_neg(t, a, MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_div(y, a, t, MPFR_RNDN);
        mpfr_mul(y, y, b, MPFR_RNDN);
        mpfr_erf(t, a, MPFR_RNDN);
        mpfr_tanh(u, b, MPFR_RNDN);
        mpfr_mul(t, t, u, MPFR_RNDN);
        mpfr_sub(y, y, t, MPFR_RNDN);
        mpfr_sqr(t, a, MPFR_RNDN);
        if (mpfr_cmp_d(t, 0.5) < 0)
            mpfr_set_d(t, 0.5, MPFR_RNDN);
        mpfr_log(t, t, MPFR_RNDN);
        mpfr_add(y, y, t, MPFR_RNDN);
        bad += !(mpfr_cmp_d(y, lo) >= 0 && mpfr_cmp_d(y, hi) <= 0);
        wide += hi - lo > 0x1p-45 * fabs(mid) + 0x1p-1000;
    }
    mpfr_clears(a, b, t, u, y, (mpfr_ptr)0);
    ew_exact_clear(&w);
    tap_ok(bad == 0, "the MPFI enclosure holds the 1024-bit MPFR value on 20000 inputs (%d not)", bad);
    tap_ok(wide == 0, "and is within 2^-45 relative of it (%d wider)", wide);
}

/* One case of op elementwise: inputs a (and b) of n binary16 values. */
static int run_op(const char *expr_json, const char *backend, const uint16_t *a, const uint16_t *b, int n,
                  tp_ref *ref, char *err, size_t errlen, int check_case_only)
{
    const tp_op *op = tp_op_find("elementwise");
    json_error_t je;
    char text[1024];
    snprintf(text, sizeof text,
             "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"expr\": %s, "
             "\"ulp\": {\"expf\": {\"cuda\": 2}, \"tanhf\": {\"cuda\": 2}}}",
             expr_json);
    tp_value *model = model_of(json_loads(text, 0, &je));
    uint16_t *y = calloc((size_t)n, sizeof *y);
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = "test";
    c.ntensors = 0;
    c.tensors[c.ntensors++] = (tp_tensor){"a", TP_F16, 1, {n}, n, (void *)a, NULL};
    if (b)
        c.tensors[c.ntensors++] = (tp_tensor){"b", TP_F16, 1, {n}, n, (void *)b, NULL};
    c.tensors[c.ntensors++] = (tp_tensor){"y", TP_F16, 1, {n}, n, y, y};
    c.backend = backend;
    int rc = !op || !model || op->check_model(model, err, errlen) ||
             (check_case_only ? op->check_case(model, &c, err, errlen) : op->reference(model, &c, "y", ref, err, errlen));
    tp_value_free(model);
    free(y);
    return rc;
}

/* Issue 11 item 2 for GELU forward: the generic interval of the kernel's
 * expression holds the hand-written op's binary32 interval and is at most
 * twice as wide, on every finite binary16 x. */
static void test_gelu_cross(void)
{
    enum { NALL = 65536 };
    tp_gelu_fwd_model m = tp_gelu_fwd_model_pilot(2, 1);
    tp_interval *ex = malloc(NALL * sizeof *ex), *mo = malloc(NALL * sizeof *mo);
    int rc = tp_gelu_fwd_tables_build(&m, ex, mo);
    ew_prog p;
    tp_grammar_error e;
    static const char *const X[] = {"x"};
    rc |= ew_parse("0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * (x * x * x))))", 1, X, &p, &e);
    ew_model gm = {1, {0, 2, 2, 1, 2, 2}};
    int n = 0, notin = 0, refused = 0, same = 0;
    double worst = 1.0;
    float worst_x = 0;
    for (uint32_t h = 0; h < NALL && rc == 0; h++) {
        if ((h & 0x7c00) == 0x7c00)
            continue;
        const float x = (float)tp_f16_to_double((uint16_t)h);
        tp_ival32 r;
        int node;
        const char *why;
        n++;
        if (ew_admit(&p, &gm, &x, &r, &node, &why) != 0) {
            refused++;
            continue;
        }
        if (!(r.lo <= mo[h].lo && mo[h].hi <= r.hi))
            notin++;
        same += r.lo == mo[h].lo && r.hi == mo[h].hi;
        const double wg = (double)r.hi - r.lo, wh = mo[h].hi - mo[h].lo;
        const double ratio = wh > 0 ? wg / wh : wg > 0 ? INFINITY : 1.0;
        if (ratio > worst)
            worst = ratio, worst_x = x;
    }
    tap_ok(rc == 0 && notin == 0 && refused == 0,
           "GELU forward, generic vs hand-written: the generic binary32 interval holds the hand-written one on all "
           "%d finite binary16 x (%d not, %d refused)",
           n, notin, refused);
    tap_diag("GELU forward: widest generic/hand-written binary32 width ratio %.4g at x = %.9g; %d of %d intervals "
             "identical", worst, (double)worst_x, same, n);
    tap_ok(worst <= 2.0, "and is at most twice as wide (widest ratio %.4g, at x = %.9g)", worst, (double)worst_x);
    free(ex), free(mo);
}

static void test_op(void)
{
    enum { N = 4096 };
    uint16_t *a = malloc(N * 2), *b = malloc(N * 2);
    tp_ref *ref = malloc(N * sizeof *ref);
    for (int i = 0; i < N; i++)
        a[i] = draw_f16(3), b[i] = draw_f16(3);
    char err[600] = "";
    int rc = run_op("{\"y\": \"a / (1.0f + expf(-a)) * b\"}", "cuda", a, b, N, ref, err, sizeof err, 0);
    int bad = 0;
    for (int i = 0; rc == 0 && i < N; i++) {
        const float av = (float)tp_f16_to_double(a[i]), bv = (float)tp_f16_to_double(b[i]);
        const double y = tp_f16_to_double(tp_f16_from_float(av / (1.0f + expf(-av)) * bv));
        bad += !(ref[i].allow_lo <= y && y <= ref[i].allow_hi && ref[i].exact_lo <= ref[i].exact &&
                 ref[i].exact <= ref[i].exact_hi && ref[i].allow_lo <= ref[i].allow_hi);
    }
    tap_ok(rc == 0 && bad == 0, "op elementwise (silu(a) * b): the host's evaluation lies in every admitted set (%s; %d not)",
           err, bad);
    /* the op tabulates silu(a) over the 65536 patterns of a: the same
     * values as the node-by-node evaluation without tables, bit for bit */
    ew_prog p;
    tp_grammar_error ge;
    ew_parse("a / (1.0f + expf(-a)) * b", 2, AB, &p, &ge);
    ew_model m = {1, {0, -1, 2, -1, -1, -1}};
    ew_exact_ws *w = malloc(sizeof *w);
    ew_exact_init(w, &p);
    int differ = 0;
    for (int i = 0; rc == 0 && i < N; i++) {
        const float in[2] = {(float)tp_f16_to_double(a[i]), (float)tp_f16_to_double(b[i])};
        tp_ival32 r;
        int node;
        const char *why;
        double lo, mid, hi;
        if (ew_admit(&p, &m, in, &r, &node, &why) != 0 || ew_exact(w, &p, in, NULL, NULL, &lo, &mid, &hi) != 0) {
            differ++;
            continue;
        }
        differ += ref[i].exact_lo != lo || ref[i].exact != mid || ref[i].exact_hi != hi ||
                  ref[i].allow_lo != tp_f16_to_double(tp_f16_from_float(r.lo)) ||
                  ref[i].allow_hi != tp_f16_to_double(tp_f16_from_float(r.hi));
    }
    ew_exact_clear(w);
    free(w);
    tap_ok(rc == 0 && differ == 0, "its table of silu(a) gives the references of the evaluation without tables (%d differ)",
           differ);
    rc = run_op("{\"y\": \"a / (1.0f + expf(-a)) * b\"}", "hip", a, b, N, ref, err, sizeof err, 0);
    tap_ok(rc != 0 && strstr(err, "model.ulp.expf has no bound for backend hip"),
           "a backend without a declared expf bound is refused (%s)", err);
    a[17] = 0; /* 1 / a with a = 0 */
    rc = run_op("{\"y\": \"1.0f / a\"}", "cuda", a, NULL, N, ref, err, sizeof err, 1);
    tap_ok(rc != 0 && strstr(err, "y[17]") && strstr(err, "divisor interval holds 0"),
           "check_case refuses a division by zero, naming the element (%s)", err);
    rc = run_op("{\"y\": \"a * b\", \"z\": \"a\"}", "cuda", a, b, N, ref, err, sizeof err, 0);
    tap_ok(rc == 0, "an expression for a tensor that is not in the case is ignored by the op (the generator refuses it)");
    free(a), free(b), free(ref);
}

int main(void)
{
    fesetround(FE_TONEAREST);
    test_parse();
    test_admit();
    test_exact();
    test_op();
    test_gelu_cross();
    return tap_done();
}
