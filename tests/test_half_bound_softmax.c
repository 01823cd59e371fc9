/* Issue 9 item 4 for ops softmax_fwd and softmax_xent_bwd: the bound shrunk
 * to one half must reject an output of a correct kernel; the full bound
 * must admit all of them (tests/half_bound.h: the two checks, s*).
 *
 * softmax_fwd, emulating kernels/softmax_fwd.hip step by step: d = x - max
 * (exact), e = expf(d) taken k fp32 steps from RN32(exp d) with k in
 * {-2, 0, 2} (the contract's cuda bound is 2 ulp; k chosen per row for the
 * max and for the other elements), y1 = RN16(e) (intermediate binary16) or
 * e (fp32), s = the fp32 sum of the e in index order, inv = RN32(1/s),
 * y = RN16(RN32(y1 inv)). Row r holds x = [0, v_r, tiny, ..., tiny]: v_r a
 * logit from -3 down to -8.6 that puts y_0 and y_1 at varied places on the
 * binary16 grid while keeping s just above 1 (the lost half ulps are
 * absolute, 2^-24 each, and the bound is relative to s: s near 1 is where
 * they come closest to it); the tiny logits make every other e either just below half an ulp
 * of the running sum in [1, 2) (x near -16.64, e < 2^-24: each add is
 * lost, the kernel's s too small) or just above it (x near -16.62,
 * e > 2^-24: each add rounds up to a whole ulp 2^-23, s too large). That is
 * the accumulation error the bound n 2^-24 (1 + 2^-7) sum|e| + n 2^-149
 * allows, reached in full by a sequential order.
 *
 * softmax_xent_bwd, emulating kernels/softmax_xent_bwd.hip: dot = the fp32
 * sum of the exact products g s in index order, d = RN32(g - dot),
 * gi = RN32(s d), y = RN16(gi). Row r holds g = [1, j 2^-13, 2^-12, ...],
 * s = [1, 1, c, ..., c] with c = (1 - 2^-11) 2^-12 (each tiny product below
 * half an ulp of the running dot in [1, 2): lost) or (1 + 2^-10) 2^-12 (just
 * above: rounded up to a whole ulp), and the mirror rows -g; the exact D is
 * then off the kernel's dot by nearly the whole bound, and gi_0 = 1 - D,
 * gi_1 = j 2^-13 - D carry that error at full size. */
#include "tests/half_bound.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"

#include <jansson.h>
#include <mpfr.h>

static float rn32_exp(float d)
{
    mpfr_t t;
    mpfr_init2(t, 24); /* the results here are normal fp32: 24 bits is RN32 */
    mpfr_set_flt(t, d, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    float r = mpfr_get_flt(t, MPFR_RNDN);
    mpfr_clear(t);
    return r;
}

static float steps(float v, int k)
{
    for (int i = 0; i < (k < 0 ? -k : k); i++)
        v = nextafterf(v, k < 0 ? -INFINITY : INFINITY);
    return v;
}

/* ---- softmax_fwd -------------------------------------------------------- */

/* Row r of a softmax case: its logits (binary16) and the emulated kernel's
 * output. gain: the tiny exps round the sum up; else they are lost. */
static void sm_row(int r, int n, int binary16, uint16_t *x, uint16_t *y, float *e)
{
    int gain = r % 2, kmax = 2 * ((r / 2) % 3) - 2, kother = 2 * ((r / 6) % 3) - 2, v = r / 18;
    x[0] = tp_f16_from_double(0.0);
    x[1] = tp_f16_from_double(-(3.0 + 0.37 * v)); /* e_1 small: s just above 1, where the bound is tightest */
    for (int j = 2; j < n; j++)
        x[j] = tp_f16_from_double(gain ? -16.625 + ((j + r) % 4) * 0x1p-6 : -16.640625 - ((j + r) % 8) * 0x1p-6);
    /* the kernel: max is x[0] = 0, so d = x exactly */
    for (int j = 0; j < n; j++)
        e[j] = steps(rn32_exp((float)tp_f16_to_double(x[j])), j == 0 ? kmax : kother);
    float s = 0.0f;
    for (int j = 0; j < n; j++)
        s += e[j];
    const float inv = 1.0f / s;
    for (int j = 0; j < n; j++) {
        float y1 = binary16 ? (float)tp_f16_to_double(tp_f16_from_double(e[j])) : e[j];
        y[j] = tp_f16_from_double((float)(y1 * inv));
    }
}

static double softmax_case(const tp_op *op, int binary16, int n, int variants)
{
    const int R = 18 * variants; /* gain x kmax x kother, times the v_r */
    tp_case c;
    char name[96];
    snprintf(name, sizeof name, "softmax_fwd, intermediate %s, %d rows of %d", binary16 ? "binary16" : "fp32", R, n);
    hb_case_init(&c, name);
    tp_tensor *x = hb_tensor(&c, "x", TP_F16, R, n, 0), *y = hb_tensor(&c, "y", TP_F16, R, n, 1);
    float *e = malloc((size_t)n * sizeof *e);
    for (int r = 0; r < R; r++)
        sm_row(r, n, binary16, (uint16_t *)x->data + (size_t)r * n, (uint16_t *)y->data + (size_t)r * n, e);
    free(e);
    tp_value *model = model_of(json_pack("{s:s, s:s, s:s, s:s, s:{s:i}}", "arithmetic", "fp32", "order", "any",
                                         "intermediate", binary16 ? "binary16" : "fp32", "output_rounding",
                                         "nearest", "expf_ulp", "cuda", 2));
    double sstar = model ? hb_check(name, op, model, &c, y) : -1;
    tp_value_free(model);
    hb_case_free(&c);
    return sstar;
}

/* ---- softmax_xent_bwd --------------------------------------------------- */

static double xent_case(const tp_op *op, int n)
{
    const int R = 32; /* j = 0..7, lose / gain, g / -g */
    tp_case c;
    char name[64];
    snprintf(name, sizeof name, "softmax_xent_bwd, %d rows of %d", R, n);
    hb_case_init(&c, name);
    tp_tensor *S = hb_tensor(&c, "s", TP_F16, R, n, 0), *G = hb_tensor(&c, "g", TP_F16, R, n, 0),
              *GI = hb_tensor(&c, "gi", TP_F16, R, n, 1);
    float *sf = malloc((size_t)n * sizeof *sf), *gf = malloc((size_t)n * sizeof *gf);
    for (int r = 0; r < R; r++) {
        int j = r % 8, gain = (r / 8) % 2, neg = r / 16;
        uint16_t *s16 = (uint16_t *)S->data + (size_t)r * n, *g16 = (uint16_t *)G->data + (size_t)r * n,
                 *y16 = (uint16_t *)GI->data + (size_t)r * n;
        for (int k = 0; k < n; k++) {
            double g = k == 0 ? 1.0 : k == 1 ? j * 0x1p-13 : 0x1p-12;
            double s = k < 2 ? 1.0 : (gain ? 1 + 0x1p-10 : 1 - 0x1p-11) * 0x1p-12;
            g16[k] = tp_f16_from_double(neg ? -g : g);
            s16[k] = tp_f16_from_double(s);
            gf[k] = (float)tp_f16_to_double(g16[k]);
            sf[k] = (float)tp_f16_to_double(s16[k]);
        }
        /* the kernel: sequential fp32 dot (products exact, so fused or not
         * is the same), then RN32(g - dot), RN32(s d), RN16 */
        float dot = 0.0f;
        for (int k = 0; k < n; k++)
            dot += gf[k] * sf[k];
        for (int k = 0; k < n; k++) {
            float d = gf[k] - dot;
            y16[k] = tp_f16_from_double(sf[k] * d);
        }
    }
    free(sf);
    free(gf);
    tp_value *model = model_of(json_pack("{s:s, s:s, s:s, s:s}", "accumulation", "fp32", "order", "any", "fma",
                                         "any", "output_rounding", "nearest"));
    double sstar = model ? hb_check(name, op, model, &c, GI) : -1;
    tp_value_free(model);
    hb_case_free(&c);
    return sstar;
}

int main(void)
{
    const tp_op *fwd = tp_op_find("softmax_fwd"), *bwd = tp_op_find("softmax_xent_bwd");
    if (!tap_ok(fwd && bwd, "ops softmax_fwd and softmax_xent_bwd are registered"))
        return tap_done();
    double best = 0, s;
    for (int binary16 = 1; binary16 >= 0; binary16--) {
        s = softmax_case(fwd, binary16, 777, 16);
        best = s > best ? s : best;
        s = softmax_case(fwd, binary16, 65536, 1);
        best = s > best ? s : best;
    }
    tap_diag("softmax_fwd: largest critical scale s* over all cases %.4f", best);
    best = 0;
    static const int ns[] = {8, 1000, 65536};
    for (int i = 0; i < 3; i++) {
        s = xent_case(bwd, ns[i]);
        best = s > best ? s : best;
    }
    tap_diag("softmax_xent_bwd: largest critical scale s* over all cases %.4f", best);
    return tap_done();
}
