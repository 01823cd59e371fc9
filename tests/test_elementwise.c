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
        {"a * b[(col + 1) % 4] + index(row)", NULL},
        {"sinf(a) * cosf(b)", NULL},
        {"a[col", "missing ']'"},
        {"a[ ] + b", "an empty index"},
        {"index(col + 1", "missing ')'"},
        {"c[col]", "unknown name 'c'"},
        {"a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7] + a[8]", "too many indexed reads"},
        {"select(index(col) == b, a, 0.0f) + select(a != b, 1.0f, 0.0f)", NULL},
        {"select(a = b, a, b)", "'=' (an assignment in C)"},
        {"(a == b) * a", "a comparison used as a value"},
        {"select(a ! b, a, b)", "select's first argument is not a comparison"},
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
static float h2f_(uint16_t h) { return (float)tp_f16_to_double(h); }
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

/* == and != in select: decided where the operands are the same point or
 * disjoint, the hull of both branches otherwise; -0 == +0 as in C; the
 * exact path compares the reals the same way. */
static void test_equality(void)
{
    ew_prog eq, ne;
    tp_grammar_error e;
    ew_parse("select(a == b, a * 2, a - 1)", 2, AB, &eq, &e);
    ew_parse("select(a != b, a * 2, a - 1)", 2, AB, &ne, &e);
    static const ew_model none = {0, {0, -1, -1, -1, -1, -1, -1, -1}};
    static const struct {
        tp_ival32 a, b;
        float lo, hi, nlo, nhi; /* select(a == b, ...), select(a != b, ...) */
    } cases[] = {
        {{3, 3}, {3, 3}, 6, 6, 2, 2},               /* the same point: equal */
        {{3, 3}, {4, 4}, 2, 2, 6, 6},               /* two points: not */
        {{-0.0f, -0.0f}, {0, 0}, -0.0f, -0.0f, -1, -1}, /* -0 == +0 */
        {{1, 2}, {3, 5}, 0, 1, 2, 4},               /* disjoint intervals: never equal */
        {{1, 4}, {3, 5}, 0, 8, 0, 8},               /* overlapping: either branch */
        {{3, 3}, {3, 4}, 2, 6, 2, 6},               /* a point inside an interval: either */
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tp_ival32 in[2] = {cases[i].a, cases[i].b};
        tp_ival32 r, q;
        int node;
        const char *why;
        const int rc = ew_admit_box(&eq, &none, in, eq.n - 1, NULL, NULL, NULL, &r, &node, &why) |
                       ew_admit_box(&ne, &none, in, ne.n - 1, NULL, NULL, NULL, &q, &node, &why);
        if (rc != 0 || r.lo != cases[i].lo || r.hi != cases[i].hi || q.lo != cases[i].nlo || q.hi != cases[i].nhi) {
            bad++;
            tap_diag("case %zu: == [%g, %g], != [%g, %g]", i, (double)r.lo, (double)r.hi, (double)q.lo,
                     (double)q.hi);
        }
    }
    tap_ok(bad == 0, "== and != in select: the branch where decided (same point, disjoint), the hull where not, "
           "-0 == +0 (%d of %zu wrong)", bad, sizeof cases / sizeof cases[0]);
    ew_exact_ws w;
    ew_exact_init(&w, &eq);
    double lo, mid, hi;
    int ok = ew_exact(&w, &eq, (const float[]){3, 3}, NULL, NULL, &lo, &mid, &hi) == 0 && lo == 6 && hi == 6;
    ok &= ew_exact(&w, &eq, (const float[]){3, -3}, NULL, NULL, &lo, &mid, &hi) == 0 && lo == 2 && hi == 2;
    mpfi_t b;
    mpfi_init2(b, 64);
    mpfi_interv_d(b, 3, 3.5);
    w.box[1] = b; /* b an enclosure that holds 3 and more: undecided */
    ok &= ew_exact(&w, &eq, (const float[]){3, 0}, NULL, NULL, &lo, &mid, &hi) == 0 && lo == 2 && hi == 6;
    mpfi_interv_d(b, 3.25, 3.5); /* disjoint from 3: not equal */
    ok &= ew_exact(&w, &eq, (const float[]){3, 0}, NULL, NULL, &lo, &mid, &hi) == 0 && lo == 2 && hi == 2;
    w.box[1] = NULL;
    mpfi_clear(b);
    ew_exact_clear(&w);
    tap_ok(ok, "the exact path compares reals: equal points, unequal points, an undecided and a disjoint enclosure");
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

/* A rotary embedding over [rows, d] with the kernel's arithmetic, on the
 * host: partner at (col + d/2) % d, angle pos[row] * f[col % (d/2)], sinf
 * and cosf shifted by s and c binary32 steps from the correctly rounded
 * values, the products fused or not. */
static float rope_host(float x, float xp, int first, float angle, int s, int c, int fuse)
{
    const float sn = fn_steps(EW_SIN - EW_FIRST_FN, angle, s), cs = fn_steps(EW_COS - EW_FIRST_FN, angle, c);
    const float o = first ? -xp : xp;
    return fuse == 0 ? x * cs + o * sn : fuse == 1 ? fmaf(x, cs, o * sn) : fmaf(o, sn, x * cs);
}

/* Indexed reads, index() and int32 inputs: INDEX checked against the
 * dims, row and col; a rotary embedding's admitted sets hold every
 * evaluation the model allows; an index outside its tensor and an int32
 * beyond 2^24 refused, naming what. */
static void test_indexed(void)
{
    static const char *const dims[] = {"rows", "d"};
    char cexpr[512];
    int axis;
    tp_grammar_error e;
    tap_ok(ew_read_check("(col + d / 2) % d", 2, dims, cexpr, sizeof cexpr, &axis, &e) == 0 && axis == EW_ON_COL,
           "INDEX (col + d / 2) %% d is over col");
    tap_ok(ew_read_check("row / 2", 2, dims, cexpr, sizeof cexpr, &axis, &e) == 0 && axis == EW_ON_ROW,
           "INDEX row / 2 is over row");
    tap_ok(ew_read_check("d - 1", 2, dims, cexpr, sizeof cexpr, &axis, &e) == 0 && axis == EW_ON_NONE,
           "INDEX d - 1 is over neither");
    tap_ok(ew_read_check("row + col", 2, dims, cexpr, sizeof cexpr, &axis, &e) != 0 && strstr(e.what, "both row and col"),
           "INDEX row + col is refused: %s", e.what);
    tap_ok(ew_read_check("cols", 2, dims, cexpr, sizeof cexpr, &axis, &e) != 0 && strstr(e.what, "cols"),
           "INDEX over an unknown name is refused: %s", e.what);
    static const char *const rowdims[] = {"row", "d"};
    tap_ok(ew_read_check("col", 2, rowdims, cexpr, sizeof cexpr, &axis, &e) != 0 && strstr(e.what, "hides"),
           "a dim named row is refused: %s", e.what);

    enum { R = 64, D = 16, H = D / 2, N = R * D };
    uint16_t *x = malloc(N * 2), *y = calloc(N, 2);
    int32_t pos[R];
    float f[H];
    for (int i = 0; i < N; i++)
        x[i] = draw_f16(2);
    for (int r = 0; r < R; r++)
        pos[r] = (int32_t)(rng % 140000), rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    for (int i = 0; i < H; i++)
        f[i] = i == 0 ? 1.57079637f : (float)pow(10000.0, -(double)i / H);
    const tp_op *op = tp_op_find("elementwise");
    json_error_t je;
    tp_value *model = model_of(json_loads(
        "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"expr\": {\"y\": "
        "\"x * cosf(pos[row] * f[col % (d / 2)]) + select(index(col) < index(d / 2), -x[(col + d / 2) % d], "
        "x[(col + d / 2) % d]) * sinf(pos[row] * f[col % (d / 2)])\"}, \"ulp\": {\"sinf\": {\"cuda\": 2}, "
        "\"cosf\": {\"cuda\": 2}}}",
        0, &je));
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = "rope";
    c.ndims = 2, c.dim_names[0] = "rows", c.dim_names[1] = "d", c.dims[0] = R, c.dims[1] = D;
    c.tensors[c.ntensors++] = (tp_tensor){"x", TP_F16, 2, {R, D}, N, x, NULL};
    c.tensors[c.ntensors++] = (tp_tensor){"pos", TP_I32, 1, {R}, R, pos, NULL};
    c.tensors[c.ntensors++] = (tp_tensor){"f", TP_F32, 1, {H}, H, f, NULL};
    c.tensors[c.ntensors++] = (tp_tensor){"y", TP_F16, 2, {R, D}, N, y, y};
    c.backend = "cuda";
    tp_ref *ref = malloc(N * sizeof *ref);
    char err[600] = "";
    int rc = !op || !model || op->check_model(model, err, sizeof err) ||
             op->reference(model, &c, "y", ref, err, sizeof err);
    long n = 0, outside = 0, exact_out = 0;
    for (int i = 0; rc == 0 && i < N; i++) {
        const int row = i / D, col = i % D, first = col < H;
        const float xv = h2f_(x[i]), xp = h2f_(x[row * D + (col + H) % D]);
        const float angle = (float)pos[row] * f[col % H];
        for (int s = -2; s <= 2; s++)
            for (int k = -2; k <= 2; k++)
                for (int fu = 0; fu < 3; fu++) {
                    const double v = tp_f16_to_double(tp_f16_from_float(rope_host(xv, xp, first, angle, s, k, fu)));
                    outside += !(ref[i].allow_lo <= v && v <= ref[i].allow_hi);
                    n++;
                }
        /* the exact value at 200 bits: over the reals the angle is pos * f unrounded (exact in double: 25 + 24
         * significant bits) */
        mpfr_t t, sn, cs, r;
        mpfr_inits2(200, t, sn, cs, r, (mpfr_ptr)0);
        mpfr_set_d(t, (double)pos[row] * f[col % H], MPFR_RNDN);
        mpfr_sin_cos(sn, cs, t, MPFR_RNDN);
        mpfr_mul_d(cs, cs, xv, MPFR_RNDN);
        mpfr_mul_d(sn, sn, first ? -xp : xp, MPFR_RNDN);
        mpfr_add(r, cs, sn, MPFR_RNDN);
        const double ex = mpfr_get_d(r, MPFR_RNDN);
        exact_out += !(ref[i].exact_lo <= ex && ex <= ref[i].exact_hi);
        mpfr_clears(t, sn, cs, r, (mpfr_ptr)0);
    }
    tap_ok(rc == 0 && outside == 0 && n == (long)N * 75,
           "rotary embedding (indexed reads, int32 positions up to 140000, a quarter-turn frequency): %ld host "
           "evaluations (sinf, cosf within 2 steps, fused either way or not), %ld outside (%s)", n, outside, err);
    tap_ok(rc == 0 && exact_out == 0, "its exact enclosures hold the 200-bit MPFR value (%ld not)", exact_out);
    /* the angle and its reads are the row's and column's: the partner is read in the same row */
    pos[5] = 1 << 24;
    rc = op->check_case(model, &c, err, sizeof err);
    tap_ok(rc == 0, "a position of exactly 2^24 is exact in binary32 and accepted (%s)", err);
    pos[5] = (1 << 24) + 1;
    rc = op->check_case(model, &c, err, sizeof err);
    tap_ok(rc != 0 && strstr(err, "input pos holds 16777217 at element 5"),
           "a position above 2^24 is refused, naming the element (%s)", err);
    pos[5] = 7;
    tp_value_free(model);
    model = model_of(json_loads("{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", "
                                "\"expr\": {\"y\": \"x + x[col + 1]\"}}", 0, &je));
    rc = op->check_case(model, &c, err, sizeof err);
    tap_ok(rc != 0 && strstr(err, "x[col + 1] is 16 at col 15; expected an index in 0 .. 15 (a column of x)"),
           "an index past the row is refused, naming where (%s)", err);
    tp_value_free(model);
    model = model_of(json_loads("{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", "
                                "\"expr\": {\"y\": \"x * index(row) + f[row]\"}}", 0, &je));
    rc = op->check_case(model, &c, err, sizeof err);
    tap_ok(rc != 0 && strstr(err, "f[row] is 8 at row 8; expected an index in 0 .. 7 (an element of f)"),
           "a vector read past its end is refused, naming where (%s)", err);
    tp_value_free(model);
    free(x), free(y), free(ref);
}

int main(void)
{
    fesetround(FE_TONEAREST);
    test_parse();
    test_admit();
    test_exact();
    test_equality();
    test_op();
    test_indexed();
    test_gelu_cross();
    return tap_done();
}
