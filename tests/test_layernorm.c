/* LayerNorm references and admitted intervals (ops layernorm_fwd,
 * layernorm_bwd_input, layernorm_bwd_params) against MPFR and against CPU
 * emulations of the kernels.
 *
 *  - the split-double sums of oracles/layernorm/proven/layernorm.c equal MPFR's exact sums
 *    bit for bit (hi + lo as a real), on normal, wide and special data;
 *  - the exact statistics (MPFI) contain a 512-bit MPFR evaluation;
 *  - emulated kernels that follow each model -- sequential, reversed,
 *    pairwise, 8 interleaved accumulators, the kernels' 32- and 64-lane
 *    shuffle trees; each mul-add fused or not; rsqrtf anywhere within 2 ulp;
 *    and, for the forward pass, a Welford kernel (differently correct) --
 *    never leave the admitted intervals;
 *  - planted errors are caught: mean and rstd swapped, a wrong eps, the
 *    unbiased variance, a dropped sum, a missing rstd; and the real fp16
 *    path of the grad_input kernel violates the pilot's fp32 contract.
 * Build with -ffp-contract=off: the emulations round where C says. */
#include "oracles/layernorm/proven/layernorm.h"
#include "oracles/layernorm/layernorm_model.h"
#include "tests/case_tensor.h"
#include "tests/model_json.h"
#include "tests/tap.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "core/tp_rng.h"

#include <jansson.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMAX 8192

/* ---- inputs ------------------------------------------------------------ */

static uint16_t *fill(int64_t n, const char *f, uint64_t seed, const char *name)
{
    uint16_t *h = malloc((size_t)n * 2);
    int64_t shape[1] = {n};
    char err[200];
    if (tp_fill_f16(h, 1, shape, f, seed, name, err, sizeof err) != 0) {
        fprintf(stderr, "fill %s: %s\n", f, err);
        exit(2);
    }
    return h;
}

static float h2f(uint16_t h) { return (float)tp_f16_to_double(h); }

/* ---- emulated reductions: sum of a[j] (b == NULL) or a[j]*b[j] ----------- */

enum { O_SEQ, O_REV, O_PAIR, O_ACC8, O_TREE32, O_TREE64, O_COUNT };
static const char *const order_name[] = {"sequential", "reversed", "pairwise", "8 accumulators", "32-lane tree",
                                         "64-lane tree"};

static float term_add(float acc, const float *a, const float *b, int j, int fma)
{
    if (!b)
        return acc + a[j];
    return fma ? fmaf(a[j], b[j], acc) : acc + a[j] * b[j];
}

static float pair(int lo, int hi, const float *a, const float *b, int fma)
{
    if (hi - lo <= 2) {
        float s = 0.0f;
        for (int j = lo; j < hi; j++)
            s = term_add(s, a, b, j, fma);
        return s;
    }
    int mid = lo + (hi - lo) / 2;
    return pair(lo, mid, a, b, fma) + pair(mid, hi, a, b, fma);
}

/* The kernels' block reduction: B threads with strided partial sums, a
 * shuffle tree per W-lane warp, then the same tree over the warp sums. */
static float tree(int n, const float *a, const float *b, int fma, int W)
{
    int B = 1;
    while (B < n / 8)
        B *= 2;
    B = B < 32 ? 32 : B > 1024 ? 1024 : B;
    float v[1024], ws[32];
    for (int t = 0; t < B; t++) {
        float s = 0.0f;
        for (int j = t; j < n; j += B)
            s = term_add(s, a, b, j, fma);
        v[t] = s;
    }
    int nw = (B + W - 1) / W;
    for (int w = 0; w < nw; w++) {
        float *l = v + w * W;
        int here = B - w * W < W ? B - w * W : W;
        for (int d = W / 2; d > 0; d /= 2)
            for (int i = 0; i + d < here; i++)
                l[i] += l[i + d];
        ws[w] = l[0];
    }
    for (int d = W / 2; d > 0; d /= 2)
        for (int i = 0; i + d < nw; i++)
            ws[i] += ws[i + d];
    return ws[0];
}

static float osum(int n, const float *a, const float *b, int order, int fma)
{
    float s = 0.0f, acc[8] = {0};
    switch (order) {
    case O_SEQ:
        for (int j = 0; j < n; j++)
            s = term_add(s, a, b, j, fma);
        return s;
    case O_REV:
        for (int j = n - 1; j >= 0; j--)
            s = term_add(s, a, b, j, fma);
        return s;
    case O_PAIR:
        return pair(0, n, a, b, fma);
    case O_ACC8:
        for (int j = 0; j < n; j++)
            acc[j % 8] = term_add(acc[j % 8], a, b, j, fma);
        for (int w = 4; w >= 1; w /= 2)
            for (int i = 0; i < w; i++)
                acc[i] += acc[i + w];
        return acc[0];
    case O_TREE32:
        return tree(n, a, b, fma, 32);
    default:
        return tree(n, a, b, fma, 64);
    }
}

/* ---- cases for the real ops ----------------------------------------------- */

/* Elements of `got` outside the admitted interval of output `name`. */
static int64_t outside(const tp_op *op, const tp_value *model, tp_case *c, const char *name, int64_t n, int f32,
                       const void *got, int *err_out)
{
    tp_ref *ref = malloc((size_t)n * sizeof *ref);
    char err[600];
    if (op->reference(model, c, name, ref, err, sizeof err) != 0) {
        tap_diag("reference(%s): %s", name, err);
        *err_out = 1;
        free(ref);
        return -1;
    }
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double y = f32 ? (double)((const float *)got)[i] : tp_f16_to_double(((const uint16_t *)got)[i]);
        int ok = !isnan(y) && ref[i].allow_lo <= y && y <= ref[i].allow_hi;
        if (!ok && bad++ == 0 && !*err_out)
            tap_diag("%s[%lld] = %.9g outside [%.9g, %.9g] (exact %.9g)", name, (long long)i, y, ref[i].allow_lo,
                     ref[i].allow_hi, ref[i].exact);
        if (!(ref[i].exact_lo <= ref[i].exact && ref[i].exact <= ref[i].exact_hi))
            bad++;
    }
    free(ref);
    return bad;
}

/* ---- forward ------------------------------------------------------------- */

enum { M_NONE, M_SWAP, M_EPS, M_UNBIASED };
static const float EPS = 1e-5f;

/* One row of the forward kernel under the given choices. */
static void fwd_row(int n, const float *x, const float *g, const float *b, int order, int fma, int ulp, int welford,
                    int mutant, uint16_t *y, float *mean, float *rstd)
{
    float mu, var, d[NMAX];
    float nd = mutant == M_UNBIASED ? (float)(n - 1) : (float)n;
    if (welford) {
        float cnt = 0.0f, m = 0.0f, m2 = 0.0f;
        for (int j = 0; j < n; j++) {
            cnt += 1.0f;
            float dd = x[j] - m;
            m += dd / cnt;
            m2 = fma ? fmaf(dd, x[j] - m, m2) : m2 + dd * (x[j] - m);
        }
        mu = m;
        var = m2 / nd;
    } else {
        mu = osum(n, x, NULL, order, 0) / (float)n;
        for (int j = 0; j < n; j++)
            d[j] = x[j] - mu;
        var = osum(n, d, d, order, fma) / nd;
    }
    float rs = tp_ln_rsqrt_rn(var + (mutant == M_EPS ? 1e-3f : EPS));
    for (int k = 0; k < abs(ulp); k++)
        rs = nextafterf(rs, ulp > 0 ? INFINITY : -INFINITY);
    for (int j = 0; j < n; j++) {
        float t = (x[j] - mu) * rs;
        y[j] = tp_f16_from_float(fma ? fmaf(t, g[j], b[j]) : t * g[j] + b[j]);
    }
    *mean = mutant == M_SWAP ? rs : mu;
    *rstd = mutant == M_SWAP ? mu : rs;
}

typedef struct {
    const char *name;
    int rows, cols;
    const char *x, *g, *b;
} fwd_input;

static const fwd_input fwd_inputs[] = {
    {"normal 16x1024", 16, 1024, "normal(0, 1)", "normal(1, 0.1)", "normal(0, 0.1)"},
    {"wide 8x1000", 8, 1000, "wide(-8, 8)", "wide(-4, 2)", "normal(0, 1)"},
    {"large mean 8x1024", 8, 1024, "near(1000, 1)", "normal(1, 0.1)", "normal(0, 0.1)"},
    {"ragged 12x77", 12, 77, "normal(0, 2)", "normal(1, 0.5)", "normal(0, 1)"},
    {"constant 4x512", 4, 512, "const(3.5)", "normal(1, 0.1)", "normal(0, 1)"},
    {"special 8x256", 8, 256, "special", "special", "special"},
    {"long 2x8192", 2, 8192, "normal(0, 1)", "normal(1, 0.1)", "normal(0, 0.1)"},
};

static tp_value *fwd_model(void)
{
    return model_of(json_pack("{s:s,s:s,s:s,s:s,s:{s:s},s:{s:i}}", "arithmetic", "fp32", "order", "any", "fma", "any",
                     "output_rounding", "nearest", "constants", "eps", "1e-5f", "rsqrtf_ulp", "cuda", 2));
}

/* Runs the forward emulation with the given choices over one input set;
 * returns the number of elements outside (all three outputs), -1 on error. */
static int64_t fwd_run(const fwd_input *in, uint64_t seed, int order, int fma, int ulp, int welford, int mutant)
{
    const tp_op *op = tp_op_find("layernorm_fwd");
    int R = in->rows, C = in->cols;
    uint16_t *x16 = fill((int64_t)R * C, in->x, seed, "x"), *g16 = fill(C, in->g, seed, "gamma"),
             *b16 = fill(C, in->b, seed, "beta");
    uint16_t *y = malloc((size_t)R * C * 2);
    float *mean = malloc((size_t)R * 4), *rstd = malloc((size_t)R * 4), *xf = malloc((size_t)C * 4),
          *gf = malloc((size_t)C * 4), *bf = malloc((size_t)C * 4);
    for (int j = 0; j < C; j++)
        gf[j] = h2f(g16[j]), bf[j] = h2f(b16[j]);
    for (int r = 0; r < R; r++) {
        for (int j = 0; j < C; j++)
            xf[j] = h2f(x16[(size_t)r * C + j]);
        fwd_row(C, xf, gf, bf, order, fma, ulp, welford, mutant, y + (size_t)r * C, &mean[r], &rstd[r]);
    }
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = in->name;
    c.backend = "cuda";
    case_add_tensor(&c, "x", TP_F16, 2, R, C, x16, 0);
    case_add_tensor(&c, "gamma", TP_F16, 1, C, 0, g16, 0);
    case_add_tensor(&c, "beta", TP_F16, 1, C, 0, b16, 0);
    case_add_tensor(&c, "y", TP_F16, 2, R, C, y, 1);
    case_add_tensor(&c, "mean", TP_F32, 1, R, 0, mean, 1);
    case_add_tensor(&c, "rstd", TP_F32, 1, R, 0, rstd, 1);
    tp_value *model = fwd_model();
    int err = 0;
    int64_t bad = outside(op, model, &c, "y", (int64_t)R * C, 0, y, &err);
    bad += outside(op, model, &c, "mean", R, 1, mean, &err);
    bad += outside(op, model, &c, "rstd", R, 1, rstd, &err);
    tp_value_free(model);
    free(x16), free(g16), free(b16), free(y), free(mean), free(rstd), free(xf), free(gf), free(bf);
    return err ? -1 : bad;
}

/* ---- exact sums and statistics vs MPFR ------------------------------------ */

static void test_exact(void)
{
    const char *fills[] = {"normal(0, 1)", "wide(-14, 14)", "special", "near(1000, 1)"};
    int ok_sum = 1, ok_dot = 1, ok_col = 1, ok_stats = 1;
    mpfr_t e, t, h;
    mpfr_inits2(512, e, t, h, (mpfr_ptr)0);
    for (int f = 0; f < 4; f++) {
        int n = 8192, R = 64, C = 128;
        uint16_t *a16 = fill(n, fills[f], 40 + f, "a"), *b16 = fill(n, fills[(f + 1) % 4], 50 + f, "b");
        float *a = malloc(n * 4), *b = malloc(n * 4);
        for (int j = 0; j < n; j++)
            a[j] = h2f(a16[j]), b[j] = h2f(b16[j]);
        double hi, lo;
        /* row sum: all n and a ragged prefix */
        for (int len = 77; len <= n; len = len == 77 ? n : n + 1) {
            tp_ln_row_sum(len, a, &hi, &lo);
            mpfr_set_zero(e, 1);
            for (int j = 0; j < len; j++)
                mpfr_add_d(e, e, a[j], MPFR_RNDN); /* exact at 512 bits */
            mpfr_set_d(h, hi, MPFR_RNDN);
            mpfr_add_d(h, h, lo, MPFR_RNDN);
            ok_sum &= mpfr_equal_p(e, h) != 0;
            tp_ln_row_dot(len, a, b, &hi, &lo);
            mpfr_set_zero(e, 1);
            for (int j = 0; j < len; j++) {
                mpfr_set_d(t, a[j], MPFR_RNDN);
                mpfr_mul_d(t, t, b[j], MPFR_RNDN);
                mpfr_add(e, e, t, MPFR_RNDN);
            }
            mpfr_set_d(h, hi, MPFR_RNDN);
            mpfr_add_d(h, h, lo, MPFR_RNDN);
            ok_dot &= mpfr_equal_p(e, h) != 0;
        }
        double chi[128], clo[128];
        tp_ln_col_sums(R, C, a, chi, clo);
        for (int c = 0; c < C; c++) {
            mpfr_set_zero(e, 1);
            for (int r = 0; r < R; r++)
                mpfr_add_d(e, e, a[r * C + c], MPFR_RNDN);
            mpfr_set_d(h, chi[c], MPFR_RNDN);
            mpfr_add_d(h, h, clo[c], MPFR_RNDN);
            ok_col &= mpfr_equal_p(e, h) != 0;
        }
        /* statistics of 1024-element rows: mu and rho at 512 bits inside the MPFI enclosures */
        for (int r = 0; r < 8; r++) {
            const float *x = a + r * 1024;
            mpfi_t mu, rho;
            mpfi_init2(mu, TP_LN_PREC);
            mpfi_init2(rho, TP_LN_PREC);
            tp_ln_row_stats(1024, x, EPS, 2, NULL, NULL, mu, rho);
            mpfr_set_zero(e, 1);
            for (int j = 0; j < 1024; j++)
                mpfr_add_d(e, e, x[j], MPFR_RNDN);
            mpfr_div_ui(e, e, 1024, MPFR_RNDN); /* exact: a power of two */
            ok_stats &= mpfi_is_inside_fr(e, mu) > 0;
            mpfr_set_zero(h, 1);
            for (int j = 0; j < 1024; j++) {
                mpfr_set_d(t, x[j], MPFR_RNDN);
                mpfr_sub(t, t, e, MPFR_RNDN);
                mpfr_sqr(t, t, MPFR_RNDN);
                mpfr_add(h, h, t, MPFR_RNDN);
            }
            mpfr_div_ui(h, h, 1024, MPFR_RNDN);
            mpfr_add_d(h, h, (double)EPS, MPFR_RNDN);
            mpfr_rec_sqrt(h, h, MPFR_RNDN);
            /* h is within 2^-500 relative of rho; the enclosure is far
             * wider than that only if it is wrong, so test the distance */
            mpfr_t m;
            mpfr_init2(m, 512);
            mpfi_mid(m, rho);
            mpfr_sub(m, m, h, MPFR_RNDN);
            mpfr_div(m, m, h, MPFR_RNDN);
            ok_stats &= mpfr_cmp_d(m, 0x1p-200) < 0 && mpfr_cmp_d(m, -0x1p-200) > 0;
            mpfr_clear(m);
            mpfi_clear(mu);
            mpfi_clear(rho);
        }
        free(a16), free(b16), free(a), free(b);
    }
    mpfr_clears(e, t, h, (mpfr_ptr)0);
    tap_ok(ok_sum, "tp_ln_row_sum equals MPFR's exact sum (normal, wide, special, near 1000; 77 and 8192 terms)");
    tap_ok(ok_dot, "tp_ln_row_dot equals MPFR's exact dot product");
    tap_ok(ok_col, "tp_ln_col_sums equals MPFR's exact column sums (64x128)");
    tap_ok(ok_stats, "mean and rstd enclosures agree with a 512-bit MPFR evaluation");
}

static void test_fwd(void)
{
    int nin = (int)(sizeof fwd_inputs / sizeof fwd_inputs[0]);
    for (int i = 0; i < nin; i++) {
        int64_t worst = 0;
        for (int o = 0; o < O_COUNT; o++)
            for (int fma = 0; fma < 2; fma++)
                for (int ulp = -2; ulp <= 2; ulp += 2) {
                    int64_t b = fwd_run(&fwd_inputs[i], 100 + i, o, fma, ulp, 0, M_NONE);
                    if (b != 0 && worst == 0)
                        tap_diag("order %s, fma %d, rsqrtf %+d ulp: %lld outside", order_name[o], fma, ulp,
                                 (long long)b);
                    if (b != 0)
                        worst = b;
                }
        tap_ok(worst == 0, "forward, %s: 6 orders x fused/unfused x rsqrtf -2/0/+2 ulp never leave y, mean, rstd",
               fwd_inputs[i].name);
        int64_t w = fwd_run(&fwd_inputs[i], 100 + i, O_SEQ, 1, 0, 1, M_NONE);
        tap_ok(w == 0, "forward, %s: a Welford kernel (differently correct) passes", fwd_inputs[i].name);
    }
    const char *mn[] = {"", "mean and rstd swapped", "eps = 1e-3f", "unbiased variance"};
    for (int m = M_SWAP; m <= M_UNBIASED; m++) {
        int64_t caught = 0;
        for (int i = 0; i < nin; i++)
            caught += fwd_run(&fwd_inputs[i], 100 + i, O_TREE32, 1, 0, 0, m) > 0;
        tap_ok(caught > 0, "forward: planted error '%s' is caught (%lld of %d inputs)", mn[m], (long long)caught, nin);
    }
}

/* ---- grad_input ------------------------------------------------------------ */

/* One row of the grad_input kernel: statistics m, s as the kernel holds them. */
static void bwd_row(int n, const float *x, const float *dy, const float *g, float m, float s, int order, int fma,
                    int drop, uint16_t *dx)
{
    float xh[NMAX], dxh[NMAX];
    for (int j = 0; j < n; j++) {
        xh[j] = (x[j] - m) * s;
        dxh[j] = dy[j] * g[j];
    }
    float s1 = drop ? 0.0f : osum(n, dxh, NULL, order, 0), s2 = osum(n, dxh, xh, order, fma);
    float k = s / (float)n, nf = (float)n;
    for (int j = 0; j < n; j++) {
        float v = fma ? fmaf(-xh[j], s2, fmaf(nf, dxh[j], -s1)) : (nf * dxh[j] - s1) - xh[j] * s2;
        dx[j] = tp_f16_from_float(k * v);
    }
}

typedef struct {
    const char *name;
    int rows, cols;
    const char *x, *dy, *g, *m, *s;
    int pilot_ok; /* x has known statistics; mean/rstd are their fp16 roundings */
} bwd_input;

static const bwd_input bwd_inputs[] = {
    {"normal 16x1024", 16, 1024, "normal(0, 1)", "normal(0, 1)", "normal(1, 0.1)", "normal(0, 0.1)", "uniform(0.5, 2)", 0},
    {"ragged 12x77", 12, 77, "normal(0, 2)", "normal(0, 1)", "normal(1, 0.5)", "normal(0, 1)", "uniform(0.25, 4)", 0},
    {"large mean 8x1024", 8, 1024, "near(1000, 1)", "normal(0, 1)", "normal(1, 0.1)", "near(1000, 0.5)", "uniform(1, 3)", 0},
    {"wide 8x512", 8, 512, "wide(-8, 6)", "wide(-12, 2)", "normal(1, 0.5)", "normal(0, 1)", "uniform(0.25, 4)", 0},
    {"special 8x256", 8, 256, "special", "special", "special", "const(0)", "uniform(0.5, 2)", 0},
    {"pm3 16x1024", 16, 1024, "antimirror(0, const(3), 0)", "normal(0, 1)", "normal(1, 0.1)", "const(0)",
     "const(0.333251953125)", 1},
};

static tp_value *bwd_model(int pilot)
{
    json_t *m = json_pack("{s:s,s:s,s:s,s:s,s:s}", "arithmetic", "fp32", "order", "any", "fma", "any",
                          "output_rounding", "nearest", "statistics", pilot ? "fp32_forward" : "inputs");
    if (pilot) {
        json_object_set_new(m, "forward_eps", json_string("1e-5f"));
        json_object_set_new(m, "forward_rsqrtf_ulp", json_pack("{s:i}", "cuda", 2));
    }
    return model_of(m);
}

/* stats: 0 the kernel's fp16 inputs, 1 fp32 statistics from the forward
 * emulation (what the pilot oracle assumed the kernel held). */
static int64_t bwd_run(const bwd_input *in, uint64_t seed, int order, int fma, int drop, int swap, int stats, int pilot)
{
    const tp_op *op = tp_op_find("layernorm_bwd_input");
    int R = in->rows, C = in->cols;
    /* antimirror along the row: fill rows one at a time (a 1-D fill per row) */
    uint16_t *x16 = malloc((size_t)R * C * 2), *dy16 = fill((int64_t)R * C, in->dy, seed, "dy"),
             *g16 = fill(C, in->g, seed, "gamma"), *m16 = fill(R, in->m, seed, "mean"), *s16 = fill(R, in->s, seed, "rstd");
    for (int r = 0; r < R; r++) {
        uint16_t *row = fill(C, in->x, seed + 1000 * r, "x");
        memcpy(x16 + (size_t)r * C, row, (size_t)C * 2);
        free(row);
    }
    uint16_t *dx = malloc((size_t)R * C * 2);
    float x[NMAX], dy[NMAX], g[NMAX], ones[NMAX], zeros[NMAX];
    for (int j = 0; j < C; j++)
        g[j] = h2f(g16[j]), ones[j] = 1.0f, zeros[j] = 0.0f;
    for (int r = 0; r < R; r++) {
        for (int j = 0; j < C; j++)
            x[j] = h2f(x16[(size_t)r * C + j]), dy[j] = h2f(dy16[(size_t)r * C + j]);
        float m = h2f(swap ? s16[r] : m16[r]), s = h2f(swap ? m16[r] : s16[r]);
        if (stats) {
            uint16_t yy[NMAX];
            fwd_row(C, x, ones, zeros, O_TREE32, 1, 0, 0, M_NONE, yy, &m, &s);
        }
        bwd_row(C, x, dy, g, m, s, order, fma, drop, dx + (size_t)r * C);
    }
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = in->name;
    c.backend = "cuda";
    case_add_tensor(&c, "x", TP_F16, 2, R, C, x16, 0);
    case_add_tensor(&c, "dy", TP_F16, 2, R, C, dy16, 0);
    case_add_tensor(&c, "gamma", TP_F16, 1, C, 0, g16, 0);
    case_add_tensor(&c, "mean", TP_F16, 1, R, 0, m16, 0);
    case_add_tensor(&c, "rstd", TP_F16, 1, R, 0, s16, 0);
    case_add_tensor(&c, "dx", TP_F16, 2, R, C, dx, 1);
    tp_value *model = bwd_model(pilot);
    int err = 0;
    int64_t bad = outside(op, model, &c, "dx", (int64_t)R * C, 0, dx, &err);
    tp_value_free(model);
    free(x16), free(dy16), free(g16), free(m16), free(s16), free(dx);
    return err ? -1 : bad;
}

static void test_bwd(void)
{
    int nin = (int)(sizeof bwd_inputs / sizeof bwd_inputs[0]);
    for (int i = 0; i < nin; i++) {
        int64_t worst = 0;
        for (int o = 0; o < O_COUNT; o++)
            for (int fma = 0; fma < 2; fma++) {
                int64_t b = bwd_run(&bwd_inputs[i], 200 + i, o, fma, 0, 0, 0, 0);
                if (b != 0 && worst == 0)
                    tap_diag("order %s, fma %d: %lld outside", order_name[o], fma, (long long)b);
                if (b != 0)
                    worst = b;
            }
        tap_ok(worst == 0, "grad_input (statistics = inputs), %s: 6 orders x fused/unfused never leave dx",
               bwd_inputs[i].name);
    }
    int64_t c1 = 0, c2 = 0;
    for (int i = 0; i < nin; i++) {
        c1 += bwd_run(&bwd_inputs[i], 200 + i, O_TREE32, 1, 1, 0, 0, 0) > 0;
        c2 += bwd_run(&bwd_inputs[i], 200 + i, O_TREE32, 1, 0, 1, 0, 0) > 0;
    }
    tap_ok(c1 > 0, "grad_input: planted error 'sum(dxh) dropped' is caught (%lld of %d inputs)", (long long)c1, nin);
    tap_ok(c2 > 0, "grad_input: planted error 'mean and rstd swapped' is caught (%lld of %d inputs)", (long long)c2, nin);
    const bwd_input *pm = &bwd_inputs[nin - 1];
    int64_t p_ok = 0;
    for (int o = 0; o < O_COUNT; o++)
        for (int fma = 0; fma < 2; fma++)
            p_ok |= bwd_run(pm, 300, o, fma, 0, 0, 1, 1);
    tap_ok(p_ok == 0, "grad_input (statistics = fp32_forward), %s: a kernel holding fp32 statistics passes the pilot's "
           "contract under every order and fusion", pm->name);
    int64_t p_bad = bwd_run(pm, 300, O_TREE32, 1, 0, 0, 0, 1);
    tap_ok(p_bad > 0, "grad_input (statistics = fp32_forward), %s: the kernel's real fp16 path violates the pilot's "
           "contract (%lld elements)", pm->name, (long long)p_bad);
    int64_t p_in = bwd_run(pm, 300, O_TREE32, 1, 0, 0, 0, 0);
    tap_ok(p_in == 0, "grad_input (statistics = inputs), %s: the same kernel meets its real-path contract", pm->name);
    int64_t refused = bwd_run(&bwd_inputs[0], 200, O_TREE32, 1, 0, 0, 0, 1);
    tap_ok(refused < 0, "grad_input (statistics = fp32_forward): statistics that are not roundings of x's are refused");
}

/* ---- grad_gamma / grad_beta ---------------------------------------------- */

/* Binary32 statistics (issue 11 item 4): mean and rstd drawn as fp32 over
 * many binades, so that x - mean is often not a double. */
static float *fill32(int64_t n, const char *f, uint64_t seed, const char *name)
{
    float *v = malloc((size_t)n * sizeof *v);
    int64_t shape[1] = {n};
    char err[200];
    if (tp_fill_f32(v, 1, shape, f, seed, name, err, sizeof err) != 0) {
        fprintf(stderr, "fill %s: %s\n", f, err);
        exit(2);
    }
    return v;
}

/* The exact dgamma of column c at 2048 bits, each term computed directly
 * (an independent path: no error-free transformations). */
static double params_exact_dgamma(int R, int C, int c, const uint16_t *x16, const uint16_t *dy16, const float *m,
                                  const float *s)
{
    mpfr_t sum, t;
    mpfr_inits2(2048, sum, t, (mpfr_ptr)0);
    mpfr_set_ui(sum, 0, MPFR_RNDN);
    for (int r = 0; r < R; r++) {
        const size_t i = (size_t)r * C + c;
        mpfr_set_d(t, h2f(x16[i]), MPFR_RNDN);
        mpfr_sub_d(t, t, m[r], MPFR_RNDN);
        mpfr_mul_d(t, t, s[r], MPFR_RNDN);
        mpfr_mul_d(t, t, h2f(dy16[i]), MPFR_RNDN);
        mpfr_add(sum, sum, t, MPFR_RNDN);
    }
    const double d = mpfr_get_d(sum, MPFR_RNDN);
    mpfr_clears(sum, t, (mpfr_ptr)0);
    return d;
}

typedef struct {
    const char *mean, *rstd; /* fills; NULL: binary16 statistics */
} params_stats;

/* Elements outside the admitted sets (-1: an error); with exact_bad, the
 * number of dgamma columns whose exact value differs from
 * params_exact_dgamma's. */
static int64_t params_run_stats(int R, int C, const char *xf, const char *dyf, uint64_t seed, int order, int fma,
                                int mutant, const params_stats *st, int64_t *exact_bad)
{
    const tp_op *op = tp_op_find("layernorm_bwd_params");
    uint16_t *x16 = fill((int64_t)R * C, xf, seed, "x"), *dy16 = fill((int64_t)R * C, dyf, seed, "dy");
    uint16_t *m16 = NULL, *s16 = NULL;
    float *m = malloc((size_t)R * 4), *sv = malloc((size_t)R * 4);
    if (st) {
        free(m), free(sv);
        m = fill32(R, st->mean, seed, "mean");
        sv = fill32(R, st->rstd, seed, "rstd");
    } else {
        m16 = fill(R, "normal(0, 0.1)", seed, "mean");
        s16 = fill(R, "uniform(0.5, 2)", seed, "rstd");
        for (int r = 0; r < R; r++)
            m[r] = h2f(m16[r]), sv[r] = h2f(s16[r]);
    }
    float *dg = malloc((size_t)C * 4), *db = malloc((size_t)C * 4), *xh = malloc((size_t)R * 4),
          *dyc = malloc((size_t)R * 4);
    for (int c = 0; c < C; c++) {
        for (int r = 0; r < R; r++) {
            size_t i = (size_t)r * C + c;
            xh[r] = h2f(x16[i]) - m[r];
            if (mutant != 1)
                xh[r] = xh[r] * sv[r];
            dyc[r] = h2f(dy16[i]);
        }
        int n = mutant == 2 ? R - 1 : R;
        dg[c] = osum(n, xh, dyc, order, fma);
        db[c] = osum(n, dyc, NULL, order, 0);
    }
    tp_case cs;
    memset(&cs, 0, sizeof cs);
    cs.name = "params";
    cs.backend = "cuda";
    case_add_tensor(&cs, "x", TP_F16, 2, R, C, x16, 0);
    case_add_tensor(&cs, "dy", TP_F16, 2, R, C, dy16, 0);
    case_add_tensor(&cs, "mean", st ? TP_F32 : TP_F16, 1, R, 0, st ? (void *)m : (void *)m16, 0);
    case_add_tensor(&cs, "rstd", st ? TP_F32 : TP_F16, 1, R, 0, st ? (void *)sv : (void *)s16, 0);
    case_add_tensor(&cs, "dgamma", TP_F32, 1, C, 0, dg, 1);
    case_add_tensor(&cs, "dbeta", TP_F32, 1, C, 0, db, 1);
    tp_value *model = model_of(json_pack("{s:s,s:s,s:s,s:s}", "arithmetic", "fp32", "order", "any", "fma", "any",
                              "output_rounding", "none"));
    int err = 0;
    int64_t bad = outside(op, model, &cs, "dgamma", C, 1, dg, &err) + outside(op, model, &cs, "dbeta", C, 1, db, &err);
    if (exact_bad) {
        *exact_bad = 0;
        tp_ref *ref = malloc((size_t)C * sizeof *ref);
        char e[600];
        if (op->reference(model, &cs, "dgamma", ref, e, sizeof e) != 0)
            *exact_bad = C;
        else
            for (int c = 0; c < C; c++)
                *exact_bad += ref[c].exact != params_exact_dgamma(R, C, c, x16, dy16, m, sv);
        free(ref);
    }
    tp_value_free(model);
    free(x16), free(dy16), free(m16), free(s16), free(m), free(sv), free(dg), free(db), free(xh), free(dyc);
    return err ? -1 : bad;
}

static int64_t params_run(int R, int C, const char *xf, const char *dyf, uint64_t seed, int order, int fma, int mutant)
{
    return params_run_stats(R, C, xf, dyf, seed, order, fma, mutant, NULL, NULL);
}

static void test_params(void)
{
    const char *xs[] = {"normal(0, 1)", "wide(-8, 8)", "special"},
               *dys[] = {"normal(0, 1)", "antimirror(0, normal(0, 4), 0.01)", "special"};
    int64_t worst = 0;
    for (int f = 0; f < 3; f++)
        for (int o = 0; o < O_COUNT; o++)
            for (int fma = 0; fma < 2; fma++) {
                int64_t b = params_run(1000, 24, xs[f], dys[f], 400 + f, o, fma, 0);
                if (b != 0 && worst == 0)
                    tap_diag("input %d, order %s, fma %d: %lld outside", f, order_name[o], fma, (long long)b);
                if (b != 0)
                    worst = b;
            }
    tap_ok(worst == 0, "grad_gamma/grad_beta: 3 input sets x 6 orders x fused/unfused never leave the intervals");
    tap_ok(params_run(1000, 24, xs[0], dys[0], 400, O_TREE32, 1, 1) > 0, "grad_gamma: planted error 'rstd missing' is caught");
    tap_ok(params_run(1000, 24, xs[0], dys[0], 400, O_TREE32, 1, 2) > 0, "grad_gamma/beta: planted error 'last row dropped' is caught");

    /* binary32 statistics: the pilot's fp32 mean and rstd. Tiny means
     * make x - mean need more than 53 bits (the MPFR term path); means up
     * to 2^60 with rstd down to 2^-60 make terms span more than 256 bits
     * in a column (the 640-bit path). */
    const params_stats stats[] = {{"normal(0, 0.1)", "uniform(0.5, 2)"},
                                  {"wide(-40, 3)", "wide(-2, 9)"},
                                  {"wide(-120, 60)", "wide(-60, 8)"}};
    const char *stats_names[] = {"normal", "binades 2^-40..2^3", "binades 2^-120..2^60"};
    for (int k = 0; k < 3; k++) {
        int64_t worst32 = 0, exact_bad = 0;
        for (int o = 0; o < O_COUNT; o++)
            for (int fma = 0; fma < 2; fma++) {
                int64_t eb = 0, b = params_run_stats(600, 16, xs[k == 0 ? 0 : 1], dys[0], 500 + k, o, fma, 0,
                                                     &stats[k], o == 0 && fma == 0 ? &eb : NULL);
                exact_bad += eb;
                if (b != 0 && worst32 == 0)
                    tap_diag("fp32 statistics %s, order %s, fma %d: %lld outside", stats_names[k], order_name[o], fma,
                             (long long)b);
                if (b != 0)
                    worst32 = b;
            }
        tap_ok(worst32 == 0 && exact_bad == 0,
               "grad_gamma/grad_beta, fp32 statistics %s: 6 orders x fused/unfused never leave the intervals, and the "
               "exact dgamma equals a 2048-bit MPFR sum in every column (%lld differ)",
               stats_names[k], (long long)exact_bad);
    }
    int64_t eb = 0;
    tap_ok(params_run_stats(600, 16, xs[0], dys[0], 510, O_TREE32, 1, 1, &stats[1], &eb) > 0,
           "grad_gamma, fp32 statistics: planted error 'rstd missing' is caught");
    /* statistics whose fp32 arithmetic overflows: refused, never judged */
    const params_stats over_xh = {"const(3e38)", "const(4)"}, over_sum = {"const(1e36)", "const(100)"};
    tap_ok(params_run_stats(600, 16, xs[0], dys[0], 511, O_TREE32, 1, 0, &over_xh, NULL) < 0,
           "grad_gamma/grad_beta, fp32 statistics: xh = (x - mean) rstd overflowing binary32 is refused");
    tap_ok(params_run_stats(600, 16, xs[0], dys[0], 512, O_TREE32, 1, 0, &over_sum, NULL) < 0,
           "grad_gamma/grad_beta, fp32 statistics: a column whose sum bound reaches binary32 overflow is refused");
}

/* tp_ln_sum_model_exact (the proven any-order sum bound, from the exact
 * sum) against tp_ln_sum_model (the same bound in directed rounding): on
 * exact sums of binary16 values, the fp32 interval is never narrower, and
 * at most one fp32 step wider at each end (the proven widening). */
static void test_sum_model_exact(void)
{
    mpfr_t S;
    mpfr_init2(S, 256);
    uint64_t r = 0x9e3779b97f4a7c15u;
    long narrower = 0, wider = 0, same = 0;
    for (int k = 0; k < 20000; k++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        const int n = 1 + (int)(r % 65536);
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        /* a multiple of 2^-24 below 2^40: a sum of n binary16 values */
        const double v = ldexp((double)(int64_t)(r % (1ull << 60)) - 0x1p59, -24 - k % 30);
        mpfr_set_d(S, v, MPFR_RNDN);
        const double absum = fabs(v) * (1.0 + (double)(k % 7));
        const tp_ln_fint a = tp_ln_sum_model_exact(S, absum, n);
        const tp_ln_fint b = tp_ln_sum_model(mpfr_get_d(S, MPFR_RNDD), mpfr_get_d(S, MPFR_RNDU), absum, n, 0);
        if (a.lo > b.lo || a.hi < b.hi)
            narrower++;
        else if (a.lo < nextafterf(b.lo, -INFINITY) || a.hi > nextafterf(b.hi, INFINITY))
            wider++;
        else
            same += a.lo == b.lo && a.hi == b.hi;
    }
    mpfr_clear(S);
    tap_ok(narrower == 0 && wider == 0,
           "tp_ln_sum_model_exact holds tp_ln_sum_model's interval, at most one fp32 step wider per end, on 20000 "
           "exact sums (%ld identical; %ld narrower, %ld wider)",
           same, narrower, wider);
}

int main(void)
{
    test_sum_model_exact();
    test_exact();
    test_fwd();
    test_bwd();
    test_params();
    return tap_done();
}
