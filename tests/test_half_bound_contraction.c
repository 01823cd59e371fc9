/* Issue 9 item 4 for op contraction (contracts gemm_bias_gelu,
 * gemm_bias_gelu_nt): the bound shrunk to one half must reject an output
 * of a correct kernel; the full bound must admit all of them (see
 * tests/half_bound.h for the two checks and the critical scale s*).
 *
 * Inputs (generated here) are tests/test_half_bound_gemm.c's: row r of A
 * is [1, j 2^-13, t, t, ..., t] (j = r/2), every column of B is
 * +-[1, 1, 2^-12, ..., 2^-12], so every product is exact in fp32 and the
 * emulated kernel's sequential round-to-nearest sum loses every tiny
 * product on even rows (t 2^-12 = (1 - 2^-11) 2^-24, below half an ulp of
 * the partial sum in [1, 2)) and gains almost half an ulp on each on odd
 * rows (t 2^-12 = (1 + 2^-10) 2^-24): an error of nearly K 2^-24 against
 * the bound K 2^-24 (1 + 2^-7) sum|p| + K 2^-149. Three epilogues:
 *   acc                    op gemm's admitted set (the sum bound's interval
 *                          rounded to binary16);
 *   acc + bias             bias = -1 for the positive column, +1 for the
 *                          negated one: the add is exact (Sterbenz), and
 *                          what is left, j 2^-13 plus the tiny products
 *                          (or nothing of them), has binary16 spacing far
 *                          below the accumulator's error;
 *   the tanh-GELU of acc + bias, as kernels/gemm_bias_gelu.hip computes
 *                          it (the host's tanhf).
 * The binary32 hull of the epilogue is what the test-only scale shrinks
 * toward the exact value (op_contraction.c), as op gemm's sum interval. */
#include "tests/half_bound.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"

#include <jansson.h>

enum { M = 16, N = 2 };

#define GELU "0.5f * (acc + bias) * (1.0f + tanhf(0.7978845608f * ((acc + bias) + 0.044715f * ((acc + bias) * (acc + bias) * (acc + bias)))))"

static const char *const epilogues[] = {"acc", "acc + bias", GELU};

/* The emulated kernel's output element: the fp32 sum of a[m][.] * b[.][n]
 * in index order, rounded to nearest, then the epilogue, then RN16. */
static uint16_t kernel(int K, const double *a, const double *b, int n, float bias, int epi)
{
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc = fmaf((float)a[k], (float)b[k * N + n], acc); /* the product is exact: one rounding a step */
    const float x = acc + bias;
    if (epi == 0)
        return tp_f16_from_float(acc);
    if (epi == 1)
        return tp_f16_from_float(x);
    return tp_f16_from_float(0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * (x * x * x)))));
}

static double run(const tp_op *op, int epi, int K)
{
    double *a = malloc((size_t)M * K * sizeof *a), *b = malloc((size_t)K * N * sizeof *b);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            b[k * N + n] = (n ? -1 : 1) * (k < 2 ? 1.0 : 0x1p-12);
    for (int m = 0; m < M; m++) {
        const int j = m / 2, gain = m % 2;
        const double t = (gain ? (1 + 0x1p-10) : (1 - 0x1p-11)) * 0x1p-12;
        for (int k = 0; k < K; k++)
            a[m * K + k] = k == 0 ? 1.0 : k == 1 ? j * 0x1p-13 : t;
    }
    tp_case c;
    char name[96];
    snprintf(name, sizeof name, "contraction, C = %s, K = %d", epi == 2 ? "gelu(acc + bias)" : epilogues[epi], K);
    hb_case_init(&c, name);
    tp_tensor *A = hb_tensor(&c, "A", TP_F16, M, K, 0), *B = hb_tensor(&c, "B", TP_F16, K, N, 0),
              *bias = hb_tensor(&c, "bias", TP_F16, N, 0, 0), *C = hb_tensor(&c, "C", TP_F16, M, N, 1);
    uint16_t *A16 = A->data, *B16 = B->data, *b16 = bias->data, *C16 = C->data;
    for (int64_t i = 0; i < (int64_t)M * K; i++)
        A16[i] = tp_f16_from_double(a[i]);
    for (int64_t i = 0; i < (int64_t)K * N; i++)
        B16[i] = tp_f16_from_double(b[i]);
    b16[0] = tp_f16_from_double(-1.0), b16[1] = tp_f16_from_double(1.0);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++)
            C16[m * N + n] = kernel(K, a + (size_t)m * K, b, n, n ? 1.0f : -1.0f, epi);
    tp_value *model = model_of(json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s}, s:{s:{s:i}}}", "accumulation", "fp32",
                                         "order", "any", "arithmetic", "fp32", "fma", "any", "output_rounding",
                                         "nearest", "expr", "C", epilogues[epi], "ulp", "tanhf", "cuda", 2));
    double s = model ? hb_check(name, op, model, &c, C) : -1;
    tp_value_free(model);
    hb_case_free(&c);
    free(a);
    free(b);
    return s;
}

int main(void)
{
    const tp_op *op = tp_op_find("contraction");
    if (!tap_ok(op != NULL, "op contraction is registered"))
        return tap_done();
    static const int Ks[] = {8, 300, 8192, 65536}; /* 65536: the K-chunked exact sums, the proven bound's last n */
    double best = 0;
    for (int epi = 0; epi < 3; epi++)
        for (int i = 0; i < 4; i++) {
            double s = run(op, epi, Ks[i]);
            best = s > best ? s : best;
        }
    tap_diag("contraction: largest critical scale s* over all cases %.4f", best);
    return tap_done();
}
