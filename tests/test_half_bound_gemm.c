/* Issue 9 item 4 for op gemm (contracts gemm_fwd, gemm_bwd_a = transpose_b,
 * gemm_bwd_b = transpose_a): the bound shrunk to one half must reject an
 * output of a correct kernel; the full bound must admit all of them (see
 * tests/half_bound.h for the two checks and the critical scale s*).
 *
 * Inputs (generated here): row r of A is [1, j 2^-13, t, t, ..., t]
 * (j = r/2 moves the exact value across the binary16 rounding grid), every
 * column of B is +-[1, 1, 2^-12, ..., 2^-12]. Every product is exact in
 * fp32; the emulated kernel adds them in index order, each step rounded as
 * the model allows:
 *   accumulation = "fp32" (round to nearest): even rows lose every tiny
 *     product, t 2^-12 = (1 - 2^-11) 2^-24 being below half an ulp of the
 *     partial sum in [1, 2); odd rows gain almost half an ulp on each,
 *     t 2^-12 = (1 + 2^-10) 2^-24 being just above it, so each add rounds up
 *     to a whole ulp 2^-23. With j = 4 the lossy kernel's sum is exactly
 *     1 + 2^-11, which rounds (tie to even) to binary16 1.0, while the exact
 *     sum 1 + 2^-11 + (K-2)(1 - 2^-11) 2^-24 rounds to 1 + 2^-10: the worked
 *     example of the issue. The error is (K-2) of those tiny products, the
 *     bound K 2^-24 (1 + 2^-7) sum|p| + K 2^-149.
 *   accumulation = "fp32_faithful" (each step one of the two fp32
 *     neighbours of its exact value): even rows truncate (toward zero) tiny
 *     products (1 - 2^-11) 2^-23 just below a whole ulp; odd rows round
 *     2^-36 away from zero, gaining almost a whole ulp per add, against the
 *     bound K 2^-23 (1 + 2^-7) sum|p| + K 2^-148 (1 + 3 2^-8 for K > 8192;
 *     K = 65536 also runs the K-chunked exact sums of oracles/gemm/gemm_long.c).
 * The negated column mirrors every case below zero (rounding away from
 * zero there is downward). */
#include "tests/half_bound.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"

#include <fenv.h>
#include <jansson.h>

enum { M = 16, N = 2 };

/* The emulated kernel's output element: the fp32 sum of a[m][.] * b[.][n]
 * in index order, each add rounded in `mode`, then RN16. */
static uint16_t kernel(int K, const double *a, const double *b, int n, int mode)
{
    volatile float acc = 0.0f;
    fesetround(mode);
    for (int k = 0; k < K; k++) {
        volatile float p = (float)(a[k] * b[k * N + n]); /* exact: binary16 times binary16 */
        acc = acc + p;
    }
    fesetround(FE_TONEAREST);
    return tp_f16_from_double(acc);
}

static double run(const tp_op *op, int ta, int tb, int faithful, int K)
{
    double *a = malloc((size_t)M * K * sizeof *a), *b = malloc((size_t)K * N * sizeof *b);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            b[k * N + n] = (n ? -1 : 1) * (k < 2 ? 1.0 : 0x1p-12);
    for (int m = 0; m < M; m++) {
        int j = m / 2, gain = m % 2;
        double t = faithful ? (gain ? 0x1p-24 : (1 - 0x1p-11) * 0x1p-11) : (gain ? (1 + 0x1p-10) : (1 - 0x1p-11)) * 0x1p-12;
        for (int k = 0; k < K; k++)
            a[m * K + k] = k == 0 ? 1.0 : k == 1 ? j * 0x1p-13 : t;
    }
    tp_case c;
    char name[96];
    snprintf(name, sizeof name, "gemm %s%s, accumulation %s, K = %d", ta ? "A^T" : "A", tb ? " @ B^T" : " @ B",
             faithful ? "fp32_faithful" : "fp32", K);
    hb_case_init(&c, name);
    tp_tensor *A = hb_tensor(&c, "A", TP_F16, ta ? K : M, ta ? M : K, 0),
              *B = hb_tensor(&c, "B", TP_F16, tb ? N : K, tb ? K : N, 0), *C = hb_tensor(&c, "C", TP_F16, M, N, 1);
    uint16_t *A16 = A->data, *B16 = B->data, *C16 = C->data;
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++)
            A16[ta ? k * M + m : m * K + k] = tp_f16_from_double(a[m * K + k]);
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++)
            B16[tb ? n * K + k : k * N + n] = tp_f16_from_double(b[k * N + n]);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            /* rows that lose truncate (faithful) or round to nearest; rows that
             * gain round away from zero (faithful) or to nearest */
            int mode = !faithful ? FE_TONEAREST : m % 2 == 0 ? FE_TOWARDZERO : n ? FE_DOWNWARD : FE_UPWARD;
            C16[m * N + n] = kernel(K, a + (size_t)m * K, b, n, mode);
        }
    tp_value *model = model_of(json_pack("{s:s, s:s, s:s, s:b, s:b, s:s}", "accumulation",
                                         faithful ? "fp32_faithful" : "fp32", "order", "any", "fma", "any",
                                         "transpose_a", ta, "transpose_b", tb, "output_rounding", "nearest"));
    double s = model ? hb_check(name, op, model, &c, C) : -1;
    tp_value_free(model);
    hb_case_free(&c);
    free(a);
    free(b);
    return s;
}

int main(void)
{
    const tp_op *op = tp_op_find("gemm");
    if (!tap_ok(op != NULL, "op gemm is registered"))
        return tap_done();
    /* the worked example, checked on its own numbers first */
    {
        float s = 1.0f + 0x1p-11f;
        for (int k = 2; k < 8192; k++)
            s += (float)((1 - 0x1p-11) * 0x1p-24);
        tap_ok(s == 1.0f + 0x1p-11f && tp_f16_from_double(s) == 0x3c00 &&
                   tp_f16_from_double(1 + 0x1p-11 + 8190 * (1 - 0x1p-11) * 0x1p-24) == 0x3c01,
               "worked example: sequential fp32 sum 1 + 2^-11 (each tiny product lost) rounds to 1.0, the exact "
               "sum to 1 + 2^-10");
    }
    static const int Ks[] = {8, 300, 8192, 65536}; /* 65536: K-chunked exact sums, the longer fp32_faithful constant */
    double best = 0;
    for (int layout = 0; layout < 3; layout++) /* gemm_fwd, gemm_bwd_a, gemm_bwd_b */
        for (int faithful = 0; faithful < 2; faithful++)
            for (int i = 0; i < 4; i++) {
                double s = run(op, layout == 2, layout == 1, faithful, Ks[i]);
                best = s > best ? s : best;
            }
    tap_diag("gemm: largest critical scale s* over all cases %.4f", best);
    return tap_done();
}
