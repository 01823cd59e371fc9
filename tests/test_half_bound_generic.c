/* Issue 9 item 4 for the generic ops (oracles/generic/): a bound scaled
 * down to one half must fail, on inputs this test generates itself
 * (tests/half_bound.h says what is checked and how).
 *
 * op elementwise, with SwiGLU forward's model (contracts/swiglu_fwd.toml:
 * y = a / (1.0f + expf(-a)) * b, fp32, expf within 2 ulp on CUDA). The
 * emulated kernel evaluates the expression in binary32, each operation
 * rounded to nearest, with expf(-a) anywhere within 2 binary32 values of
 * the correctly rounded result (inside either reading of the vendor's 2
 * ulps), and writes RN16 of the smallest and of the largest y it can
 * reach for each (a, b): a runs over every fourth binary16 value in
 * [-8, 8], and for each a, b is the binary16 value in [1, 2) that puts a
 * binary16 tie furthest out between the exact y and one of those ends:
 * where it lies in the outer half of the admitted fp32 interval, the
 * halved bound rounds the other way.
 *
 * op rowwise, with RMSNorm forward's model (contracts/rmsnorm_fwd.toml:
 * ss = sum of x*x in any order, y = x * rsqrtf(ss / cols + 1e-6f) * w,
 * rstd = rsqrtf(ss / cols + 1e-6f), rsqrtf within 2 ulp on CUDA). Row r
 * is [x0, +-2^-12 x 127] with x0 = 1 + r 2^-6: every square after the
 * first is 2^-24, half an ulp (or less) of the running fp32 sum, so the
 * sequential sum (an order the model admits) loses all 127 of them, most
 * of what the any-order bound allows; rsqrtf then answers 2 binary32
 * values above the correctly rounded result, the same way, and y is
 * (x rstd) w rounded twice, w random in [0.5, 2). rstd (fp32, no output
 * rounding) is then near the far end of its bound on every row; y reaches
 * it where binary16 ties fall right.
 * Build with -ffp-contract=off (configure does): the emulations round
 * where C says. */
#include "tests/half_bound.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"
#include "oracles/common/vendor_ulp.h"

#include <jansson.h>
#include <mpfr.h>

static float h2f(uint16_t h) { return (float)tp_f16_to_double(h); }

/* The binary32 value k values above (k < 0: below) v. */
static float steps(float v, int k)
{
    for (int i = 0; i < (k < 0 ? -k : k); i++)
        v = nextafterf(v, k < 0 ? -INFINITY : INFINITY);
    return v;
}

/* f(v) correctly rounded to binary32 (normal results only here: 24 bits
 * with MPFR's exponent range are RN32). */
static float rn32(int (*f)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t), float v)
{
    mpfr_t t;
    mpfr_init2(t, 24);
    mpfr_set_flt(t, v, MPFR_RNDN);
    f(t, t, MPFR_RNDN);
    const float r = mpfr_get_flt(t, MPFR_RNDN);
    mpfr_clear(t);
    return r;
}

static uint64_t rng = 0x6a09e667f3bcc909ull;
static double uniform01(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

/* ---- op elementwise: SwiGLU forward ---------------------------------------- */

/* How far out a binary16 tie lies between the exact value X and the
 * kernel's fp32 y (as a fraction of |y - X|) when RN16(y) is not RN16(X):
 * the halved bound rounds the other way once the tie is beyond its reach.
 * 0 when both round alike. */
static double tie_position(double X, float y)
{
    const uint16_t o = tp_f16_from_float(y);
    if (tp_f16_is_inf(o) || tp_f16_from_double(X) == o)
        return 0;
    const double v = tp_f16_to_double(o);
    if (v > X) {
        const double tie = 0.5 * (v + tp_f16_to_double(tp_f16_next_down(o)));
        return tie > X ? (tie - X) / ((double)y - X) : 0;
    }
    const double tie = 0.5 * (v + tp_f16_to_double(tp_f16_next_up(o)));
    return tie < X ? (X - tie) / (X - (double)y) : 0;
}

/* For a, the b in [1, 2) whose kernel outputs put a binary16 tie furthest
 * out between the exact y and the fp32 y the kernel reaches, and those
 * outputs: RN16 of the smallest and the largest y over every expf(-a) the
 * vendor's 2 ulps admit (from the correctly rounded value, either
 * reading: the ends of oracles/common/vendor_ulp.h, every binary32 value
 * between them). */
static uint16_t swiglu_worst_b(float a, uint16_t *ylo, uint16_t *yhi)
{
    mpfr_t t;
    mpfr_init2(t, 128);
    mpfr_set_flt(t, -a, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    const float e0 = mpfr_get_flt(t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    mpfr_d_div(t, (double)a, t, MPFR_RNDN);
    const double q = mpfr_get_d(t, MPFR_RNDN); /* a / (1 + e^-a), to 2^-53 */
    mpfr_clear(t);
    const float tlo = tp_vendor_lower(e0, e0, 2), thi = tp_vendor_upper(e0, e0, 2);
    double best = -1;
    uint16_t bbest = 0x3c00;
    for (uint16_t bh = 0x3c00; bh < 0x4000; bh++) {
        const float b = h2f(bh);
        float ymin = INFINITY, ymax = -INFINITY;
        for (float e = tlo; e <= thi; e = nextafterf(e, INFINITY)) {
            const float y = a / (1.0f + e) * b;
            ymin = fminf(ymin, y), ymax = fmaxf(ymax, y);
        }
        const double X = q * (double)b, p = fmax(tie_position(X, ymin), tie_position(X, ymax));
        if (p > best)
            best = p, bbest = bh, *ylo = tp_f16_from_float(ymin), *yhi = tp_f16_from_float(ymax);
    }
    return bbest;
}

static void test_elementwise(void)
{
    tp_value *model = model_of(json_pack("{s:s,s:s,s:s,s:{s:s},s:{s:{s:i}}}", "arithmetic", "fp32", "fma", "any",
                                         "output_rounding", "nearest", "expr", "y", "a / (1.0f + expf(-a)) * b",
                                         "ulp", "expf", "cuda", 2));
    const tp_op *op = tp_op_find("elementwise");
    int n = 0;
    for (uint32_t h = 0; h < 65536; h += 4)
        n += fabs(tp_f16_to_double((uint16_t)h)) <= 8.0 ? 2 : 0;
    tp_case c;
    hb_case_init(&c, "half_bound_swiglu_fwd");
    tp_tensor *ta = hb_tensor(&c, "a", TP_F16, n, 0, 0), *tb = hb_tensor(&c, "b", TP_F16, n, 0, 0),
              *ty = hb_tensor(&c, "y", TP_F16, n, 0, 1);
    uint16_t *a = ta->data, *b = tb->data, *y = ty->data;
    int i = 0;
    for (uint32_t h = 0; h < 65536; h += 4) {
        if (!(fabs(tp_f16_to_double((uint16_t)h)) <= 8.0))
            continue;
        uint16_t lo = 0, hi = 0;
        const uint16_t bh = swiglu_worst_b(h2f((uint16_t)h), &lo, &hi);
        a[i] = (uint16_t)h, b[i] = bh, y[i++] = lo;
        a[i] = (uint16_t)h, b[i] = bh, y[i++] = hi;
    }
    if (tap_ok(op && model, "elementwise: the op and the SwiGLU forward model exist"))
        hb_check("elementwise (swiglu_fwd's model) y", op, model, &c, ty);
    tp_value_free(model);
    hb_case_free(&c);
}

/* ---- op rowwise: RMSNorm forward -------------------------------------------- */

enum { RMS_ROWS = 64, RMS_COLS = 128 };

static void test_rowwise(void)
{
    tp_value *model = model_of(
        json_pack("{s:s,s:s,s:s,s:{s:{s:s,s:s}},s:{s:s,s:s},s:{s:{s:i}}}", "arithmetic", "fp32", "fma", "any",
                  "output_rounding", "nearest", "reduce", "ss", "sum", "x * x", "order", "any", "expr", "y",
                  "x * rsqrtf(ss / cols + 1e-6f) * w", "rstd", "rsqrtf(ss / cols + 1e-6f)", "ulp", "rsqrtf", "cuda", 2));
    const tp_op *op = tp_op_find("rowwise");
    tp_case c;
    hb_case_init(&c, "half_bound_rmsnorm_fwd");
    c.ndims = 2;
    c.dim_names[0] = "rows", c.dims[0] = RMS_ROWS;
    c.dim_names[1] = "cols", c.dims[1] = RMS_COLS;
    tp_tensor *tx = hb_tensor(&c, "x", TP_F16, RMS_ROWS, RMS_COLS, 0), *tw = hb_tensor(&c, "w", TP_F16, RMS_COLS, 0, 0),
              *ty = hb_tensor(&c, "y", TP_F16, RMS_ROWS, RMS_COLS, 1), *tr = hb_tensor(&c, "rstd", TP_F32, RMS_ROWS, 0, 1);
    uint16_t *x = tx->data, *w = tw->data, *y = ty->data;
    float *rstd = tr->data;
    for (int j = 0; j < RMS_COLS; j++)
        w[j] = tp_f16_from_float((float)(0.5 + 1.5 * uniform01()));
    for (int r = 0; r < RMS_ROWS; r++) {
        uint16_t *xr = x + (size_t)r * RMS_COLS;
        xr[0] = tp_f16_from_float(1.0f + (float)r * 0x1p-6f);
        for (int j = 1; j < RMS_COLS; j++)
            xr[j] = tp_f16_from_float(j % 2 ? 0x1p-12f : -0x1p-12f);
        float ss = 0.0f;
        for (int j = 0; j < RMS_COLS; j++)
            ss += h2f(xr[j]) * h2f(xr[j]);
        const float v = ss / (float)RMS_COLS + 1e-6f, rs = steps(rn32(mpfr_rec_sqrt, v), 2);
        rstd[r] = rs;
        for (int j = 0; j < RMS_COLS; j++)
            y[(size_t)r * RMS_COLS + j] = tp_f16_from_float(h2f(xr[j]) * rs * h2f(w[j]));
    }
    if (tap_ok(op && model, "rowwise: the op and the RMSNorm forward model exist")) {
        hb_check("rowwise (rmsnorm_fwd's model) y", op, model, &c, ty);
        hb_check("rowwise (rmsnorm_fwd's model) rstd", op, model, &c, tr);
    }
    tp_value_free(model);
    hb_case_free(&c);
}

int main(void)
{
    test_elementwise();
    test_rowwise();
    return tap_done();
}
