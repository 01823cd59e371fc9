/* The softmax_fwd and softmax_xent_bwd ops against MPFR and against CPU
 * emulations of their kernels.
 *
 *  1. References: the enclosures of the exact values contain an MPFR
 *     evaluation at 256 bits and are narrow; the proven row reductions
 *     (tp_row_max, tp_row_abs_dot, and the proven row dot tp_ln_row_dot that
 *     softmax_xent_bwd calls) agree with MPFR.
 *  2. Emulations of correct kernels pass the real checker: softmax with the
 *     row sum in six orders and expf anywhere within 2 fp32 steps of the
 *     correctly rounded exp; the backward dot in five orders, with fmaf and
 *     with a separate multiply.
 *  3. Planted errors are caught: one rounding instead of the pilot's two,
 *     no max subtraction, a row sum that loses a term, expf off by 8 steps;
 *     a dot rounded to binary16, a dot that loses a term. The all-zero
 *     softmax of a vocabulary row passes the pilot's 1e-2 claim and fails
 *     the admitted interval.
 *  4. Rows of 262144 elements (the long-row constant of the sum bound):
 *     sound against MPFR on correct emulations, errors beyond the bound
 *     caught, 262145 refused.
 * Build with -ffp-contract=off: the emulations must round where C says. */
#include "oracles/softmax/proven/softmax.h"
#include "oracles/softmax/proven/softmax_abs.h"
#include "oracles/layernorm/proven/layernorm.h"
#include "tests/model_json.h"
#include "tests/tap.h"
#include "harness/tp_check.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "core/tp_rng.h"

#include <jansson.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float h2f(uint16_t h) { return (float)tp_f16_to_double(h); }

static tp_case *make_case(int R, int n, int nin, const char *const *names, const char *const *fills, uint64_t seed)
{
    tp_case *c = calloc(1, sizeof *c);
    char err[512];
    c->name = fills[0];
    c->seed = seed;
    c->ndims = 2;
    c->dim_names[0] = "R", c->dim_names[1] = "n";
    c->dims[0] = R, c->dims[1] = n;
    c->ntensors = nin + 1;
    for (int t = 0; t <= nin; t++) {
        tp_tensor *T = &c->tensors[t];
        T->name = names[t];
        T->dtype = TP_F16;
        T->rank = 2;
        T->shape[0] = R;
        T->shape[1] = n;
        T->numel = (int64_t)R * n;
        T->data = calloc((size_t)T->numel, 2);
        if (t == nin) {
            T->initial = calloc((size_t)T->numel, 2);
        } else if (tp_fill_f16(T->data, 2, T->shape, fills[t], seed, names[t], err, sizeof err)) {
            tap_diag("fill failed: %s", err);
            return NULL;
        }
    }
    c->backend = "cuda";
    return c;
}

static void free_case(tp_case *c)
{
    for (int t = 0; t < c->ntensors; t++) {
        free(c->tensors[t].data);
        free(c->tensors[t].initial);
    }
    free(c);
}

static long violations(const tp_tensor *out, const tp_ref *ref, double *ratio)
{
    json_t *r = tp_check_output(out, ref, 1e-2, 0.0);
    long v = (long)json_integer_value(json_object_get(r, "violations"));
    if (ratio) {
        json_t *q = json_object_get(r, "max_err_over_bound");
        *ratio = json_is_number(q) ? json_number_value(q) : INFINITY;
    }
    if (v) {
        char *txt = json_dumps(json_object_get(r, "first_violations"), JSON_COMPACT);
        tap_diag("  %ld violations: %.400s", v, txt ? txt : "");
        free(txt);
    }
    json_decref(r);
    return v;
}

/* ---- softmax forward ---------------------------------------------------- */

static int perm[65536];

/* Sum of the n fp32 exps in one of several orders. */
static float sum_order(int order, int n, const float *e)
{
    float s = 0.0f;
    switch (order) {
    case 0: /* sequential */
        for (int j = 0; j < n; j++)
            s += e[j];
        return s;
    case 1: /* reversed */
        for (int j = n - 1; j >= 0; j--)
            s += e[j];
        return s;
    case 2: /* a fixed random permutation */
        for (int i = 0; i < 65536; i++)
            if (perm[i] < n)
                s += e[perm[i]];
        return s;
    case 3: /* pairwise */
    {
        float *p = malloc((size_t)n * sizeof *p);
        memcpy(p, e, (size_t)n * sizeof *p);
        for (int m = n; m > 1;) {
            int k = 0;
            for (int i = 0; i < m; i += 2)
                p[k++] = i + 1 < m ? p[i] + p[i + 1] : p[i];
            m = k;
        }
        s = p[0];
        free(p);
        return s;
    }
    default: /* T threads over strided columns, then a tree: the kernel (256) or a warp (32) */
    {
        const int T = order == 4 ? 256 : 32;
        float red[256];
        for (int t = 0; t < T; t++) {
            red[t] = 0.0f;
            for (int j = t; j < n; j += T)
                red[t] += e[j];
        }
        for (int w = T / 2; w > 0; w /= 2)
            for (int t = 0; t < w; t++)
                red[t] += red[t + w];
        return red[0];
    }
    }
}
#define NORDERS 6
static const char *const order_names[NORDERS] = {"sequential", "reversed", "permuted", "pairwise", "256-tree", "32-tree"};

static float step_f32(float v, int k)
{
    for (; k > 0; k--)
        v = nextafterf(v, INFINITY);
    for (; k < 0; k++)
        v = nextafterf(v, -INFINITY);
    return v;
}

/* RN32(exp(d)) from a 256-bit evaluation (a double rounding that can only
 * differ from the correct one at a near-tie of probability ~2^-230). */
static float rn32_exp(mpfr_t t, float d)
{
    mpfr_set_flt(t, d, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    return mpfr_get_flt(t, MPFR_RNDN);
}

enum { FWD_OK, FWD_SINGLE_ROUNDING, FWD_NO_MAX, FWD_DROP_TERM, FWD_EXPF_8ULP, FWD_NMUT };
static const char *const fwd_mut_names[FWD_NMUT] = {"correct", "single rounding", "no max subtraction",
                                                    "row sum drops a term", "expf off by 8 steps"};

/* One emulated softmax of the case's x into y. jitter picks, per element,
 * how many fp32 steps expf lands from RN32(exp): 0, or a pattern in -2..2. */
static void softmax_emulate(tp_case *c, int order, int jitter, int mut, mpfr_t t)
{
    const tp_tensor *X = &c->tensors[0], *Y = &c->tensors[1];
    const int R = (int)X->shape[0], n = (int)X->shape[1];
    float *e = malloc((size_t)n * sizeof *e);
    for (int r = 0; r < R; r++) {
        const uint16_t *x = (const uint16_t *)X->data + (size_t)r * n;
        uint16_t *y = (uint16_t *)Y->data + (size_t)r * n;
        float m = -INFINITY;
        for (int j = 0; j < n; j++)
            m = fmaxf(m, h2f(x[j]));
        if (mut == FWD_NO_MAX)
            m = 0.0f;
        for (int j = 0; j < n; j++) {
            int k = jitter ? (int)((unsigned)(j * 2654435761u + (unsigned)r * 40503u + (unsigned)jitter) % 5u) - 2 : 0;
            if (mut == FWD_EXPF_8ULP)
                k = 8;
            e[j] = step_f32(rn32_exp(t, h2f(x[j]) - m), k);
            if (e[j] < 0.0f) /* below RN32(exp) = 0: expf is never negative */
                e[j] = 0.0f;
            y[j] = tp_f16_from_float(e[j]);
        }
        float s = sum_order(order, mut == FWD_DROP_TERM && n > 1 ? n - 1 : n, e);
        const float inv = 1.0f / s;
        for (int j = 0; j < n; j++)
            y[j] = tp_f16_from_float((mut == FWD_SINGLE_ROUNDING ? e[j] : h2f(y[j])) * inv);
    }
    free(e);
}

/* exact softmax of one row at 256 bits, y[j] = exp(x_j - M)/sum */
static void mpfr_softmax_row(int n, const uint16_t *x, mpfr_t *y)
{
    mpfr_t s, t;
    mpfr_inits2(256, s, t, (mpfr_ptr)0);
    double M = -INFINITY;
    for (int j = 0; j < n; j++)
        M = fmax(M, tp_f16_to_double(x[j]));
    mpfr_set_zero(s, 1);
    for (int j = 0; j < n; j++) {
        mpfr_set_d(y[j], tp_f16_to_double(x[j]), MPFR_RNDN);
        mpfr_sub_d(y[j], y[j], M, MPFR_RNDN);
        mpfr_exp(y[j], y[j], MPFR_RNDN);
        mpfr_add(s, s, y[j], MPFR_RNDN);
    }
    for (int j = 0; j < n; j++)
        mpfr_div(y[j], y[j], s, MPFR_RNDN);
    mpfr_clears(s, t, (mpfr_ptr)0);
}

static void test_softmax_fwd(void)
{
    const tp_op *op = tp_op_find("softmax_fwd");
    char err[512];
    tp_value *model = model_of(json_loads("{\"arithmetic\":\"fp32\",\"order\":\"any\",\"intermediate\":\"binary16\","
                               "\"output_rounding\":\"nearest\",\"expf_ulp\":{\"cuda\":2}}",
                               0, NULL));
    if (!tap_ok(op && op->check_model(model, err, sizeof err) == 0, "softmax_fwd: op found, model accepted")) {
        tp_value_free(model);
        return;
    }
    static const struct {
        const char *fill;
        int R, n;
    } d[] = {
        {"normal(0, 1)", 8, 1024},   {"normal(0, 2)", 2, 32000}, {"normal(0, 8)", 8, 1024}, {"wide(12, 14)", 8, 512},
        {"near(65000, 500)", 8, 512}, {"special", 8, 256},        {"const(3)", 4, 1000},      {"wide(-14, 6)", 8, 512},
        {"normal(0, 4)", 8, 1},      {"normal(0, 1)", 8, 37},
    };
    const int nd = (int)(sizeof d / sizeof d[0]);
    mpfr_t t;
    mpfr_init2(t, 256);
    long caught[FWD_NMUT] = {0};
    double worst_ratio = 0;
    for (int k = 0; k < nd; k++) {
        const char *names[2] = {"x", "y"}, *fills[1] = {d[k].fill};
        tp_case *c = make_case(d[k].R, d[k].n, 1, names, fills, 300 + (uint64_t)k);
        if (!c) {
            tap_ok(0, "softmax_fwd %s: case built", d[k].fill);
            continue;
        }
        const int R = d[k].R, n = d[k].n;
        tp_ref *ref = malloc((size_t)R * n * sizeof *ref);
        int rc = op->reference(model, c, "y", ref, err, sizeof err);
        if (!tap_ok(rc == 0, "softmax_fwd %s %dx%d: reference computed%s%s", d[k].fill, R, n, rc ? ": " : "",
                    rc ? err : "")) {
            free(ref);
            free_case(c);
            continue;
        }
        /* the pilot's row-sum claim, seen through the model: the range of
         * row sums of the outputs the model admits */
        double sum_lo = INFINITY, sum_hi = -INFINITY;
        for (int r = 0; r < R; r++) {
            double a = 0, b = 0; /* sums of binary16 values: exact in double for n <= 2^13, close beyond */
            for (int j = 0; j < n; j++)
                a += ref[(size_t)r * n + j].allow_lo, b += ref[(size_t)r * n + j].allow_hi;
            sum_lo = a < sum_lo ? a : sum_lo;
            sum_hi = b > sum_hi ? b : sum_hi;
        }
        tap_diag("softmax_fwd %s %dx%d: admitted outputs give row sums in [%.6f, %.6f] (claim: 1 +- 1e-2)", d[k].fill,
                 R, n, sum_lo, sum_hi);
        /* 1. enclosure vs MPFR at 256 bits, for the first two rows */
        long outside = 0;
        double widest = 0;
        mpfr_t *y = malloc((size_t)n * sizeof *y);
        for (int j = 0; j < n; j++)
            mpfr_init2(y[j], 256);
        for (int r = 0; r < 2 && r < R; r++) {
            mpfr_softmax_row(n, (const uint16_t *)c->tensors[0].data + (size_t)r * n, y);
            for (int j = 0; j < n; j++) {
                const tp_ref *q = &ref[(size_t)r * n + j];
                if (mpfr_cmp_d(y[j], q->exact_lo) < 0 || mpfr_cmp_d(y[j], q->exact_hi) > 0)
                    outside++;
                if (q->exact_hi > 0x1p-1000) {
                    double w = (q->exact_hi - q->exact_lo) / q->exact_hi;
                    widest = w > widest ? w : widest;
                }
            }
        }
        for (int j = 0; j < n; j++)
            mpfr_clear(y[j]);
        free(y);
        tap_ok(outside == 0 && widest <= 0x1p-30,
               "softmax_fwd %s %dx%d: exact enclosures contain the 256-bit MPFR softmax (%ld outside), relative "
               "width <= 2^-30 (widest %.3g)",
               d[k].fill, R, n, outside, widest);
        /* 2. correct emulations: 6 orders x {expf = RN32, expf within 2 steps} */
        long bad = 0;
        for (int o = 0; o < NORDERS; o++)
            for (int jit = 0; jit < 2; jit++) {
                softmax_emulate(c, o, jit ? 7 + o : 0, FWD_OK, t);
                double ratio;
                long v = violations(&c->tensors[1], ref, &ratio);
                if (v)
                    tap_diag("  %s: order %s, expf jitter %d", d[k].fill, order_names[o], jit);
                bad += v;
                worst_ratio = ratio > worst_ratio ? ratio : worst_ratio;
            }
        tap_ok(bad == 0, "softmax_fwd %s %dx%d: 6 sum orders x {RN32 exp, +-2 steps} never violate", d[k].fill, R, n);
        /* 3. wrong kernels */
        for (int mu = 1; mu < FWD_NMUT; mu++) {
            softmax_emulate(c, 4, 0, mu, t);
            long v = violations(&c->tensors[1], ref, NULL);
            caught[mu] += v > 0;
            tap_diag("softmax_fwd %s: wrong kernel '%s': %ld of %d elements violate", d[k].fill, fwd_mut_names[mu],
                     v, R * n);
        }
        /* the pilot's claim on vocabulary rows: y = 0 everywhere */
        if (n == 32000) {
            memset(c->tensors[1].data, 0, (size_t)R * n * 2);
            long within = 0;
            for (int i = 0; i < R * n; i++)
                within += fabs(ref[i].exact) <= 1e-2;
            long v = violations(&c->tensors[1], ref, NULL);
            tap_ok(v > 0 && within > R * n * 99L / 100,
                   "softmax_fwd vocabulary rows: y = 0 is within the claimed 1e-2 for %ld of %d elements, yet "
                   "%ld violate the admitted interval",
                   within, R * n, v);
        }
        free(ref);
        free_case(c);
    }
    tap_diag("softmax_fwd: largest err/bound over correct emulations %.4g", worst_ratio);
    for (int mu = 1; mu < FWD_NMUT; mu++)
        tap_ok(caught[mu] > 0, "softmax_fwd: wrong kernel '%s' is caught on %ld of %d distributions", fwd_mut_names[mu],
               caught[mu], nd);
    mpfr_clear(t);
    tp_value_free(model);
}

/* ---- softmax + cross-entropy backward ----------------------------------- */

static float dot_order(int order, int n, const float *g, const float *s, int fma)
{
    float acc = 0.0f, red[256];
#define STEP(a, j) (a) = fma ? fmaf(g[j], s[j], (a)) : (a) + g[j] * s[j]
    switch (order) {
    case 0:
        for (int j = 0; j < n; j++)
            STEP(acc, j);
        return acc;
    case 1:
        for (int j = n - 1; j >= 0; j--)
            STEP(acc, j);
        return acc;
    case 2:
        for (int i = 0; i < 65536; i++)
            if (perm[i] < n)
                STEP(acc, perm[i]);
        return acc;
    default: {
        const int T = order == 3 ? 256 : 32;
        for (int t = 0; t < T; t++) {
            red[t] = 0.0f;
            for (int j = t; j < n; j += T)
                STEP(red[t], j);
        }
        for (int w = T / 2; w > 0; w /= 2)
            for (int t = 0; t < w; t++)
                red[t] += red[t + w];
        return red[0];
    }
    }
#undef STEP
}
#define NDOT 5

enum { BWD_OK, BWD_FP16_DOT, BWD_DROP_TERM, BWD_NMUT };
static const char *const bwd_mut_names[BWD_NMUT] = {"correct", "dot rounded to binary16", "dot drops a term"};

static void xent_emulate(tp_case *c, int order, int fma, int mut)
{
    const tp_tensor *S = &c->tensors[0], *G = &c->tensors[1], *GI = &c->tensors[2];
    const int R = (int)S->shape[0], n = (int)S->shape[1];
    float *sf = malloc((size_t)n * sizeof *sf), *gf = malloc((size_t)n * sizeof *gf);
    for (int r = 0; r < R; r++) {
        for (int j = 0; j < n; j++) {
            sf[j] = h2f(((const uint16_t *)S->data)[(size_t)r * n + j]);
            gf[j] = h2f(((const uint16_t *)G->data)[(size_t)r * n + j]);
        }
        float dot = dot_order(order, mut == BWD_DROP_TERM && n > 1 ? n - 1 : n, gf, sf, fma);
        if (mut == BWD_FP16_DOT)
            dot = h2f(tp_f16_from_float(dot));
        for (int j = 0; j < n; j++)
            ((uint16_t *)GI->data)[(size_t)r * n + j] = tp_f16_from_float(sf[j] * (gf[j] - dot));
    }
    free(sf);
    free(gf);
}

static void test_row_oracles(void)
{
    /* tp_row_max, tp_ln_row_dot (softmax_xent_bwd's D), tp_row_abs_dot against MPFR */
    const int n = 8192;
    uint16_t *a16 = malloc(n * 2), *b16 = malloc(n * 2);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    char err[256];
    int64_t shape[2] = {1, n};
    const char *fa[] = {"normal(0, 1)", "wide(-24, 15)", "special", "mirror(1, normal(0, 100))"},
               *fb[] = {"normal(0, 1)", "wide(-24, 15)", "special", "antimirror(1, normal(0, 100), 0.001)"};
    long bad = 0;
    mpfr_t acc, p, q;
    mpfr_inits2(512, acc, p, q, (mpfr_ptr)0);
    for (int k = 0; k < 4; k++) {
        tp_fill_f16(a16, 2, shape, fa[k], 77 + k, "a", err, sizeof err);
        tp_fill_f16(b16, 2, shape, fb[k], 77 + k, "b", err, sizeof err);
        for (int j = 0; j < n; j++)
            a[j] = h2f(a16[j]), b[j] = h2f(b16[j]);
        for (int len = 1; len <= n; len = len * 4 + 3) {
            double hi, lo;
            tp_ln_row_dot(len, a, b, &hi, &lo);
            double ahi, alo;
            tp_row_abs_dot(len, a, b, &ahi, &alo);
            mpfr_set_zero(acc, 1);
            mpfr_set_zero(q, 1);
            float m = a[0];
            for (int j = 0; j < len; j++) {
                mpfr_set_flt(p, a[j], MPFR_RNDN);
                mpfr_mul_d(p, p, (double)b[j], MPFR_RNDN);
                mpfr_add(acc, acc, p, MPFR_RNDN);
                mpfr_abs(p, p, MPFR_RNDN);
                mpfr_add(q, q, p, MPFR_RNDN);
                m = a[j] > m ? a[j] : m;
            }
            mpfr_sub_d(acc, acc, hi, MPFR_RNDN);
            mpfr_sub_d(acc, acc, lo, MPFR_RNDN);
            mpfr_sub_d(q, q, ahi, MPFR_RNDN);
            mpfr_sub_d(q, q, alo, MPFR_RNDN);
            if (!mpfr_zero_p(acc) || !mpfr_zero_p(q) || tp_row_max(len, a) != m)
                bad++;
        }
    }
    mpfr_clears(acc, p, q, (mpfr_ptr)0);
    tap_ok(bad == 0, "tp_ln_row_dot and tp_row_abs_dot are exact, tp_row_max exact, against 512-bit "
                     "MPFR (4 fills x 7 lengths up to 8192; %ld wrong)",
           bad);
    free(a16), free(b16), free(a), free(b);
}

static void test_softmax_xent_bwd(void)
{
    const tp_op *op = tp_op_find("softmax_xent_bwd");
    char err[512];
    tp_value *model = model_of(json_loads("{\"accumulation\":\"fp32\",\"order\":\"any\",\"fma\":\"any\","
                               "\"output_rounding\":\"nearest\"}",
                               0, NULL));
    if (!tap_ok(op && op->check_model(model, err, sizeof err) == 0, "softmax_xent_bwd: op found, model accepted")) {
        tp_value_free(model);
        return;
    }
    static const struct {
        const char *s, *g;
        int R, n;
    } d[] = {
        {"uniform(0, 0.001953125)", "normal(0, 1)", 8, 1024},
        {"uniform(0, 0.0000625)", "normal(0, 1)", 2, 32000},
        {"uniform(0, 0.001953125)", "near(1, 0.01)", 8, 1024},
        {"wide(-20, 0)", "wide(-10, 10)", 8, 1024},
        {"special", "special", 8, 256},
        {"normal(0, 1)", "normal(0, 1)", 8, 1},
        {"uniform(0, 0.0001)", "normal(0, 1)", 1, 20000},
    };
    const int nd = (int)(sizeof d / sizeof d[0]);
    long caught[BWD_NMUT] = {0};
    mpfr_t D, t;
    mpfr_inits2(600, D, t, (mpfr_ptr)0);
    for (int k = 0; k < nd; k++) {
        const char *names[3] = {"s", "g", "gi"}, *fills[2] = {d[k].s, d[k].g};
        tp_case *c = make_case(d[k].R, d[k].n, 2, names, fills, 500 + (uint64_t)k);
        if (!c) {
            tap_ok(0, "softmax_xent_bwd %s: case built", d[k].s);
            continue;
        }
        const int R = d[k].R, n = d[k].n;
        tp_ref *ref = malloc((size_t)R * n * sizeof *ref);
        int rc = op->reference(model, c, "gi", ref, err, sizeof err);
        if (!tap_ok(rc == 0, "softmax_xent_bwd s=%s g=%s %dx%d: reference computed%s%s", d[k].s, d[k].g, R, n,
                    rc ? ": " : "", rc ? err : "")) {
            free(ref);
            free_case(c);
            continue;
        }
        /* 1. exact value vs a direct 600-bit MPFR evaluation */
        long wrong = 0;
        for (int r = 0; r < R; r++) {
            const uint16_t *s = (const uint16_t *)c->tensors[0].data + (size_t)r * n,
                           *g = (const uint16_t *)c->tensors[1].data + (size_t)r * n;
            mpfr_set_zero(D, 1);
            for (int j = 0; j < n; j++) {
                mpfr_set_d(t, tp_f16_to_double(s[j]), MPFR_RNDN);
                mpfr_mul_d(t, t, tp_f16_to_double(g[j]), MPFR_RNDN);
                mpfr_add(D, D, t, MPFR_RNDN);
            }
            for (int j = 0; j < n; j++) {
                mpfr_set_d(t, tp_f16_to_double(g[j]), MPFR_RNDN);
                mpfr_sub(t, t, D, MPFR_RNDN);
                mpfr_mul_d(t, t, tp_f16_to_double(s[j]), MPFR_RNDN);
                const tp_ref *q = &ref[(size_t)r * n + j];
                if (mpfr_get_d(t, MPFR_RNDN) != q->exact || mpfr_cmp_d(t, q->exact_lo) < 0 ||
                    mpfr_cmp_d(t, q->exact_hi) > 0)
                    wrong++;
            }
        }
        tap_ok(wrong == 0, "softmax_xent_bwd s=%s g=%s %dx%d: exact = RN64 of the 600-bit MPFR value, enclosed (%ld wrong)",
               d[k].s, d[k].g, R, n, wrong);
        /* 2. correct emulations */
        long bad = 0;
        for (int o = 0; o < NDOT; o++)
            for (int fma = 0; fma < 2; fma++) {
                xent_emulate(c, o, fma, BWD_OK);
                bad += violations(&c->tensors[2], ref, NULL);
            }
        tap_ok(bad == 0, "softmax_xent_bwd s=%s g=%s %dx%d: 5 dot orders x {fmaf, mul+add} never violate", d[k].s,
               d[k].g, R, n);
        /* 3. wrong kernels */
        for (int mu = 1; mu < BWD_NMUT; mu++) {
            xent_emulate(c, 3, 1, mu);
            long v = violations(&c->tensors[2], ref, NULL);
            caught[mu] += v > 0;
            tap_diag("softmax_xent_bwd s=%s g=%s: wrong kernel '%s': %ld of %d elements violate", d[k].s, d[k].g,
                     bwd_mut_names[mu], v, R * n);
        }
        free(ref);
        free_case(c);
    }
    for (int mu = 1; mu < BWD_NMUT; mu++)
        tap_ok(caught[mu] > 0, "softmax_xent_bwd: wrong kernel '%s' is caught on %ld of %d distributions",
               bwd_mut_names[mu], caught[mu], nd);
    mpfr_clears(D, t, (mpfr_ptr)0);
    tp_value_free(model);
}

/* ---- rows up to 262144 (issue 10): the long-row constant of the sum bound */

/* Rows longer than 65536 use the bound's long-row constant 2^-24*(1+2^-6+2^-11)
 * (oracles/gemm/proven/gemm.h): at n = 262144, correct emulations of both
 * kernels (sequential, pairwise and 256-thread tree orders; fmaf and
 * mul+add for the dot) stay inside the admitted intervals, the exact values
 * agree with MPFR, errors beyond the bound are caught, and n = 262145 is
 * refused with the limit named. */
static void test_long_rows(void)
{
    enum { N = 262144 };
    char err[512];
    const int orders[3] = {0, 3, 4};
    const tp_op *fwd = tp_op_find("softmax_fwd"), *bwd = tp_op_find("softmax_xent_bwd");
    tp_value *mf = model_of(json_loads("{\"arithmetic\":\"fp32\",\"order\":\"any\",\"intermediate\":\"binary16\","
                                       "\"output_rounding\":\"nearest\",\"expf_ulp\":{\"cuda\":2}}",
                                       0, NULL)),
             *mb = model_of(json_loads("{\"accumulation\":\"fp32\",\"order\":\"any\",\"fma\":\"any\","
                                       "\"output_rounding\":\"nearest\"}",
                                       0, NULL));
    mpfr_t t;
    mpfr_init2(t, 600);

    /* softmax_fwd, 2 x 262144 */
    const char *fn[2] = {"x", "y"}, *ff[1] = {"normal(0, 2)"};
    tp_case *c = make_case(2, N, 1, fn, ff, 900);
    tp_ref *ref = malloc((size_t)2 * N * sizeof *ref);
    int rc = c ? fwd->reference(mf, c, "y", ref, err, sizeof err) : -1;
    if (tap_ok(rc == 0, "softmax_fwd 2x262144: reference computed%s%s", rc ? ": " : "", rc ? err : "")) {
        mpfr_t *y = malloc((size_t)N * sizeof *y);
        for (int j = 0; j < N; j++)
            mpfr_init2(y[j], 256);
        mpfr_softmax_row(N, (const uint16_t *)c->tensors[0].data, y);
        long outside = 0;
        for (int j = 0; j < N; j++)
            outside += mpfr_cmp_d(y[j], ref[j].exact_lo) < 0 || mpfr_cmp_d(y[j], ref[j].exact_hi) > 0;
        for (int j = 0; j < N; j++)
            mpfr_clear(y[j]);
        free(y);
        tap_ok(outside == 0, "softmax_fwd 2x262144: exact enclosures contain the 256-bit MPFR softmax (%ld outside)",
               outside);
        long bad = 0;
        double worst = 0;
        for (int o = 0; o < 3; o++) {
            double ratio;
            softmax_emulate(c, orders[o], o == 2 ? 9 : 0, FWD_OK, t);
            bad += violations(&c->tensors[1], ref, &ratio);
            worst = ratio > worst ? ratio : worst;
        }
        tap_ok(bad == 0, "softmax_fwd 2x262144: correct emulations (sequential, pairwise, 256-tree + expf jitter) "
                         "never violate (largest err/bound %.3g)", worst);
        /* the long-row bound admits about n*C(n) = 1.6% around the row sum:
         * outputs 4% too large (a row sum that lost 4% of its mass) fail */
        uint16_t *y16 = (uint16_t *)c->tensors[1].data;
        for (int j = 0; j < 2 * N; j++)
            y16[j] = tp_f16_from_float(h2f(y16[j]) * 1.04f);
        tap_ok(violations(&c->tensors[1], ref, NULL) > 0, "softmax_fwd 2x262144: outputs 4%% too large are caught");
    }
    free(ref);
    if (c)
        free_case(c);
    c = make_case(1, N + 1, 1, fn, ff, 901);
    ref = malloc((size_t)(N + 1) * sizeof *ref);
    rc = c ? fwd->reference(mf, c, "y", ref, err, sizeof err) : 0;
    tap_ok(rc != 0 && strstr(err, "262144") != NULL, "softmax_fwd 1x262145: refused, naming the limit (%s)",
           rc ? err : "accepted");
    free(ref);
    if (c)
        free_case(c);

    /* softmax_xent_bwd, 2 x 262144: D needs 33 chunks of tp_ln_row_dot */
    const char *bn[3] = {"s", "g", "gi"}, *bf[2] = {"uniform(0, 0.0000076)", "normal(0, 1)"};
    c = make_case(2, N, 2, bn, bf, 902);
    ref = malloc((size_t)2 * N * sizeof *ref);
    rc = c ? bwd->reference(mb, c, "gi", ref, err, sizeof err) : -1;
    if (tap_ok(rc == 0, "softmax_xent_bwd 2x262144: reference computed%s%s", rc ? ": " : "", rc ? err : "")) {
        long wrong = 0;
        mpfr_t D;
        mpfr_init2(D, 600);
        for (int r = 0; r < 2; r++) {
            const uint16_t *s = (const uint16_t *)c->tensors[0].data + (size_t)r * N,
                           *g = (const uint16_t *)c->tensors[1].data + (size_t)r * N;
            mpfr_set_zero(D, 1);
            for (int j = 0; j < N; j++) {
                mpfr_set_d(t, tp_f16_to_double(s[j]), MPFR_RNDN);
                mpfr_mul_d(t, t, tp_f16_to_double(g[j]), MPFR_RNDN);
                mpfr_add(D, D, t, MPFR_RNDN);
            }
            for (int j = 0; j < N; j++) {
                mpfr_set_d(t, tp_f16_to_double(g[j]), MPFR_RNDN);
                mpfr_sub(t, t, D, MPFR_RNDN);
                mpfr_mul_d(t, t, tp_f16_to_double(s[j]), MPFR_RNDN);
                const tp_ref *q = &ref[(size_t)r * N + j];
                wrong += mpfr_get_d(t, MPFR_RNDN) != q->exact || mpfr_cmp_d(t, q->exact_lo) < 0 ||
                         mpfr_cmp_d(t, q->exact_hi) > 0;
            }
        }
        mpfr_clear(D);
        tap_ok(wrong == 0, "softmax_xent_bwd 2x262144: exact = RN64 of the 600-bit MPFR value, enclosed (%ld wrong)",
               wrong);
        long bad = 0;
        for (int o = 0; o < 3; o++)
            for (int fma = 0; fma < 2; fma++) {
                xent_emulate(c, o == 0 ? 0 : o + 2, fma, BWD_OK); /* sequential, 256-tree, 32-tree */
                bad += violations(&c->tensors[2], ref, NULL);
            }
        tap_ok(bad == 0, "softmax_xent_bwd 2x262144: correct emulations (3 orders x {fmaf, mul+add}) never violate");
        /* a dot off by 0.1, eight times the long-row bound's e ~ 0.013 here */
        float *sf = malloc((size_t)N * sizeof *sf), *gf = malloc((size_t)N * sizeof *gf);
        for (int r = 0; r < 2; r++) {
            const uint16_t *s = (const uint16_t *)c->tensors[0].data + (size_t)r * N,
                           *g = (const uint16_t *)c->tensors[1].data + (size_t)r * N;
            uint16_t *gi = (uint16_t *)c->tensors[2].data + (size_t)r * N;
            for (int j = 0; j < N; j++)
                sf[j] = h2f(s[j]), gf[j] = h2f(g[j]);
            const float dot = dot_order(0, N, gf, sf, 1) + 0.1f;
            for (int j = 0; j < N; j++)
                gi[j] = tp_f16_from_float(sf[j] * (gf[j] - dot));
        }
        free(sf);
        free(gf);
        tap_ok(violations(&c->tensors[2], ref, NULL) > 0, "softmax_xent_bwd 2x262144: a dot off by 0.1 is caught");
    }
    free(ref);
    if (c)
        free_case(c);
    c = make_case(1, N + 1, 2, bn, bf, 903);
    ref = malloc((size_t)(N + 1) * sizeof *ref);
    rc = c ? bwd->reference(mb, c, "gi", ref, err, sizeof err) : 0;
    tap_ok(rc != 0 && strstr(err, "262144") != NULL, "softmax_xent_bwd 1x262145: refused, naming the limit (%s)",
           rc ? err : "accepted");
    free(ref);
    if (c)
        free_case(c);
    mpfr_clear(t);
    tp_value_free(mf);
    tp_value_free(mb);
}

int main(void)
{
    /* a fixed random permutation of 0..65535 (Fisher-Yates, SplitMix64) */
    uint64_t st = 7;
    for (int i = 0; i < 65536; i++)
        perm[i] = i;
    for (int i = 65535; i > 0; i--) {
        uint64_t z = (st += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        int j = (int)(z % (uint64_t)(i + 1)), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    test_row_oracles();
    test_softmax_fwd();
    test_softmax_xent_bwd();
    test_long_rows();
    return tap_done();
}
