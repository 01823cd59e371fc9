/* op rowwise (oracles/generic/rw_*.c): the RMSNorm forward model against
 * binary32 evaluations in several summation orders, with and without
 * fused accumulation, and rsqrtf results up to 2 ulp off; the exact
 * values against MPFR at 1024 bits; max reductions; what the model
 * refuses, and how it says so. */
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "oracles/generic/ew_admit.h"
#include "tests/case_tensor.h"
#include "tests/model_json.h"
#include "tests/tap.h"

#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform01(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

static uint16_t f16_normal(double sigma)
{
    const double u = uniform01() + 1e-300, v = uniform01();
    return tp_f16_from_float((float)(sigma * sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v)));
}

static float h2f(uint16_t h) { return (float)tp_f16_to_double(h); }

static const char *const RMS_MODEL =
    "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\","
    " \"reduce\": {\"ss\": {\"sum\": \"x * x\", \"order\": \"any\"}},"
    " \"expr\": {\"y\": \"x * rsqrtf(ss / cols + 1e-6f) * w\", \"rstd\": \"rsqrtf(ss / cols + 1e-6f)\"},"
    " \"ulp\": {\"rsqrtf\": {\"cuda\": 2}}}";

typedef struct {
    int rows, cols;
    uint16_t *x, *w, *y;
    float *rstd;
    tp_case c;
} rms_case;

/* An empty CUDA case named name with dims rd = R and cd = C. */
static void case_2d(tp_case *c, const char *name, const char *rd, int R, const char *cd, int C)
{
    memset(c, 0, sizeof *c);
    c->name = name, c->backend = "cuda", c->ndims = 2;
    c->dim_names[0] = rd, c->dims[0] = R, c->dim_names[1] = cd, c->dims[1] = C;
}

static void rms_make(rms_case *k, int rows, int cols, double sigma)
{
    k->rows = rows, k->cols = cols;
    k->x = malloc((size_t)rows * cols * 2);
    k->w = malloc((size_t)cols * 2);
    k->y = calloc((size_t)rows * cols, 2);
    k->rstd = calloc((size_t)rows, 4);
    for (int i = 0; i < rows * cols; i++)
        k->x[i] = f16_normal(sigma);
    for (int j = 0; j < cols; j++)
        k->w[j] = tp_f16_from_float(1.0f + 0.25f * h2f(f16_normal(1.0)));
    memset(&k->c, 0, sizeof k->c);
    k->c.name = "test";
    k->c.backend = "cuda";
    k->c.ndims = 2;
    k->c.dim_names[0] = "rows", k->c.dims[0] = rows;
    k->c.dim_names[1] = "cols", k->c.dims[1] = cols;
    case_add_tensor(&k->c, "x", TP_F16, 2, rows, cols, k->x, 0);
    case_add_tensor(&k->c, "w", TP_F16, 1, cols, 0, k->w, 0);
    case_add_tensor(&k->c, "y", TP_F16, 2, rows, cols, k->y, 1);
    case_add_tensor(&k->c, "rstd", TP_F32, 1, rows, 0, k->rstd, 1);
}

static void rms_free(rms_case *k) { free(k->x), free(k->w), free(k->y), free(k->rstd); }

static int run(const char *model_json, tp_case *c, const char *output, tp_ref *ref, char *err, size_t errlen,
               int check_case_only)
{
    const tp_op *op = tp_op_find("rowwise");
    json_error_t je;
    tp_value *model = model_of(json_loads(model_json, 0, &je));
    const int rc = !op || !model || op->check_model(model, err, errlen) ||
                   (check_case_only ? op->check_case(model, c, err, errlen)
                                    : op->reference(model, c, output, ref, err, errlen));
    tp_value_free(model);
    return rc;
}

/* The binary32 neighbour k steps from v. */
static float steps(float v, int k)
{
    for (; k > 0; k--)
        v = nextafterf(v, INFINITY);
    for (; k < 0; k++)
        v = nextafterf(v, -INFINITY);
    return v;
}

/* A correctly rounded rsqrtf (MPFR at 24 bits; normal results only here). */
static float rsqrt_rn(float v)
{
    mpfr_t t;
    mpfr_init2(t, 24);
    mpfr_set_flt(t, v, MPFR_RNDN);
    mpfr_rec_sqrt(t, t, MPFR_RNDN);
    const float r = mpfr_get_flt(t, MPFR_RNDN);
    mpfr_clear(t);
    return r;
}

/* The sum of squares of row xr in one of several binary32 orders: 0
 * sequential mul-add, 1 sequential fmaf, 2 reversed fmaf, 3 a pairwise
 * tree of rounded squares, 4 512 strided per-thread fmaf sums then a tree
 * (the kernel's shape). */
static float sum_squares(const uint16_t *xr, int n, int order)
{
    float t[4096];
    float q = 0.0f;
    switch (order) {
    case 0:
        for (int j = 0; j < n; j++) {
            const float p = h2f(xr[j]) * h2f(xr[j]);
            q += p;
        }
        return q;
    case 1:
        for (int j = 0; j < n; j++)
            q = fmaf(h2f(xr[j]), h2f(xr[j]), q);
        return q;
    case 2:
        for (int j = n - 1; j >= 0; j--)
            q = fmaf(h2f(xr[j]), h2f(xr[j]), q);
        return q;
    default: {
        const int lanes = order == 3 ? n : 512;
        for (int l = 0; l < lanes; l++) {
            t[l] = 0.0f;
            for (int j = l; j < n; j += lanes)
                t[l] = order == 3 ? h2f(xr[j]) * h2f(xr[j]) : fmaf(h2f(xr[j]), h2f(xr[j]), t[l]);
        }
        for (int m = lanes; m > 1; m = (m + 1) / 2)
            for (int l = 0; l < m / 2; l++)
                t[l] = t[l] + t[m - 1 - l];
        return t[0];
    }
    }
}

static void test_rmsnorm_sound(void)
{
    rms_case k;
    rms_make(&k, 32, 1024, 2.0);
    const int n = k.rows * k.cols;
    tp_ref *ry = malloc((size_t)n * sizeof *ry), *rr = malloc((size_t)k.rows * sizeof *rr);
    char err[600] = "";
    int rc = run(RMS_MODEL, &k.c, "y", ry, err, sizeof err, 0) || run(RMS_MODEL, &k.c, "rstd", rr, err, sizeof err, 0);
    tap_ok(rc == 0, "RMSNorm forward (op rowwise), 32 rows of 1024: references of y and rstd (%s)", err);
    int bad = 0, tried = 0;
    double worst = 0;
    for (int r = 0; rc == 0 && r < k.rows; r++)
        for (int order = 0; order < 5; order++)
            for (int ulp = -2; ulp <= 2; ulp++) {
                const float ss = sum_squares(k.x + r * k.cols, k.cols, order);
                const float rs = steps(rsqrt_rn(ss / (float)k.cols + 1e-6f), ulp);
                tried++;
                bad += !(rr[r].allow_lo <= rs && rs <= rr[r].allow_hi);
                for (int j = 0; j < k.cols; j++) {
                    const double y = h2f(tp_f16_from_float(h2f(k.x[r * k.cols + j]) * rs * h2f(k.w[j])));
                    const tp_ref *e = &ry[r * k.cols + j];
                    bad += !(e->allow_lo <= y && y <= e->allow_hi);
                    const double ulp16 = ldexp(1.0, ilogb(fmax(fabs(e->exact), 0x1p-14)) - 10);
                    worst = fmax(worst, (e->allow_hi - e->allow_lo) / ulp16);
                }
            }
    tap_ok(rc == 0 && bad == 0,
           "every binary32 evaluation (5 sum orders, fused or not; rsqrtf within 2 ulp) lies in the admitted sets "
           "of y and rstd (%d evaluations, %d outside)",
           tried, bad);
    tap_diag("widest admitted y: %.1f fp16 ulps of the exact value", worst);
    tap_ok(worst <= 8.0, "and no admitted y is wider than 8 fp16 ulps (widest %.1f)", worst);

    /* the exact values against MPFR at 1024 bits */
    int out = 0;
    mpfr_t s, t, u;
    mpfr_inits2(1024, s, t, u, (mpfr_ptr)0);
    for (int r = 0; rc == 0 && r < k.rows; r++) {
        mpfr_set_ui(s, 0, MPFR_RNDN);
        for (int j = 0; j < k.cols; j++) {
            mpfr_set_flt(t, h2f(k.x[r * k.cols + j]), MPFR_RNDN);
            mpfr_sqr(t, t, MPFR_RNDN);
            mpfr_add(s, s, t, MPFR_RNDN);
        }
        mpfr_div_ui(s, s, (unsigned long)k.cols, MPFR_RNDN);
        mpfr_set_flt(t, 1e-6f, MPFR_RNDN);
        mpfr_add(s, s, t, MPFR_RNDN);
        mpfr_rec_sqrt(s, s, MPFR_RNDN); /* rstd, to 1024 bits */
        const double rd = mpfr_get_d(s, MPFR_RNDN);
        out += !(rr[r].exact_lo <= rd && rd <= rr[r].exact_hi && fabs(rr[r].exact - rd) <= 0x1p-50 * fabs(rd));
        for (int j = 0; j < k.cols; j += 7) {
            mpfr_set_flt(t, h2f(k.x[r * k.cols + j]), MPFR_RNDN);
            mpfr_mul(u, t, s, MPFR_RNDN);
            mpfr_set_flt(t, h2f(k.w[j]), MPFR_RNDN);
            mpfr_mul(u, u, t, MPFR_RNDN);
            const double yd = mpfr_get_d(u, MPFR_RNDN);
            const tp_ref *e = &ry[r * k.cols + j];
            out += !(e->exact_lo <= yd && yd <= e->exact_hi && fabs(e->exact - yd) <= 0x1p-50 * fabs(yd));
        }
    }
    mpfr_clears(s, t, u, (mpfr_ptr)0);
    tap_ok(rc == 0 && out == 0, "the exact y and rstd agree with MPFR at 1024 bits (%d differ)", out);

    /* a kernel that drops eps on rows of tiny values: outside */
    for (int i = 0; i < k.cols; i++)
        k.x[i] = (uint16_t)(1 + i % 64); /* row 0: subnormals */
    rc = run(RMS_MODEL, &k.c, "rstd", rr, err, sizeof err, 0);
    const float no_eps = rsqrt_rn(sum_squares(k.x, k.cols, 1) / (float)k.cols);
    tap_ok(rc == 0 && !(rr[0].allow_lo <= no_eps && no_eps <= rr[0].allow_hi),
           "a row of subnormals: rstd without eps (%g) lies outside [%g, %g]", (double)no_eps, rr[0].allow_lo,
           rr[0].allow_hi);
    free(ry), free(rr);
    rms_free(&k);
}

/* Softmax's shape with a max reduction: m = max(x), s = sum(expf(x - m)),
 * y = expf(x - m) / s, against a sequential binary32 evaluation with the
 * host's expf. */
static void test_max_sum(void)
{
    static const char *const model =
        "{\"arithmetic\": \"fp32\", \"fma\": \"no\", \"output_rounding\": \"nearest\","
        " \"reduce\": {\"m\": {\"max\": \"x\", \"order\": \"any\"}, \"s\": {\"sum\": \"expf(x - m)\", \"order\": "
        "\"any\"}}, \"expr\": {\"y\": \"expf(x - m) / s\"}, \"ulp\": {\"expf\": {\"cuda\": 2}}}";
    enum { R = 16, C = 512 };
    uint16_t *x = malloc(R * C * 2), *y = calloc(R * C, 2);
    for (int i = 0; i < R * C; i++)
        x[i] = f16_normal(4.0);
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = "softmax", c.backend = "cuda";
    case_add_tensor(&c, "x", TP_F16, 2, R, C, x, 0);
    case_add_tensor(&c, "y", TP_F16, 2, R, C, y, 1);
    tp_ref *ref = malloc(R * C * sizeof *ref);
    char err[600] = "";
    int rc = run(model, &c, "y", ref, err, sizeof err, 0), bad = 0;
    for (int r = 0; rc == 0 && r < R; r++) {
        float m = -INFINITY, s = 0.0f;
        for (int j = 0; j < C; j++)
            m = fmaxf(m, h2f(x[r * C + j]));
        for (int j = 0; j < C; j++)
            s += expf(h2f(x[r * C + j]) - m);
        for (int j = 0; j < C; j++) {
            const double v = h2f(tp_f16_from_float(expf(h2f(x[r * C + j]) - m) / s));
            bad += !(ref[r * C + j].allow_lo <= v && v <= ref[r * C + j].allow_hi);
        }
    }
    tap_ok(rc == 0 && bad == 0, "softmax as max, sum, expression: the host's evaluation lies in every admitted set (%s; "
           "%d not)", err, bad);
    free(x), free(y), free(ref);
}

/* RMSNorm's backward as op rowwise: grad_input with the per-row rstd
 * ([rows, 1]) and grad_weight along columns, against binary32 evaluations
 * in several orders, fused or not; grad_weight's exact sums against MPFR. */
static void test_backward(void)
{
    enum { R = 96, C = 160 };
    static const char *const in_model =
        "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\","
        " \"reduce\": {\"dot\": {\"sum\": \"w * dy * (x * rstd)\", \"order\": \"any\"}},"
        " \"expr\": {\"dx\": \"rstd * (w * dy - x * rstd * (dot / cols))\"}}";
    static const char *const w_model =
        "{\"along\": \"column\", \"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": "
        "\"nearest\", \"reduce\": {\"s\": {\"sum\": \"x * rstd * dy\", \"order\": \"any\"}}, \"expr\": "
        "{\"dw\": \"s\"}}";
    uint16_t *x = malloc(R * C * 2), *dy = malloc(R * C * 2), *w = malloc(C * 2), *dx = calloc(R * C, 2);
    float rstd[R], dw[C];
    for (int i = 0; i < R * C; i++)
        x[i] = f16_normal(2.0), dy[i] = f16_normal(1.0);
    for (int j = 0; j < C; j++)
        w[j] = tp_f16_from_float(1.0f + 0.25f * h2f(f16_normal(1.0)));
    for (int r = 0; r < R; r++)
        rstd[r] = (float)(0.25 + uniform01());
    tp_case c;
    case_2d(&c, "bwd", "rows", R, "cols", C);
    case_add_tensor(&c, "x", TP_F16, 2, R, C, x, 0);
    case_add_tensor(&c, "w", TP_F16, 1, C, 0, w, 0);
    case_add_tensor(&c, "dy", TP_F16, 2, R, C, dy, 0);
    case_add_tensor(&c, "rstd", TP_F32, 2, R, 1, rstd, 0);
    case_add_tensor(&c, "dx", TP_F16, 2, R, C, dx, 1);
    case_add_tensor(&c, "dw", TP_F32, 1, C, 0, dw, 1);
    tp_ref *rx = malloc(R * C * sizeof *rx), *rw = malloc(C * sizeof *rw);
    char err[600] = "";
    int rc = run(in_model, &c, "dx", rx, err, sizeof err, 0) || run(w_model, &c, "dw", rw, err, sizeof err, 0);
    tap_ok(rc == 0, "RMSNorm backward (op rowwise): references of dx (rstd per row) and dw (along columns) (%s)", err);
    int bad = 0, tried = 0;
    for (int r = 0; rc == 0 && r < R; r++)
        for (int order = 0; order < 3; order++) {
            float dot = 0.0f;
            for (int k = 0; k < C; k++) {
                const int j = order == 1 ? C - 1 - k : k;
                const float g = h2f(w[j]) * h2f(dy[r * C + j]), xh = h2f(x[r * C + j]) * rstd[r];
                dot = order == 2 ? dot + g * xh : fmaf(g, xh, dot);
            }
            const float cc = dot / (float)C;
            for (int j = 0; j < C; j++) {
                const float g = h2f(w[j]) * h2f(dy[r * C + j]), xh = h2f(x[r * C + j]) * rstd[r];
                const float inner = order == 2 ? g - xh * cc : fmaf(-xh, cc, g);
                const double v = h2f(tp_f16_from_float(rstd[r] * inner));
                tried++;
                bad += !(rx[r * C + j].allow_lo <= v && v <= rx[r * C + j].allow_hi);
            }
        }
    for (int j = 0; rc == 0 && j < C; j++)
        for (int order = 0; order < 3; order++) {
            float acc = 0.0f;
            for (int k = 0; k < R; k++) {
                const int r = order == 1 ? R - 1 - k : k;
                const float xh = h2f(x[r * C + j]) * rstd[r];
                acc = order == 2 ? acc + xh * h2f(dy[r * C + j]) : fmaf(xh, h2f(dy[r * C + j]), acc);
            }
            tried++;
            bad += !(rw[j].allow_lo <= acc && acc <= rw[j].allow_hi);
        }
    tap_ok(rc == 0 && bad == 0, "every binary32 evaluation (3 orders, fused or not) lies in the admitted sets of dx and "
           "dw (%d evaluations, %d outside)", tried, bad);
    int out = 0;
    mpfr_t s, t;
    mpfr_inits2(1024, s, t, (mpfr_ptr)0);
    for (int j = 0; rc == 0 && j < C; j++) {
        mpfr_set_ui(s, 0, MPFR_RNDN);
        for (int r = 0; r < R; r++) {
            mpfr_set_flt(t, h2f(x[r * C + j]), MPFR_RNDN);
            mpfr_mul_d(t, t, rstd[r], MPFR_RNDN);
            mpfr_mul_d(t, t, h2f(dy[r * C + j]), MPFR_RNDN);
            mpfr_add(s, s, t, MPFR_RNDN);
        }
        const double e = mpfr_get_d(s, MPFR_RNDN);
        out += !(rw[j].exact_lo <= e && e <= rw[j].exact_hi && rw[j].exact == e);
    }
    mpfr_clears(s, t, (mpfr_ptr)0);
    tap_ok(rc == 0 && out == 0, "the exact column sums of dw agree with MPFR at 1024 bits (%d differ)", out);
    static const char *const per_col_x =
        "{\"along\": \"column\", \"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": "
        "\"nearest\", \"reduce\": {\"s\": {\"sum\": \"x\", \"order\": \"any\"}}, \"expr\": {\"dw\": \"s * "
        "rstd\"}}";
    rc = run(per_col_x, &c, "dw", rw, err, sizeof err, 0);
    tap_ok(rc != 0 && strstr(err, "has one element per column but reads rstd, which varies along it"),
           "along columns, a per-column output may not read a per-row input (%s)", err);
    free(x), free(dy), free(w), free(dx), free(rx), free(rw);
}

/* The fused softmax cross-entropy of contracts/softmax_xent_fused.toml:
 * index(col) compared with an int32 target read once per row (== in
 * select), the one-hot sum exact, ignored rows; host evaluations in three
 * summation orders with expf within 2 and logf within 1 step of the
 * correctly rounded value all inside; the exact loss against MPFR. */
static const char *const XENT_MODEL =
    "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\","
    " \"reduce\": {\"m\": {\"max\": \"x\", \"order\": \"any\"}, \"s\": {\"sum\": \"expf(x - m)\", \"order\": \"any\"},"
    " \"xt\": {\"sum\": \"select(index(col) == target, x, 0.0f)\", \"order\": \"any\"}},"
    " \"expr\": {\"loss\": \"select(target == -100, 0.0f, logf(s) + m - xt)\","
    " \"grad\": \"select(target == -100, 0.0f, (expf(x - m) / s - select(index(col) == target, 1.0f, 0.0f)) * "
    "scale)\"}, \"ulp\": {\"expf\": {\"cuda\": 2}, \"logf\": {\"cuda\": 1}}}";

/* A correctly rounded logf or expf k binary32 steps off. */
static float fn_off(int fn, float v, int k) { return steps(ew_fn_rn32(fn - EW_FIRST_FN, v), k); }

static void test_xent(void)
{
    enum { R = 12, C = 700 };
    uint16_t *x = malloc(R * C * 2), *grad = calloc(R * C, 2);
    int32_t target[R];
    float scale = 1.0f / 3.0f, loss[R];
    for (int i = 0; i < R * C; i++)
        x[i] = f16_normal(3.0);
    for (int r = 0; r < R; r++)
        target[r] = r == 0 ? 0 : r == 1 ? C - 1 : r == 2 ? -100 : (int32_t)(uniform01() * C);
    tp_case c;
    case_2d(&c, "xent", "rows", R, "V", C);
    case_add_tensor(&c, "x", TP_F16, 2, R, C, x, 0);
    case_add_tensor(&c, "target", TP_I32, 2, R, 1, target, 0);
    case_add_tensor(&c, "scale", TP_F32, 1, 1, 0, &scale, 0);
    case_add_tensor(&c, "loss", TP_F32, 1, R, 0, loss, 1);
    case_add_tensor(&c, "grad", TP_F16, 2, R, C, grad, 1);
    tp_ref *rl = malloc(R * sizeof *rl), *rg = malloc(R * C * sizeof *rg);
    char err[600] = "";
    int rc = run(XENT_MODEL, &c, "loss", rl, err, sizeof err, 0) || run(XENT_MODEL, &c, "grad", rg, err, sizeof err, 0);
    tap_ok(rc == 0, "fused softmax cross-entropy (op rowwise): references of loss and grad (%s)", err);
    int bad = 0, tried = 0;
    for (int r = 0; rc == 0 && r < R; r++) {
        const uint16_t *xr = x + r * C;
        float m = -INFINITY;
        for (int j = 0; j < C; j++)
            m = fmaxf(m, h2f(xr[j]));
        for (int order = 0; order < 3; order++)
            for (int k = -2; k <= 2; k++) {
                float e[C], s = 0.0f, part[1024] = {0};
                for (int j = 0; j < C; j++)
                    e[j] = fn_off(EW_EXP, h2f(xr[j]) - m, ((k + j) % 5 + 5) % 5 - 2); /* each term its own error */
                if (order == 0)
                    for (int j = 0; j < C; j++)
                        s += e[j];
                else if (order == 1)
                    for (int j = C - 1; j >= 0; j--)
                        s += e[j];
                else { /* the kernel's shape: 1024 strided threads, then a tree */
                    for (int j = 0; j < C; j++)
                        part[j % 1024] += e[j];
                    for (int w = 512; w > 0; w /= 2)
                        for (int t = 0; t < w; t++)
                            part[t] += part[t + w];
                    s = part[0];
                }
                const int t = target[r];
                for (int lk = -1; lk <= 1; lk++) {
                    const float l = t == -100 ? 0.0f : fn_off(EW_LOG, s, lk) + m - h2f(xr[t]);
                    tried++;
                    bad += !(rl[r].allow_lo <= l && l <= rl[r].allow_hi);
                }
                for (int j = 0; j < C; j++) {
                    const float p = fn_off(EW_EXP, h2f(xr[j]) - m, k) / s;
                    const double g = t == -100 ? 0.0 : h2f(tp_f16_from_float((p - (j == t ? 1.0f : 0.0f)) * scale));
                    tried++;
                    bad += !(rg[r * C + j].allow_lo <= g && g <= rg[r * C + j].allow_hi);
                }
            }
    }
    tap_ok(rc == 0 && bad == 0, "every binary32 evaluation (3 sum orders, expf within 2 and logf within 1 step) lies "
           "in the admitted sets of loss and grad (%d evaluations, %d outside)", tried, bad);
    tap_ok(rc == 0 && rl[2].allow_lo == 0 && rl[2].allow_hi == 0 && rg[2 * C + 5].allow_lo == 0 &&
               rg[2 * C + 5].allow_hi == 0,
           "an ignored row (target -100): loss and grad admitted exactly 0");
    /* the exact loss against MPFR at 1024 bits */
    int out = 0;
    mpfr_t acc, t;
    mpfr_inits2(1024, acc, t, (mpfr_ptr)0);
    for (int r = 0; rc == 0 && r < R; r++) {
        if (target[r] == -100)
            continue;
        float m = -INFINITY;
        for (int j = 0; j < C; j++)
            m = fmaxf(m, h2f(x[r * C + j]));
        mpfr_set_ui(acc, 0, MPFR_RNDN);
        for (int j = 0; j < C; j++) {
            mpfr_set_flt(t, h2f(x[r * C + j]), MPFR_RNDN);
            mpfr_sub_d(t, t, m, MPFR_RNDN);
            mpfr_exp(t, t, MPFR_RNDN);
            mpfr_add(acc, acc, t, MPFR_RNDN);
        }
        mpfr_log(acc, acc, MPFR_RNDN);
        mpfr_add_d(acc, acc, m, MPFR_RNDN);
        mpfr_sub_d(acc, acc, h2f(x[r * C + target[r]]), MPFR_RNDN);
        const double l = mpfr_get_d(acc, MPFR_RNDN);
        out += !(rl[r].exact_lo <= l && l <= rl[r].exact_hi && fabs(rl[r].exact - l) <= 0x1p-50 * fabs(l));
    }
    mpfr_clears(acc, t, (mpfr_ptr)0);
    tap_ok(rc == 0 && out == 0, "the exact loss agrees with MPFR at 1024 bits (%d differ)", out);

    /* the one-hot sum is x[t] exactly; a sum of two nonzero terms is not */
    static const char *const onehot =
        "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"xt\": {\"sum\": "
        "\"select(index(col) == target, x, 0.0f)\", \"order\": \"any\"}}, \"expr\": {\"loss\": \"xt\"}}";
    static const char *const twohot =
        "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"xt\": {\"sum\": "
        "\"select(index(col) < 2, x, 0.0f)\", \"order\": \"any\"}}, \"expr\": {\"loss\": \"xt\"}}";
    x[3 * C + 0] = 0x3c01, x[3 * C + 1] = 0x3c00; /* 1 + 2^-10 and 1: their binary32 sum is exact, the bound is not */
    rc = run(onehot, &c, "loss", rl, err, sizeof err, 0);
    int exact = rc == 0;
    for (int r = 0; rc == 0 && r < R; r++) {
        const double v = target[r] == -100 ? 0.0 : h2f(x[r * C + target[r]]);
        exact &= rl[r].allow_lo == v && rl[r].allow_hi == v && rl[r].exact == v;
    }
    tap_ok(exact, "sum(select(index(col) == target, x, 0.0f)) admits x[target] exactly, and 0 for an ignored row (%s)",
           err);
    rc = run(twohot, &c, "loss", rl, err, sizeof err, 0);
    tap_ok(rc == 0 && rl[3].allow_lo < rl[3].exact && rl[3].exact < rl[3].allow_hi,
           "a row sum of two nonzero terms keeps the any-order bound: [%.9g, %.9g] around %.9g", rl[3].allow_lo,
           rl[3].allow_hi, rl[3].exact);

    /* what the model refuses about indices and int32 inputs */
    static const struct {
        const char *model, *output, *needle;
    } bad_models[] = {
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"m\": {\"max\": "
         "\"x\", \"order\": \"any\"}}, \"expr\": {\"loss\": \"m * index(col)\"}}",
         "loss", "has one element per row but reads index(col), which varies along it"},
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"m\": {\"max\": "
         "\"x[col + 1]\", \"order\": \"any\"}}, \"expr\": {\"loss\": \"m\"}}",
         "loss", "x[col + 1]: an indexed read of an input is op elementwise's"},
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"m\": {\"max\": "
         "\"x * index(col * 100000)\", \"order\": \"any\"}}, \"expr\": {\"loss\": \"m\"}}",
         "loss", "index(col * 100000) is 16800000 at col 168; expected an integer within 2^24"},
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"m\": {\"max\": "
         "\"x * index(row + col)\", \"order\": \"any\"}}, \"expr\": {\"loss\": \"m\"}}",
         "loss", "index[row + col]: the index depends on both row and col"},
    };
    for (size_t i = 0; i < sizeof bad_models / sizeof bad_models[0]; i++) {
        rc = run(bad_models[i].model, &c, bad_models[i].output, rl, err, sizeof err, 0);
        if (!tap_ok(rc != 0 && strstr(err, bad_models[i].needle), "refused: %s", bad_models[i].needle))
            tap_diag("rc %d: %s", rc, err);
    }
    target[5] = (1 << 24) + 1;
    rc = run(XENT_MODEL, &c, NULL, NULL, err, sizeof err, 1);
    tap_ok(rc != 0 && strstr(err, "rowwise: input target holds 16777217 at element 5; expected int32 values within "
                                  "2^24"),
           "an int32 input beyond 2^24 is refused before launch, naming the tensor and element (%s)", err);
    free(x), free(grad), free(rl), free(rg);
}

/* What the model refuses, in its own words. */
static void test_refusals(void)
{
    rms_case k;
    rms_make(&k, 2, 64, 1.0);
    tp_ref ref[128];
    static const struct {
        const char *model, *output, *needle;
    } cases[] = {
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"a\": {\"sum\": "
         "\"x * b\", \"order\": \"any\"}, \"b\": {\"max\": \"x\", \"order\": \"any\"}}, \"expr\": {\"y\": \"x\", "
         "\"rstd\": \"a\"}}",
         "y", "model.reduce.a.sum uses reduction b, which is not declared before it"},
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"ss\": {\"sum\": "
         "\"x * x\", \"order\": \"any\"}}, \"expr\": {\"y\": \"x\", \"rstd\": \"ss * x\"}}",
         "rstd", "has one element per row but reads x"},
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"ss\": {\"sum\": "
         "\"x * x\", \"order\": \"any\"}}, \"expr\": {\"y\": \"x * rsqrtf(ss)\", \"rstd\": \"ss\"}}",
         "y", "uses rsqrtf, but model.ulp.rsqrtf has no bound for backend cuda"},
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"ss\": {\"sum\": "
         "\"x * x\", \"order\": \"tree\"}}, \"expr\": {\"y\": \"x\", \"rstd\": \"ss\"}}",
         "y", "must be { sum = \"term\", order = \"any\" }"},
        {"{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"ss\": {\"sum\": "
         "\"x * z\", \"order\": \"any\"}}, \"expr\": {\"y\": \"x\", \"rstd\": \"ss\"}}",
         "y", "unknown name 'z'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[600] = "";
        const int rc = run(cases[i].model, &k.c, cases[i].output, ref, err, sizeof err, 0);
        if (!tap_ok(rc != 0 && strstr(err, cases[i].needle), "refused: %s", cases[i].needle))
            tap_diag("rc %d: %s", rc, err);
    }
    rms_free(&k);
    /* an f32 row whose squares overflow binary32: refused before launch,
     * naming the row, the column and the operation */
    float xf[64], wf[64], rs[1];
    uint16_t yh[64];
    for (int j = 0; j < 64; j++)
        xf[j] = 1.0f, wf[j] = 1.0f;
    xf[9] = 3e19f;
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = "overflow", c.backend = "cuda", c.ndims = 1, c.dim_names[0] = "cols", c.dims[0] = 64;
    case_add_tensor(&c, "x", TP_F32, 2, 1, 64, xf, 0);
    case_add_tensor(&c, "w", TP_F32, 1, 64, 0, wf, 0);
    case_add_tensor(&c, "y", TP_F16, 2, 1, 64, yh, 1);
    case_add_tensor(&c, "rstd", TP_F32, 1, 1, 0, rs, 1);
    char err[600] = "";
    int rc = run(RMS_MODEL, &c, NULL, NULL, err, sizeof err, 1);
    tap_ok(rc != 0 && strstr(err, "row 0, column 9: a product may overflow binary32 at operation 3 of "
                                   "model.reduce.ss"),
           "a square that overflows binary32 is refused before launch (%s)", err);
    /* a sum longer than the proven bound covers (of nonzero terms: a row
     * of zeros is exact, whatever its length) */
    enum { LONG = 262145 };
    uint16_t *xl = calloc(LONG, 2), *wl = calloc(LONG, 2), *yl = calloc(LONG, 2);
    for (int j = 0; j < LONG; j++)
        xl[j] = 0x3c00; /* 1 */
    memset(&c, 0, sizeof c);
    c.name = "long", c.backend = "cuda", c.ndims = 1, c.dim_names[0] = "cols", c.dims[0] = LONG;
    case_add_tensor(&c, "x", TP_F16, 2, 1, LONG, xl, 0);
    case_add_tensor(&c, "w", TP_F16, 1, LONG, 0, wl, 0);
    case_add_tensor(&c, "y", TP_F16, 2, 1, LONG, yl, 1);
    case_add_tensor(&c, "rstd", TP_F32, 1, 1, 0, rs, 1);
    rc = run(RMS_MODEL, &c, NULL, NULL, err, sizeof err, 1);
    tap_ok(rc != 0 && strstr(err, "a row sum outside the proven sum bound's range (at most 262144 terms"),
           "a row of 262145 terms is refused: the proven long-row sum bound covers 262144 (%s)", err);
    /* 65537 and 262144 terms: the long-row bound applies */
    const int64_t ok_len[] = {65537, 262144};
    for (int k = 0; k < 2; k++) {
        memset(&c, 0, sizeof c);
        c.name = "long", c.backend = "cuda", c.ndims = 1, c.dim_names[0] = "cols", c.dims[0] = ok_len[k];
        case_add_tensor(&c, "x", TP_F16, 2, 1, ok_len[k], xl, 0);
        case_add_tensor(&c, "w", TP_F16, 1, ok_len[k], 0, wl, 0);
        case_add_tensor(&c, "y", TP_F16, 2, 1, ok_len[k], yl, 1);
        case_add_tensor(&c, "rstd", TP_F32, 1, 1, 0, rs, 1);
        err[0] = 0;
        rc = run(RMS_MODEL, &c, NULL, NULL, err, sizeof err, 1);
        tap_ok(rc == 0, "a row of %lld terms is admitted by the long-row sum bound (%s)", (long long)ok_len[k], err);
    }
    free(xl), free(wl), free(yl);
}

int main(void)
{
    test_rmsnorm_sound();
    test_max_sum();
    test_backward();
    test_xent();
    test_refusals();
    return tap_done();
}
