/* Issue 9 item 4 for ops embedding_bwd and embedding_fwd.
 *
 * embedding_bwd: the bound shrunk to one half must reject an output of a
 * correct kernel; the full bound must admit all of them (tests/half_bound.h:
 * the two checks, s*). Inputs (generated here): V = 8 rows of gW receive
 * 3, 60, 700 and 3000 queries each, twice (one row that loses, one that
 * gains); the emulated kernel adds a row's terms in query order, starting
 * from gW0 = 0, and D = 16 columns move the exact sum across the binary16
 * grid (lead term shifted by j, j = 0..7) and mirror it below zero.
 *   accumulation = "fp32" (one fp32 sum in any order, one RN16): losing
 *     rows are [1, j 2^-13, 2^-24, ..., 2^-24]: each 2^-24 is a tie at half
 *     an ulp of the partial sum in [1, 2), whose last bit is even, so every
 *     one is lost; gaining rows are [1024, j 2^-3, t, ..., t] with
 *     t = (1 + 2^-10) 2^-14 just above half an ulp of [1024, 2048): each add
 *     rounds up to a whole ulp 2^-13. Against m 2^-24 (1 + 2^-7) sum|t|.
 *   accumulation = "fp16_per_step" (a = RN16(RN32(a + t)) per add, the CAS
 *     loop): rows are [1 + j 2^-10, t, ..., t] with t = (1 - 2^-10) 2^-11
 *     just below half a binary16 ulp of [1, 2) (every add lost) or
 *     (1 + 2^-10) 2^-11 just above it (every add rounds up a whole ulp
 *     2^-10 while the sum stays below 2). Against the step-by-step B.
 *
 * embedding_fwd is bit-exact: the admitted set of each element is ONE bit
 * pattern, so there is no bound to halve. Instead the test shows that the
 * correct copy (computed here by a naive lookup) is admitted, at scale 1
 * and at scale 0.5 alike (the scale has nothing to act on), and that every
 * other pattern tried in its place is refused: one ulp up and down (for a
 * NaN: another payload; for a zero: the smallest subnormal), the sign bit
 * flipped (+0 for -0, -inf for inf, a NaN of the other sign), the quiet bit
 * flipped and the lowest payload bit flipped (another NaN payload), on
 * weights and initial contents full of zeros of both signs, infinities,
 * NaNs with several payloads, subnormals and the largest finite values. */
#include "tests/half_bound.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"

#include <jansson.h>

enum { V = 8, D = 16 };
static const int counts[V] = {3, 60, 700, 3000, 3, 60, 700, 3000}; /* rows 4..7 gain */

/* Term q (0-based, in query order) of row v, column d. */
static double term(int per_step, int v, int d, int q)
{
    int gain = v >= 4, j = d % 8;
    double sgn = d >= 8 ? -1.0 : 1.0, t;
    if (per_step)
        t = q == 0 ? 1 + j * 0x1p-10 : (gain ? 1 + 0x1p-10 : 1 - 0x1p-10) * 0x1p-11;
    else if (gain)
        t = q == 0 ? 1024.0 : q == 1 ? j * 0x1p-3 : (1 + 0x1p-10) * 0x1p-14;
    else
        t = q == 0 ? 1.0 : q == 1 ? j * 0x1p-13 : 0x1p-24;
    return sgn * t;
}

static double bwd_case(const tp_op *op, int per_step)
{
    int n = 0;
    for (int v = 0; v < V; v++)
        n += counts[v];
    tp_case c;
    char name[64];
    snprintf(name, sizeof name, "embedding_bwd, accumulation %s", per_step ? "fp16_per_step" : "fp32");
    hb_case_init(&c, name);
    tp_tensor *idx = hb_tensor(&c, "idx", TP_I32, n, 0, 0), *G = hb_tensor(&c, "gout", TP_F16, n, D, 0),
              *W = hb_tensor(&c, "gW", TP_F16, V, D, 1);
    int32_t *ix = idx->data;
    uint16_t *g16 = G->data, *w16 = W->data;
    /* queries of a row are interleaved with the others' (i = q*V + v while
     * every row still has some) so that the order is not trivially blocked */
    int next[V] = {0}, i = 0;
    while (i < n)
        for (int v = 0; v < V; v++)
            if (next[v] < counts[v]) {
                ix[i] = v;
                for (int d = 0; d < D; d++)
                    g16[(size_t)i * D + d] = tp_f16_from_double(term(per_step, v, d, next[v]));
                next[v]++, i++;
            }
    /* the kernel: each row's terms in query order from gW0 = 0 */
    for (int v = 0; v < V; v++)
        for (int d = 0; d < D; d++) {
            float acc = 0.0f;
            for (int k = 0; k < n; k++) {
                if (ix[k] != v)
                    continue;
                float t = (float)tp_f16_to_double(g16[(size_t)k * D + d]);
                acc = acc + t;
                if (per_step)
                    acc = (float)tp_f16_to_double(tp_f16_from_double(acc)); /* RN16(RN32(a + t)) */
            }
            w16[v * D + d] = tp_f16_from_double(acc);
        }
    tp_value *model = model_of(per_step ? json_pack("{s:s, s:s}", "accumulation", "fp16_per_step", "order", "any")
                                        : json_pack("{s:s, s:s, s:s}", "accumulation", "fp32", "order", "any",
                                                    "output_rounding", "nearest"));
    double s = model ? hb_check(name, op, model, &c, W) : -1;
    tp_value_free(model);
    hb_case_free(&c);
    return s;
}

/* ---- embedding_fwd ------------------------------------------------------ */

static const uint16_t specials[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe37, 0x7fff,
                                    0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00};

static void fwd_checks(const tp_op *op)
{
    enum { FV = 6, FD = 16, FN = 10 };
    static const int32_t idx_v[FN] = {0, 5, -1, 3, 3, 6, 1, 2, 4, 0}; /* -1, 6: out of range, unchanged */
    tp_case c;
    hb_case_init(&c, "embedding_fwd");
    tp_tensor *idx = hb_tensor(&c, "idx", TP_I32, FN, 0, 0), *W = hb_tensor(&c, "W", TP_F16, FV, FD, 0),
              *out = hb_tensor(&c, "out", TP_F16, FN, FD, 1);
    uint16_t *w = W->data, *init = out->initial, *y = out->data;
    memcpy(idx->data, idx_v, sizeof idx_v);
    for (int k = 0; k < FV * FD; k++)
        w[k] = specials[(k * 7 + k / FD) % 16];
    for (int k = 0; k < FN * FD; k++)
        init[k] = specials[(k * 5 + 3) % 16];
    /* the correct copy, by a naive lookup */
    for (int i = 0; i < FN; i++)
        for (int d = 0; d < FD; d++)
            y[i * FD + d] = idx_v[i] >= 0 && idx_v[i] < FV ? w[idx_v[i] * FD + d] : init[i * FD + d];
    tp_value *model = model_of(json_pack("{s:s, s:s}", "copy", "exact", "out_of_range", "unchanged"));
    tp_ref *ref = malloc(FN * FD * sizeof *ref);
    uint32_t *bits = malloc(FN * FD * sizeof *bits);
    long r1 = hb_rejected(op, model, &c, out, 1.0, ref, bits, NULL, 1),
         r05 = hb_rejected(op, model, &c, out, 0.5, ref, bits, NULL, 1);
    tap_ok(r1 == 0 && r05 == 0,
           "embedding_fwd: the correct copy (zeros of both signs, infinities, NaN payloads, subnormals) is admitted "
           "at scale 1 and at scale 0.5 alike: a bit-exact op has no bound to halve (%ld, %ld rejected)", r1, r05);
    /* every other pattern in place of each element is refused, at both scales */
    long tried = 0, refused = 0, zero_sign = 0, nan_payload = 0, one_ulp = 0;
    for (int sc = 0; sc < 2; sc++) {
        tp_bound_scale_set_for_test(sc ? 0.5 : 1.0);
        char err[300];
        int rc = tp_op_reference(op, model, &c, "out", ref, err, sizeof err) ||
                 op->reference_bits(model, &c, "out", bits, err, sizeof err);
        tp_bound_scale_set_for_test(1.0);
        if (!tap_ok(rc == 0, "embedding_fwd reference at scale %g", sc ? 0.5 : 1.0))
            continue;
        for (int k = 0; k < FN * FD; k++) {
            const uint16_t good = y[k];
            const uint16_t alt[5] = {(uint16_t)(good + 1), (uint16_t)(good - 1), (uint16_t)(good ^ 0x8000),
                                     (uint16_t)(good ^ 0x0200), (uint16_t)(good ^ 0x0001)};
            for (int a = 0; a < 5; a++) {
                if (alt[a] == good)
                    continue;
                y[k] = alt[a];
                tried++;
                if (!tp_element_admitted(out, k, &ref[k], bits)) {
                    refused++;
                    zero_sign += (good & 0x7fff) == 0 && alt[a] == (good ^ 0x8000);
                    nan_payload += tp_f16_is_nan(good) && tp_f16_is_nan(alt[a]);
                    one_ulp += !tp_f16_is_nan(good) && (a < 2) && !tp_f16_is_nan(alt[a]);
                } else
                    tap_diag("  admitted in place of 0x%04x: 0x%04x (element %d)", good, alt[a], k);
            }
            y[k] = good;
        }
    }
    tap_ok(tried > 0 && refused == tried,
           "embedding_fwd: every other pattern is refused: %ld of %ld tried (among them %ld +0/-0 swaps, %ld other "
           "NaN payloads, %ld one ulp away)",
           refused, tried, zero_sign, nan_payload, one_ulp);
    tap_ok(zero_sign > 0 && nan_payload > 0 && one_ulp > 0,
           "embedding_fwd: the patterns tried include +0/-0, another NaN payload and one ulp away");
    tp_value_free(model);
    free(ref);
    free(bits);
    hb_case_free(&c);
}

int main(void)
{
    const tp_op *bwd = tp_op_find("embedding_bwd"), *fwd = tp_op_find("embedding_fwd");
    if (!tap_ok(bwd && fwd && fwd->reference_bits, "ops embedding_bwd and embedding_fwd (bit-exact) are registered"))
        return tap_done();
    double s32 = bwd_case(bwd, 0), s16 = bwd_case(bwd, 1);
    tap_diag("embedding_bwd: critical scale s* %.4f (fp32), %.4f (fp16_per_step)", s32, s16);
    fwd_checks(fwd);
    return tap_done();
}
