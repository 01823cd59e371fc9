/* The exact sums and bounds of LayerNorm and embedding at the lengths of
 * issue 10 (cols <= 65536, parameter rows <= 1048576, embedding n <=
 * 1048576):
 *  - the chunked exact sums (oracles/layernorm/layernorm_exact.c,
 *    oracles/embedding/embedding_exact.c) equal MPFR's exact sums at the
 *    limits, on normal, wide, special and extreme (+-65504, all of one
 *    sign: the largest magnitudes) binary16 values, and one chunk equals
 *    the proven routine's own result;
 *  - above the limits the sums and the ops refuse, naming the limit;
 *  - emulated correct kernels at the limits (several orders, fused or
 *    not) stay inside the admitted sets, and the half bound still catches
 *    a worst-case-like order at 2^20 terms (the sum-bound constant of
 *    oracles/common/sum_bound.h for more than 65536 terms).
 * Build with -ffp-contract=off: the emulations round where C says. */
#include "oracles/layernorm/layernorm_exact.h"
#include "oracles/layernorm/proven/layernorm.h"
#include "oracles/embedding/embedding_exact.h"
#include "oracles/common/sum_bound.h"
#include "tests/half_bound.h"
#include "tests/case_tensor.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"
#include "core/tp_rng.h"

#include <jansson.h>
#include <mpfr.h>

static uint16_t *fill(int64_t n, const char *f, uint64_t seed)
{
    uint16_t *h = malloc((size_t)n * 2);
    int64_t shape[1] = {n};
    char err[200];
    if (!h || tp_fill_f16(h, 1, shape, f, seed, "a", err, sizeof err) != 0) {
        fprintf(stderr, "fill %s: %s\n", f, err);
        exit(2);
    }
    return h;
}

static float h2f(uint16_t h) { return (float)tp_f16_to_double(h); }

static const char *const fills[] = {"normal(0, 1)", "wide(-14, 14)", "special", "const(65504)", "const(-65504)"};
enum { NFILL = 5 };

/* ---- LayerNorm row sums and dots at 65536 terms --------------------------- */

static void test_rows(void)
{
    const int n = TP_LN_COLS_MAX;
    int ok_sum = 1, ok_dot = 1, ok_one = 1;
    mpfr_t e, t, got;
    mpfr_inits2(512, e, t, (mpfr_ptr)0);
    mpfr_init2(got, TP_LN_EXACT_PREC);
    for (int f = 0; f < NFILL; f++) {
        uint16_t *a16 = fill(n, fills[f], 60 + f), *b16 = fill(n, fills[(f + 1) % NFILL], 70 + f);
        float *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
        for (int j = 0; j < n; j++)
            a[j] = h2f(a16[j]), b[j] = h2f(b16[j]);
        const int lens[] = {n, n - 77, 3 * TP_LN_N_MAX + 5};
        for (int l = 0; l < 3; l++) {
            const int len = lens[l];
            mpfr_set_zero(e, 1);
            for (int j = 0; j < len; j++)
                mpfr_add_d(e, e, a[j], MPFR_RNDN); /* exact at 512 bits */
            ok_sum &= tp_ln_row_sum_exact(len, a, NULL, got) == 0 && mpfr_equal_p(e, got);
            mpfr_set_zero(e, 1);
            for (int j = 0; j < len; j++) {
                mpfr_set_d(t, a[j], MPFR_RNDN);
                mpfr_mul_d(t, t, b[j], MPFR_RNDN);
                mpfr_add(e, e, t, MPFR_RNDN);
            }
            ok_dot &= tp_ln_row_sum_exact(len, a, b, got) == 0 && mpfr_equal_p(e, got);
        }
        /* one chunk: the proven routine's hi + lo */
        double hi, lo;
        tp_ln_row_dot(TP_LN_N_MAX, a, b, &hi, &lo);
        mpfr_set_d(e, hi, MPFR_RNDN);
        mpfr_add_d(e, e, lo, MPFR_RNDN);
        ok_one &= tp_ln_row_sum_exact(TP_LN_N_MAX, a, b, got) == 0 && mpfr_equal_p(e, got);
        free(a16), free(b16), free(a), free(b);
    }
    tap_ok(ok_sum, "row sums of 65536, 65459 and 24581 terms equal MPFR's exact sums (normal, wide, special, "
                   "+65504, -65504)");
    tap_ok(ok_dot, "row dot products of 65536, 65459 and 24581 terms equal MPFR's exact sums (products up to 65504^2)");
    tap_ok(ok_one, "a row of 8192 terms is one chunk: the proven tp_ln_row_dot's hi + lo");
    float z[4] = {0};
    mpfr_t small;
    mpfr_init2(small, 64);
    tap_ok(tp_ln_row_sum_exact(TP_LN_COLS_MAX + 1, z, NULL, got) == -1 && tp_ln_row_sum_exact(4, z, NULL, small) == -1,
           "a row of 65537 terms, or an output of 64 bits, is refused");
    mpfr_clears(e, t, got, small, (mpfr_ptr)0);
}

/* ---- LayerNorm column sums at 2^20 rows ----------------------------------- */

static void test_cols(void)
{
    const int R = TP_LN_ROWS_MAX, C = NFILL;
    float *a = malloc((size_t)R * C * 4);
    for (int c = 0; c < C; c++) {
        uint16_t *h = fill(R, fills[c], 80 + c);
        for (int r = 0; r < R; r++)
            a[(size_t)r * C + c] = h2f(h[r]);
        free(h);
    }
    int64_t fix[NFILL];
    int ok = tp_ln_col_sums_fix(R, C, a, fix) == 0;
    mpfr_t e, g;
    mpfr_inits2(256, e, g, (mpfr_ptr)0);
    for (int c = 0; ok && c < C; c++) {
        mpfr_set_zero(e, 1);
        for (int r = 0; r < R; r++)
            mpfr_add_d(e, e, a[(size_t)r * C + c], MPFR_RNDN);
        mpfr_mul_2si(e, e, 24, MPFR_RNDN);
        mpfr_set_si(g, (long)fix[c], MPFR_RNDN); /* long is 64 bits here */
        ok &= mpfr_equal_p(e, g);
    }
    tap_ok(ok, "column sums of 2^20 rows (int64 at scale 2^24) equal MPFR's exact sums, +-65504 * 2^20 included");
    const int64_t want = (int64_t)65504 * R * (1 << 24);
    tap_ok(fix[3] == want && fix[4] == -want, "2^20 x 65504: 2^24 * sum = %lld, the largest magnitude, exact",
           (long long)fix[3]);
    tap_ok(tp_ln_col_sums_fix(R + 1, 1, a, fix) == -1, "a column of 1048577 rows is refused");
    mpfr_clears(e, g, (mpfr_ptr)0);
    free(a);
}

/* ---- embedding scatter at n = 2^20, V = 262144 ------------------------------ */

static int scatter_vs_mpfr(int n, int V, int D, int same, const char *vals, uint64_t seed)
{
    int *idx = malloc((size_t)n * sizeof *idx);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        idx[i] = same ? 1 : (int)(s % (uint64_t)(V + 2)) - 1; /* -1 and V: no row */
    }
    uint16_t *h = fill((int64_t)n * D, vals, seed);
    float *g = malloc((size_t)n * D * 4);
    for (int64_t k = 0; k < (int64_t)n * D; k++)
        g[k] = h2f(h[k]);
    int64_t *S = malloc((size_t)V * D * sizeof *S);
    int bad = tp_embedding_scatter_fix(n, V, D, idx, g, S) != 0;
    /* MPFR sums per row, in query order */
    mpfr_t *e = malloc((size_t)V * D * sizeof *e);
    for (int64_t k = 0; k < (int64_t)V * D; k++) {
        mpfr_init2(e[k], 128); /* 2^60 / 2^-24: 84 bits at most */
        mpfr_set_zero(e[k], 1);
    }
    for (int i = 0; i < n; i++)
        if (idx[i] >= 0 && idx[i] < V)
            for (int d = 0; d < D; d++)
                bad |= mpfr_add_d(e[(size_t)idx[i] * D + d], e[(size_t)idx[i] * D + d], g[(size_t)i * D + d],
                                  MPFR_RNDN) != 0;
    for (int64_t k = 0; k < (int64_t)V * D; k++) {
        mpfr_mul_2si(e[k], e[k], 24, MPFR_RNDN);
        bad |= mpfr_cmp_si(e[k], (long)S[k]) != 0;
        mpfr_clear(e[k]);
    }
    free(e), free(idx), free(h), free(g), free(S);
    return bad;
}

static void test_scatter(void)
{
    const int n = TP_EMBEDDING_N_MAX;
    tap_ok(scatter_vs_mpfr(n, 262144, 2, 0, "normal(0, 1)", 1) == 0,
           "scatter of 2^20 queries over 262144 rows (indices -1 and V included) equals MPFR's exact sums");
    tap_ok(scatter_vs_mpfr(n, 4, 2, 1, "special", 2) == 0 && scatter_vs_mpfr(n, 4, 2, 1, "const(65504)", 3) == 0 &&
               scatter_vs_mpfr(n, 4, 2, 1, "const(-65504)", 4) == 0,
           "scatter of 2^20 queries into one row (special, +65504, -65504) equals MPFR's exact sums");
    int idx[2] = {0, 0};
    float g[2] = {0};
    int64_t S[2];
    tap_ok(tp_embedding_scatter_fix(n + 1, 1, 1, idx, g, S) == -1, "a scatter of 1048577 queries is refused");
}

/* ---- the ops refuse above the limits, naming them --------------------------- */

static void refusal(const char *opname, tp_value *model, tp_case *c, const char *out, const char *limit)
{
    const tp_op *op = tp_op_find(opname);
    const tp_tensor *o = tp_case_tensor(c, out);
    tp_ref *ref = malloc((size_t)o->numel * sizeof *ref);
    char err[512] = "";
    int rc = tp_op_reference(op, model, c, out, ref, err, sizeof err);
    tap_ok(rc != 0 && strstr(err, limit) != NULL, "%s refuses above its limit, naming it (%s): %s", opname, limit,
           err);
    free(ref);
    tp_value_free(model);
}

static void test_refusals(void)
{
    const int64_t n = TP_LN_COLS_MAX + 1, R = TP_LN_ROWS_MAX + 1, m = TP_EMBEDDING_N_MAX + 1;
    uint16_t *z = calloc((size_t)(R * 2), 2);
    float *f = calloc((size_t)(R * 2), 4);
    int32_t *iz = calloc((size_t)m, 4);
    tp_case c;
    hb_case_init(&c, "fwd");
    case_add_tensor(&c, "x", TP_F16, 2, 1, n, z, 0);
    case_add_tensor(&c, "gamma", TP_F16, 1, n, 0, z, 0);
    case_add_tensor(&c, "beta", TP_F16, 1, n, 0, z, 0);
    case_add_tensor(&c, "y", TP_F16, 2, 1, n, z, 1);
    refusal("layernorm_fwd",
            model_of(json_pack("{s:s,s:s,s:s,s:s,s:{s:s},s:{s:i}}", "arithmetic", "fp32", "order", "any", "fma",
                               "any", "output_rounding", "nearest", "constants", "eps", "1e-5f", "rsqrtf_ulp", "cuda",
                               2)),
            &c, "y", "cols <= 65536");
    hb_case_init(&c, "bwd_input");
    case_add_tensor(&c, "x", TP_F16, 2, 1, n, z, 0);
    case_add_tensor(&c, "dy", TP_F16, 2, 1, n, z, 0);
    case_add_tensor(&c, "gamma", TP_F16, 1, n, 0, z, 0);
    case_add_tensor(&c, "mean", TP_F16, 1, 1, 0, z, 0);
    case_add_tensor(&c, "rstd", TP_F16, 1, 1, 0, z, 0);
    case_add_tensor(&c, "dx", TP_F16, 2, 1, n, z, 1);
    refusal("layernorm_bwd_input",
            model_of(json_pack("{s:s,s:s,s:s,s:s,s:s}", "arithmetic", "fp32", "order", "any", "fma", "any",
                               "output_rounding", "nearest", "statistics", "inputs")),
            &c, "dx", "cols <= 65536");
    hb_case_init(&c, "params");
    case_add_tensor(&c, "x", TP_F16, 2, R, 1, z, 0);
    case_add_tensor(&c, "dy", TP_F16, 2, R, 1, z, 0);
    case_add_tensor(&c, "mean", TP_F16, 1, R, 0, z, 0);
    case_add_tensor(&c, "rstd", TP_F16, 1, R, 0, z, 0);
    case_add_tensor(&c, "dbeta", TP_F32, 1, 1, 0, f, 1);
    refusal("layernorm_bwd_params",
            model_of(json_pack("{s:s,s:s,s:s,s:s}", "arithmetic", "fp32", "order", "any", "fma", "any",
                               "output_rounding", "none")),
            &c, "dbeta", "rows <= 1048576");
    hb_case_init(&c, "embedding");
    case_add_tensor(&c, "idx", TP_I32, 1, m, 0, iz, 0);
    case_add_tensor(&c, "gout", TP_F16, 2, m, 1, z, 0);
    case_add_tensor(&c, "gW", TP_F16, 2, 1, 1, z + R, 1);
    refusal("embedding_bwd", model_of(json_pack("{s:s,s:s}", "accumulation", "fp16_per_step", "order", "any")), &c,
            "gW", "n <= 1048576");
    free(z), free(f), free(iz);
}

/* ---- emulated kernels and the half bound at 2^20 terms --------------------- */

/* layernorm_bwd_params with xh = 1 (x = 1, mean = 0, rstd = 1): row 0 of dy
 * is big[c], the other rows the smallest subnormal 2^-24 of its sign, or
 * (ties = 0) normal(0, 1) values. The kernel sums each column in row order
 * (ties: every small term is lost to round-to-even), pairwise, or with 8
 * interleaved accumulators. */
static float col_sum(const float *v, int n, int order)
{
    if (order == 1) { /* pairwise */
        if (n == 1)
            return v[0];
        return col_sum(v, n / 2, 1) + col_sum(v + n / 2, n - n / 2, 1);
    }
    if (order == 2) {
        float acc[8] = {0};
        for (int r = 0; r < n; r++)
            acc[r % 8] += v[r];
        for (int w = 4; w >= 1; w /= 2)
            for (int i = 0; i < w; i++)
                acc[i] += acc[i + w];
        return acc[0];
    }
    float s = 0.0f;
    for (int r = 0; r < n; r++)
        s += v[r];
    return s;
}

static void test_params_long(int ties, int order)
{
    enum { C = 2 };
    const int R = TP_LN_ROWS_MAX;
    static const uint16_t big[C] = {0x3c00, 0xbe00}; /* 1, -1.5 */
    uint16_t *x = malloc((size_t)R * C * 2), *dy = fill((int64_t)R * C, "normal(0, 1)", 90), *m = calloc(R, 2),
             *s = malloc((size_t)R * 2);
    float *col = malloc((size_t)R * 4), dgamma[C], dbeta[C];
    for (int r = 0; r < R; r++) {
        s[r] = 0x3c00;
        for (int c = 0; c < C; c++) {
            x[(size_t)r * C + c] = 0x3c00;
            if (ties)
                dy[(size_t)r * C + c] = r == 0 ? big[c] : (uint16_t)(0x0001 | (big[c] & 0x8000));
        }
    }
    for (int c = 0; c < C; c++) {
        for (int r = 0; r < R; r++) /* xh * dy = dy exactly */
            col[r] = h2f(dy[(size_t)r * C + c]);
        dgamma[c] = dbeta[c] = col_sum(col, R, order);
    }
    tp_case c;
    hb_case_init(&c, "half_bound_layernorm_bwd_params_2^20");
    case_add_tensor(&c, "x", TP_F16, 2, R, C, x, 0);
    case_add_tensor(&c, "dy", TP_F16, 2, R, C, dy, 0);
    case_add_tensor(&c, "mean", TP_F16, 1, R, 0, m, 0);
    case_add_tensor(&c, "rstd", TP_F16, 1, R, 0, s, 0);
    case_add_tensor(&c, "dgamma", TP_F32, 1, C, 0, dgamma, 1);
    case_add_tensor(&c, "dbeta", TP_F32, 1, C, 0, dbeta, 1);
    tp_value *model = model_of(
        json_pack("{s:s,s:s,s:s,s:s}", "arithmetic", "fp32", "order", "any", "fma", "any", "output_rounding", "none"));
    const tp_op *op = tp_op_find("layernorm_bwd_params");
    static const char *const on[] = {"row order", "pairwise", "8 accumulators"};
    for (int k = 0; k < 2; k++) {
        const tp_tensor *out = tp_case_tensor(&c, k ? "dbeta" : "dgamma");
        char label[200];
        snprintf(label, sizeof label, "layernorm_bwd_params %s, 2^20 rows, %s, %s", out->name,
                 ties ? "a big term then 2^20 - 1 ties lost" : "normal(0, 1)", on[order]);
        if (ties)
            hb_check(label, op, model, &c, out);
        else {
            tp_ref *ref = malloc((size_t)out->numel * sizeof *ref);
            long r1 = hb_rejected(op, model, &c, out, 1.0, ref, NULL, NULL, 1);
            tap_ok(r1 == 0, "%s: the emulated correct kernel is admitted (%ld rejected)", label, r1);
            free(ref);
        }
    }
    tp_value_free(model);
    free(x), free(dy), free(m), free(s), free(col);
}

/* embedding_bwd at m = 2^20 terms into one element: accumulation fp32 (a
 * big term, then 2^20 - 1 ties lost, rounded once to fp16: the half bound
 * catches it) and fp16_per_step (normal(0, 0.01) terms, the CAS loop in a
 * random order: admitted). */
static void test_embedding_long(int per_step)
{
    const int n = TP_EMBEDDING_N_MAX, V = 4, D = 2;
    tp_case c;
    hb_case_init(&c, per_step ? "embedding_bwd fp16_per_step, 2^20 adds into one row, random order"
                              : "embedding_bwd fp32, 2^20 adds into one row: a big term then ties lost");
    tp_tensor *idx = hb_tensor(&c, "idx", TP_I32, n, 0, 0), *G = hb_tensor(&c, "gout", TP_F16, n, D, 0),
              *W = hb_tensor(&c, "gW", TP_F16, V, D, 1);
    int32_t *ix = idx->data;
    uint16_t *g16 = G->data, *w16 = W->data;
    uint16_t *nv = fill((int64_t)n * D, "normal(0, 0.01)", 91);
    for (int i = 0; i < n; i++) {
        ix[i] = 2;
        for (int d = 0; d < D; d++)
            g16[(size_t)i * D + d] =
                per_step ? nv[(size_t)i * D + d] : i == 0 ? (d ? 0xbc00 : 0x3c00) : (d ? 0x8001 : 0x0001);
    }
    int *perm = malloc((size_t)n * sizeof *perm);
    for (int i = 0; i < n; i++)
        perm[i] = i;
    uint64_t st = 12345;
    for (int i = n - 1; per_step && i > 0; i--) {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        int j = (int)(st % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (int d = 0; d < D; d++) {
        float acc = 0.0f;
        for (int k = 0; k < n; k++) {
            acc = acc + h2f(g16[(size_t)perm[k] * D + d]);
            if (per_step)
                acc = (float)tp_f16_to_double(tp_f16_from_double(acc)); /* RN16(RN32(a + t)) */
        }
        w16[2 * D + d] = tp_f16_from_double(acc);
    }
    tp_value *model = model_of(per_step ? json_pack("{s:s, s:s}", "accumulation", "fp16_per_step", "order", "any")
                                        : json_pack("{s:s, s:s, s:s}", "accumulation", "fp32", "order", "any",
                                                    "output_rounding", "nearest"));
    const tp_op *op = tp_op_find("embedding_bwd");
    if (per_step) {
        tp_ref *ref = malloc((size_t)W->numel * sizeof *ref);
        long r1 = hb_rejected(op, model, &c, W, 1.0, ref, NULL, NULL, 1);
        tap_ok(r1 == 0, "%s: the emulated CAS kernel is admitted (%ld rejected)", c.name, r1);
        free(ref);
    } else
        hb_check(c.name, op, model, &c, W);
    tp_value_free(model);
    hb_case_free(&c);
    free(nv), free(perm);
}

int main(void)
{
    tap_ok(tp_sum_c(65536) == TP_DOT_C && tp_sum_c(65537) == TP_SUM_C_WIDE &&
               TP_SUM_C_WIDE >= 0x1p-24 / (1.0 - (double)TP_SUM_N_MAX * 0x1p-24) &&
               TP_DOT_C >= 0x1p-24 / (1.0 - 65536.0 * 0x1p-24),
           "sum-bound constant: TP_DOT_C up to 65536 terms (unchanged), and each constant >= u/(1 - n u) at the "
           "end of its range");
    test_rows();
    test_cols();
    test_scatter();
    test_refusals();
    test_params_long(1, 0);
    test_params_long(0, 0);
    test_params_long(0, 1);
    test_params_long(0, 2);
    test_embedding_long(0);
    test_embedding_long(1);
    return tap_done();
}
