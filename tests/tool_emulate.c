/* Runs a contract's cases through the harness runtime (tp_harness_main)
 * on an emulated device: host memory, and the kernel replaced by a CPU
 * emulation of it, so the whole run/record/replay path, launch checks
 * included, can be tested without a GPU. --mutant NAME plants a known
 * error; --mutant no_device emulates a machine without a GPU;
 * --fault KIND=CASE makes the kernel of one case fail the way a GPU
 * kernel can (KIND segv: the process crashes; abort: it prints why and
 * aborts, as ROCm does on a memory fault; lost: a sticky error that
 * loses the context; hang: it never returns; launch: an ordinary launch
 * error), for the supervisor's fault isolation (harness/tp_supervise.h).
 * --exact-provider emulated sets op gemm's exact provider to the GPU's
 * fixed-point arithmetic run on the host (tests/fixed_provider.h), as a
 * CUDA harness does with the GPU; --exact-provider wrong=I makes element I
 * of every GEMM output wrong by 2^-48, which its cross-check must catch. */
#define _POSIX_C_SOURCE 200809L
#include "core/tp_fp16.h"
#include "core/tp_format.h"
#include "core/tp_op.h"
#include "harness/tp_device.h"
#include "tests/host_device.h" /* host memory, no timings: the device around cpu_launch */
#include "tests/fixed_provider.h"
#include "oracles/layernorm/layernorm_model.h" /* tp_ln_rsqrt_rn: a correctly rounded rsqrtf */

#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float h2f(uint16_t h) { return (float)tp_f16_to_double(h); }
/* A 16-bit input in its format (binary16 or bfloat16), exactly. */
static float load16(const tp_format *fmt, uint16_t h) { return (float)fmt->decode(h); }
/* The kernel's rounding to a 16-bit output: nearest even (__float2half,
 * tp_float2bf16); mutant truncate, bfloat16 only: toward zero, the low 16
 * bits dropped (a common hand-written conversion). */
static uint16_t store16(const tp_format *fmt, float f, const char *mutant)
{
    if (fmt == &tp_bfloat16 && strcmp(mutant, "truncate") == 0) {
        uint32_t u;
        memcpy(&u, &f, 4);
        return (uint16_t)(u >> 16);
    }
    return (uint16_t)fmt->encode((double)f);
}

static void gemm(tp_case *c, const char *mutant)
{
    const tp_tensor *A = tp_case_tensor(c, "A"), *B = tp_case_tensor(c, "B"), *C = tp_case_tensor(c, "C");
    int M = (int)A->shape[0], K = (int)A->shape[1], N = (int)B->shape[1];
    const uint16_t *a = A->data, *b = B->data;
    uint16_t *out = C->data;
    int kend = strcmp(mutant, "drop_last_term") == 0 ? K - 1 : K;
    int fp16_acc = strcmp(mutant, "fp16_accumulate") == 0;
    float *af = malloc((size_t)M * K * sizeof *af), *bf = malloc((size_t)K * N * sizeof *bf);
    for (int64_t i = 0; i < (int64_t)M * K; i++)
        af[i] = h2f(a[i]);
    for (int64_t i = 0; i < (int64_t)K * N; i++)
        bf[i] = h2f(b[i]);
#pragma omp parallel for
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < kend; k++) {
                acc = fmaf(af[(size_t)i * K + k], bf[(size_t)k * N + j], acc);
                if (fp16_acc)
                    acc = h2f(tp_f16_from_float(acc));
            }
            out[(size_t)i * N + j] = tp_f16_from_float(acc);
        }
    free(af);
    free(bf);
}

static void gelu_bwd(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x"), *G = tp_case_tensor(c, "g"), *GI = tp_case_tensor(c, "gi");
    const uint16_t *x = X->data, *g = G->data;
    uint16_t *gi = GI->data;
    const float cc = strcmp(mutant, "wrong_constant") == 0 ? 0.7978f : 0.7978845608f, a = 0.044715f,
                k3a = 0.134145f;
    for (int64_t i = 0; i < X->numel; i++) {
        float xf = h2f(x[i]), gf = h2f(g[i]);
        float x2 = xf * xf;
        float x3 = x2 * xf;
        float inner = cc * (xf + a * x3);
        float t = tanhf(inner);
        float dinner = cc * (1.0f + k3a * x2);
        float f = 0.5f * (1.0f + t) + 0.5f * xf * (1.0f - t * t) * dinner;
        gi[i] = tp_f16_from_float(gf * f);
    }
}

/* gemm_bwd_a: gA[m,k] = sum_n gC[m,n] B[k,n], sequential fmaf over n.
 * Mutant transposed_operand reads B as if it were stored N x K. */
static void gemm_bwd_a(tp_case *c, const char *mutant)
{
    const tp_tensor *G = tp_case_tensor(c, "gC"), *B = tp_case_tensor(c, "B"), *GA = tp_case_tensor(c, "gA");
    int M = (int)G->shape[0], N = (int)G->shape[1], K = (int)B->shape[0];
    const uint16_t *g = G->data, *b = B->data;
    uint16_t *out = GA->data;
    int tr = strcmp(mutant, "transposed_operand") == 0;
    /* widened once, both laid out with n contiguous */
    float *gf = malloc((size_t)M * N * sizeof *gf), *bf = malloc((size_t)K * N * sizeof *bf);
    for (size_t i = 0; i < (size_t)M * N; i++)
        gf[i] = h2f(g[i]);
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++)
            bf[(size_t)k * N + n] = h2f(b[tr ? (size_t)n * K + k : (size_t)k * N + n]);
#pragma omp parallel for
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++) {
            float acc = 0.0f;
            for (int n = 0; n < N; n++)
                acc = fmaf(gf[(size_t)m * N + n], bf[(size_t)k * N + n], acc);
            out[(size_t)m * K + k] = tp_f16_from_float(acc);
        }
    free(gf);
    free(bf);
}

/* gemm_bwd_b: gB[k,n] = sum_m A[m,k] gC[m,n], sequential fmaf over m.
 * Mutant transposed_operand reads A as if it were stored K x M. */
static void gemm_bwd_b(tp_case *c, const char *mutant)
{
    const tp_tensor *A = tp_case_tensor(c, "A"), *G = tp_case_tensor(c, "gC"), *GB = tp_case_tensor(c, "gB");
    int M = (int)A->shape[0], K = (int)A->shape[1], N = (int)G->shape[1];
    const uint16_t *a = A->data, *g = G->data;
    uint16_t *out = GB->data;
    int tr = strcmp(mutant, "transposed_operand") == 0;
    /* widened once and transposed, so that m is contiguous in both */
    float *at = malloc((size_t)K * M * sizeof *at), *gt = malloc((size_t)N * M * sizeof *gt);
    for (int m = 0; m < M; m++) {
        for (int k = 0; k < K; k++)
            at[(size_t)k * M + m] = h2f(a[tr ? (size_t)k * M + m : (size_t)m * K + k]);
        for (int n = 0; n < N; n++)
            gt[(size_t)n * M + m] = h2f(g[(size_t)m * N + n]);
    }
#pragma omp parallel for
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++) {
            float acc = 0.0f;
            for (int m = 0; m < M; m++)
                acc = fmaf(at[(size_t)k * M + m], gt[(size_t)n * M + m], acc);
            out[(size_t)k * N + n] = tp_f16_from_float(acc);
        }
    free(at);
    free(gt);
}

/* softmax_fwd as kernels/softmax_fwd.hip runs it: 256 threads per row,
 * strided columns, shared-memory trees for the max and the sum of the fp32
 * exps, e written as binary16 and re-read, scaled by 1.0f/sum, rounded
 * again. Mutants: single_rounding (scales the fp32 e, one rounding),
 * no_max_subtraction (exp(x) directly), drop_tail (the sum tree loses the
 * partial sum of thread 255). */
static void softmax_fwd(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x"), *Y = tp_case_tensor(c, "y");
    const int R = (int)X->shape[0], n = (int)X->shape[1], T = 256;
    const int single = strcmp(mutant, "single_rounding") == 0, nomax = strcmp(mutant, "no_max_subtraction") == 0,
              tail = strcmp(mutant, "drop_tail") == 0;
#pragma omp parallel for
    for (int r = 0; r < R; r++) {
        const uint16_t *x = (const uint16_t *)X->data + (size_t)r * n;
        uint16_t *y = (uint16_t *)Y->data + (size_t)r * n;
        float red[256], *e = malloc((size_t)n * sizeof *e);
        for (int t = 0; t < T; t++) {
            float m = -INFINITY;
            for (int j = t; j < n; j += T)
                m = fmaxf(m, h2f(x[j]));
            red[t] = m;
        }
        for (int w = T / 2; w > 0; w /= 2)
            for (int t = 0; t < w; t++)
                red[t] = fmaxf(red[t], red[t + w]);
        const float mx = nomax ? 0.0f : red[0];
        for (int t = 0; t < T; t++) {
            float s = 0.0f;
            for (int j = t; j < n; j += T) {
                e[j] = expf(h2f(x[j]) - mx);
                y[j] = tp_f16_from_float(e[j]);
                s += e[j];
            }
            red[t] = tail && t == T - 1 ? 0.0f : s;
        }
        for (int w = T / 2; w > 0; w /= 2)
            for (int t = 0; t < w; t++)
                red[t] += red[t + w];
        const float inv = 1.0f / red[0];
        for (int j = 0; j < n; j++)
            y[j] = tp_f16_from_float((single ? e[j] : h2f(y[j])) * inv);
        free(e);
    }
}

/* softmax_xent_bwd as kernels/softmax_xent_bwd.hip runs it: 256 threads
 * per row, each an fmaf chain over its strided columns, a shared-memory
 * tree, then s*(g - dot). Mutants: fp16_dot (dot rounded to binary16
 * before use), drop_tail (the tree loses thread 255's partial sum). */
static void softmax_xent_bwd(tp_case *c, const char *mutant)
{
    const tp_tensor *S = tp_case_tensor(c, "s"), *G = tp_case_tensor(c, "g"), *GI = tp_case_tensor(c, "gi");
    const int R = (int)S->shape[0], n = (int)S->shape[1], T = 256;
    const int dot16 = strcmp(mutant, "fp16_dot") == 0, tail = strcmp(mutant, "drop_tail") == 0;
#pragma omp parallel for
    for (int r = 0; r < R; r++) {
        const uint16_t *s = (const uint16_t *)S->data + (size_t)r * n, *g = (const uint16_t *)G->data + (size_t)r * n;
        uint16_t *gi = (uint16_t *)GI->data + (size_t)r * n;
        float red[256];
        for (int t = 0; t < T; t++) {
            float acc = 0.0f;
            for (int j = t; j < n; j += T)
                acc = fmaf(h2f(g[j]), h2f(s[j]), acc);
            red[t] = tail && t == T - 1 ? 0.0f : acc;
        }
        for (int w = T / 2; w > 0; w /= 2)
            for (int t = 0; t < w; t++)
                red[t] += red[t + w];
        const float dot = dot16 ? h2f(tp_f16_from_float(red[0])) : red[0];
        for (int j = 0; j < n; j++) {
            gi[j] = tp_f16_from_float(h2f(s[j]) * (h2f(g[j]) - dot));
        }
    }
}

/* LayerNorm (docs/kernels.md#layernorm). The block reduction of
 * kernels/layernorm_*.hip with 32-lane warps: a shuffle tree per warp over
 * the lanes that exist, then the same tree over the per-warp sums. */
static float ln_block_reduce(float *v, int B)
{
    const int W = 32;
    int nw = (B + W - 1) / W;
    float ws[32];
    for (int w = 0; w < nw; w++) {
        float *l = v + w * W;
        int here = B - w * W < W ? B - w * W : W;
        for (int d = W / 2; d > 0; d /= 2)
            for (int i = 0; i + d < here; i++) /* ascending: l[i + d] is read before it changes */
                l[i] += l[i + d];
        ws[w] = l[0];
    }
    for (int d = W / 2; d > 0; d /= 2)
        for (int i = 0; i + d < nw; i++)
            ws[i] += ws[i + d];
    return ws[0];
}

static int ln_block_size(int cols)
{
    int b = 1;
    while (b < cols / 8)
        b *= 2;
    return b < 32 ? 32 : b > 1024 ? 1024 : b;
}

/* Mutants: wrong_eps (1e-3f), unbiased_var (divides by cols - 1),
 * swap_mean_rstd (writes each statistic into the other's output). Not a
 * mutant: welford (per-thread Welford, combined in thread order with Chan's
 * formula), a differently-correct kernel that must pass. */
static void layernorm_fwd(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x"), *G = tp_case_tensor(c, "gamma"), *Be = tp_case_tensor(c, "beta");
    const int rows = (int)X->shape[0], cols = (int)X->shape[1], B = ln_block_size(cols);
    const uint16_t *x = X->data, *g = G->data, *be = Be->data;
    uint16_t *y = tp_case_tensor(c, "y")->data;
    float *mean = tp_case_tensor(c, "mean")->data, *rstd = tp_case_tensor(c, "rstd")->data;
    const float eps = strcmp(mutant, "wrong_eps") == 0 ? 1e-3f : 1e-5f;
    const int welford = strcmp(mutant, "welford") == 0, swap = strcmp(mutant, "swap_mean_rstd") == 0;
    const float ndiv = strcmp(mutant, "unbiased_var") == 0 ? (float)(cols - 1) : (float)cols;
#pragma omp parallel for
    for (int r = 0; r < rows; r++) {
        const uint16_t *xr = x + (size_t)r * cols;
        float part[1024], mu, var;
        if (welford) {
            float cnt = 0.0f, m = 0.0f, m2 = 0.0f;
            for (int t = 0; t < B; t++) {
                float ct = 0.0f, mt = 0.0f, qt = 0.0f;
                for (int j = t; j < cols; j += B) {
                    float v = h2f(xr[j]);
                    ct += 1.0f;
                    float d = v - mt;
                    mt += d / ct;
                    qt = fmaf(d, v - mt, qt);
                }
                if (ct == 0.0f)
                    continue;
                float tot = cnt + ct, d = mt - m;
                m = m + d * (ct / tot);
                m2 = m2 + qt + d * d * (cnt * ct / tot);
                cnt = tot;
            }
            mu = m;
            var = m2 / ndiv;
        } else {
            for (int t = 0; t < B; t++) {
                float s = 0.0f;
                for (int j = t; j < cols; j += B)
                    s += h2f(xr[j]);
                part[t] = s;
            }
            mu = ln_block_reduce(part, B) / (float)cols;
            for (int t = 0; t < B; t++) {
                float q = 0.0f;
                for (int j = t; j < cols; j += B) {
                    float d = h2f(xr[j]) - mu;
                    q = fmaf(d, d, q);
                }
                part[t] = q;
            }
            var = ln_block_reduce(part, B) / ndiv;
        }
        const float rs = tp_ln_rsqrt_rn(var + eps);
        for (int j = 0; j < cols; j++) {
            float d = h2f(xr[j]) - mu;
            y[(size_t)r * cols + j] = tp_f16_from_float(fmaf(d * rs, h2f(g[j]), h2f(be[j])));
        }
        mean[r] = swap ? rs : mu;
        rstd[r] = swap ? mu : rs;
    }
}

/* Mutants: drop_sum1 (forgets the sum(dxh) term), swap_mean_rstd (reads
 * each statistic from the other's input). */
static void layernorm_bwd_input(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x");
    const int rows = (int)X->shape[0], cols = (int)X->shape[1], B = ln_block_size(cols);
    const uint16_t *x = X->data, *dy = tp_case_tensor(c, "dy")->data, *g = tp_case_tensor(c, "gamma")->data,
                   *mean = tp_case_tensor(c, "mean")->data, *rstd = tp_case_tensor(c, "rstd")->data;
    uint16_t *dx = tp_case_tensor(c, "dx")->data;
    const int swap = strcmp(mutant, "swap_mean_rstd") == 0, drop = strcmp(mutant, "drop_sum1") == 0;
#pragma omp parallel for
    for (int r = 0; r < rows; r++) {
        const size_t off = (size_t)r * cols;
        const float m = h2f(swap ? rstd[r] : mean[r]), s = h2f(swap ? mean[r] : rstd[r]);
        float p1[1024], p2[1024];
        for (int t = 0; t < B; t++) {
            float a1 = 0.0f, a2 = 0.0f;
            for (int j = t; j < cols; j += B) {
                float xh = (h2f(x[off + j]) - m) * s, dxh = h2f(dy[off + j]) * h2f(g[j]);
                a1 += dxh;
                a2 = fmaf(dxh, xh, a2);
            }
            p1[t] = a1;
            p2[t] = a2;
        }
        const float sum1 = drop ? 0.0f : ln_block_reduce(p1, B), sum2 = ln_block_reduce(p2, B);
        const float k = s / (float)cols, n = (float)cols;
        for (int j = 0; j < cols; j++) {
            float xh = (h2f(x[off + j]) - m) * s, dxh = h2f(dy[off + j]) * h2f(g[j]);
            dx[off + j] = tp_f16_from_float(k * fmaf(-xh, sum2, fmaf(n, dxh, -sum1)));
        }
    }
}

/* Mutants: no_rstd (xh = x - mean), drop_last_row. */
static void layernorm_bwd_params(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x");
    const int rows = (int)X->shape[0], cols = (int)X->shape[1];
    const uint16_t *x = X->data, *dy = tp_case_tensor(c, "dy")->data;
    /* the statistics are fp32 (binary16 in runs recorded before fp32 inputs) */
    const tp_tensor *M = tp_case_tensor(c, "mean"), *S = tp_case_tensor(c, "rstd");
    float *dgamma = tp_case_tensor(c, "dgamma")->data, *dbeta = tp_case_tensor(c, "dbeta")->data;
    const int no_rstd = strcmp(mutant, "no_rstd") == 0, R = strcmp(mutant, "drop_last_row") == 0 ? rows - 1 : rows;
    /* Thread t of column col's block sums rows t, t + 256, ... in that
     * order. Rows are walked in memory order (2^20-row cases stay fast):
     * each (column, thread) accumulator still sees its rows ascending, so
     * the sums are the same as a column-by-column walk. Binary16 values
     * are decoded through a table of all 65536 patterns. */
    enum { CB = 16 }; /* columns per OpenMP chunk */
    float *f16 = malloc(65536 * sizeof *f16);
    for (int h = 0; h < 65536; h++)
        f16[h] = h2f((uint16_t)h);
#pragma omp parallel for schedule(dynamic, 1)
    for (int c0 = 0; c0 < cols; c0 += CB) {
        const int nc = cols - c0 < CB ? cols - c0 : CB;
        float sg[CB][256], sb[CB][256];
        for (int k = 0; k < nc; k++)
            for (int t = 0; t < 256; t++)
                sg[k][t] = sb[k][t] = 0.0f;
        for (int r = 0; r < R; r++) {
            const int t = r % 256;
            const float m = M->dtype == TP_F32 ? ((const float *)M->data)[r] : f16[((const uint16_t *)M->data)[r]],
                        s = S->dtype == TP_F32 ? ((const float *)S->data)[r] : f16[((const uint16_t *)S->data)[r]];
            for (int k = 0; k < nc; k++) {
                size_t i = (size_t)r * cols + c0 + k;
                float gv = f16[dy[i]], xh = f16[x[i]] - m;
                if (!no_rstd)
                    xh = xh * s;
                sg[k][t] = fmaf(xh, gv, sg[k][t]);
                sb[k][t] += gv;
            }
        }
        for (int k = 0; k < nc; k++) {
            for (int w = 128; w > 0; w /= 2)
                for (int t = 0; t < w; t++) {
                    sg[k][t] += sg[k][t + w];
                    sb[k][t] += sb[k][t + w];
                }
            dgamma[c0 + k] = sg[k][0];
            dbeta[c0 + k] = sb[k][0];
        }
    }
    free(f16);
}

/* gelu_fwd with the host's tanhf (glibc: within a few ulp, like the
 * device's). Mutant wrong_constant uses c = 0.7978. */
static void gelu_fwd(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x"), *Y = tp_case_tensor(c, "y");
    const uint16_t *x = X->data;
    uint16_t *y = Y->data;
    const float cc = strcmp(mutant, "wrong_constant") == 0 ? 0.7978f : 0.7978845608f, a = 0.044715f;
    for (int64_t i = 0; i < X->numel; i++) {
        float xf = h2f(x[i]);
        float x2 = xf * xf;
        float x3 = x2 * xf;
        float inner = cc * (xf + a * x3);
        float t = tanhf(inner);
        y[i] = tp_f16_from_float(0.5f * xf * (1.0f + t));
    }
}

/* SwiGLU forward (op elementwise, contracts/swiglu_fwd.toml and, in
 * bfloat16, swiglu_fwd_bf16.toml), with the host's expf. Mutants:
 * wrong_constant (silu's 1 becomes 0.5), truncate (store16). */
static void swiglu_fwd(tp_case *c, const char *mutant)
{
    const tp_tensor *A = tp_case_tensor(c, "a"), *B = tp_case_tensor(c, "b"), *Y = tp_case_tensor(c, "y");
    const tp_format *fmt = tp_format_of(A->dtype);
    const uint16_t *a = A->data, *b = B->data;
    uint16_t *y = Y->data;
    const float one = strcmp(mutant, "wrong_constant") == 0 ? 0.5f : 1.0f;
    for (int64_t i = 0; i < A->numel; i++) {
        const float av = load16(fmt, a[i]), bv = load16(fmt, b[i]);
        y[i] = store16(fmt, av / (one + expf(-av)) * bv, mutant);
    }
}

/* Attention forward (op attention_fwd, contracts/attention_fwd*.toml): the
 * kernel's online softmax on the host (sequential fmaf dots, tiles of 64
 * keys in order, P rounded to binary16, host expf and logf). Mutants that
 * the contract admits: reverse_tiles (the key tiles last to first),
 * tile32 (tiles of 32 keys), p_fp32 (P kept in binary32). Mutants it must
 * catch: no_rescale (acc not multiplied by alpha), stale_max (p with the
 * previous tile's maximum once there is one), off_by_one (a causal row
 * misses its own key), scale_twice, p_fp8 (P kept to 4 significant bits),
 * drop_last_tile. Mutant fa2 is FlashAttention-2's arithmetic (the model
 * exp = "exp2f_scaled", final = "reciprocal"): unscaled scores, p =
 * exp2f(fmaf(s, c, -RN32(m c))) with c = RN32(scale log2 e), the rescale
 * exp2f(RN32(m_old - m_new) c), O = acc RN32(1 / l). */
static float round_sig4(float x)
{
    int e;
    const float f = frexpf(x, &e); /* x = f 2^e, 0.5 <= f < 1 */
    return ldexpf(nearbyintf(f * 16.0f) / 16.0f, e);
}

static void attention(tp_case *c, const char *mutant, int causal)
{
    const tp_tensor *Qt = tp_case_tensor(c, "Q"), *Kt = tp_case_tensor(c, "K"), *Vt = tp_case_tensor(c, "V");
    const uint16_t *Q = Qt->data, *K = Kt->data, *V = Vt->data;
    uint16_t *O = tp_case_tensor(c, "O")->data;
    float *lse = tp_case_tensor(c, "lse")->data;
    const int64_t BH = Qt->shape[0] * Qt->shape[1], L = Qt->shape[2], S = Kt->shape[2], d = Qt->shape[3];
    const int bn = strcmp(mutant, "tile32") == 0 ? 32 : 64, reverse = strcmp(mutant, "reverse_tiles") == 0;
    const int p32 = strcmp(mutant, "p_fp32") == 0, fp8 = strcmp(mutant, "p_fp8") == 0;
    const int norescale = strcmp(mutant, "no_rescale") == 0, stale = strcmp(mutant, "stale_max") == 0;
    const int obo = strcmp(mutant, "off_by_one") == 0, twice = strcmp(mutant, "scale_twice") == 0;
    const int drop = strcmp(mutant, "drop_last_tile") == 0;
    const float scale = 1.0f / sqrtf((float)d);
    const int fa2 = strcmp(mutant, "fa2") == 0;
    const float c2 = (float)((double)scale * 1.4426950408889634); /* RN32(scale log2 e) */
#pragma omp parallel for schedule(dynamic, 8)
    for (int64_t r = 0; r < BH * L; r++) {
        const int64_t bh = r / L, qi = r % L;
        const uint16_t *q = Q + r * d;
        const int64_t nk = causal ? qi + 1 : S, ntiles = (nk + bn - 1) / bn - (drop && nk > bn ? 1 : 0);
        float m = -INFINITY, l = 0.0f, acc[256], s[64];
        for (int64_t cc = 0; cc < d; cc++)
            acc[cc] = 0.0f;
        for (int64_t tt = 0; tt < ntiles; tt++) {
            const int64_t k0 = (reverse ? ntiles - 1 - tt : tt) * bn;
            float mt = -INFINITY;
            for (int64_t j = 0; j < bn; j++) {
                const int64_t key = k0 + j;
                const int visible = key < S && (!causal || (obo ? key < qi : key <= qi));
                float dot = 0.0f;
                for (int64_t cc = 0; visible && cc < d; cc++)
                    dot = fmaf(h2f(q[cc]), h2f(K[(bh * S + key) * d + cc]), dot);
                s[j] = visible ? (fa2 ? dot : twice ? dot * scale * scale : dot * scale) : -INFINITY;
                mt = fmaxf(mt, s[j]);
            }
            const float m_new = fmaxf(m, mt), m_use = stale && m != -INFINITY ? m : m_new;
            float ps = 0.0f;
            const float m_c = m_use * c2;
            const float alpha = fa2 ? exp2f((m - m_new) * c2) : expf(m - m_new);
            for (int64_t cc = 0; cc < d; cc++)
                acc[cc] = norescale ? acc[cc] : alpha * acc[cc];
            for (int64_t j = 0; j < bn; j++) {
                const float p = fa2 ? exp2f(fmaf(s[j], c2, -m_c)) : expf(s[j] - m_use);
                ps += p;
                const float pv = p32 ? p : fp8 ? round_sig4(p) : h2f(tp_f16_from_float(p));
                for (int64_t cc = 0; pv != 0.0f && cc < d; cc++)
                    acc[cc] = fmaf(pv, h2f(V[(bh * S + k0 + j) * d + cc]), acc[cc]);
            }
            l = alpha * l + ps;
            m = m_new;
        }
        const float inv = 1.0f / l;
        for (int64_t cc = 0; cc < d; cc++)
            O[r * d + cc] = tp_f16_from_float(fa2 ? acc[cc] * inv : acc[cc] / l);
        lse[r] = fa2 ? m * scale + logf(l) : m + logf(l);
    }
}

static void attention_full(tp_case *c, const char *mutant) { attention(c, mutant, 0); }
static void attention_causal(tp_case *c, const char *mutant) { attention(c, mutant, 1); }

/* Rotary position embedding forward (op elementwise, contracts/rope_fwd.toml),
 * with the host's sinf and cosf (glibc: within 1 ulp). Mutants: interleaved (the
 * GPT-J pairing of elements 2i and 2i+1 with frequency i), sign (the second
 * half subtracts: x2 c - x1 s), half_angle (the angle stored as binary16). */
static void rope_fwd(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x"), *P = tp_case_tensor(c, "pos"), *F = tp_case_tensor(c, "inv_freq");
    const uint16_t *x = X->data;
    const int32_t *pos = P->data;
    const float *freq = F->data;
    uint16_t *y = tp_case_tensor(c, "y")->data;
    const int64_t heads = X->shape[1], d = X->shape[2], half = d / 2, rows = X->numel / d;
    const int interleaved = strcmp(mutant, "interleaved") == 0, sign = strcmp(mutant, "sign") == 0;
    for (int64_t row = 0; row < rows; row++)
        for (int64_t i = 0; i < half; i++) {
            float angle = (float)pos[row / heads] * freq[i];
            if (strcmp(mutant, "half_angle") == 0)
                angle = h2f(tp_f16_from_float(angle));
            const float s = sinf(angle), co = cosf(angle);
            const int64_t a = row * d + (interleaved ? 2 * i : i), b = interleaved ? a + 1 : a + half;
            const float x1 = h2f(x[a]), x2 = h2f(x[b]);
            y[a] = tp_f16_from_float(x1 * co - x2 * s);
            y[b] = tp_f16_from_float(sign ? x2 * co - x1 * s : x2 * co + x1 * s);
        }
}

/* The fused MLP projection (op contraction, contracts/gemm_bias_gelu.toml
 * and gemm_bias_gelu_nt.toml) as kernels/gemm_bias_gelu.hip runs it: per
 * element a sequential fmaf chain over k from 0.0f, then x = acc + bias,
 * the tanh-GELU in fp32 (the host's tanhf, every product and sum rounded
 * apart), RN16. B is K x N, or N x K (nn.Linear) when the plan's
 * transpose_b is set. Mutants: no_bias (the bias never added),
 * bias_after_gelu (gelu(acc) + bias), bias_by_row (bias[m] instead of
 * bias[n]), fp16_tile_acc (the accumulator stored as binary16 after every
 * tile of 16 k), quick_gelu (x * sigmoid(1.702 x) in place of the tanh
 * form). */
static int emu_transpose_b; /* set from the plan in main */
static void gemm_bias_gelu(tp_case *c, const char *mutant)
{
    const tp_tensor *A = tp_case_tensor(c, "A"), *B = tp_case_tensor(c, "B"), *bias = tp_case_tensor(c, "bias"),
                    *C = tp_case_tensor(c, "C");
    const int64_t batch = A->shape[0], M = A->shape[1], K = A->shape[2], N = C->shape[2];
    const uint16_t *a = A->data, *b = B->data, *bv = bias->data;
    uint16_t *out = C->data;
    const int nt = emu_transpose_b, no_bias = strcmp(mutant, "no_bias") == 0,
              after = strcmp(mutant, "bias_after_gelu") == 0, by_row = strcmp(mutant, "bias_by_row") == 0,
              tile16 = strcmp(mutant, "fp16_tile_acc") == 0, quick = strcmp(mutant, "quick_gelu") == 0;
#pragma omp parallel for collapse(2)
    for (int64_t q = 0; q < batch; q++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                float acc = 0.0f;
                for (int64_t k = 0; k < K; k++) {
                    acc = fmaf(h2f(a[(q * M + m) * K + k]), h2f(b[nt ? n * K + k : k * N + n]), acc);
                    if (tile16 && (k % 16 == 15 || k == K - 1))
                        acc = h2f(tp_f16_from_float(acc));
                }
                const float bb = no_bias ? 0.0f : h2f(bv[by_row ? m % N : n]);
                const float x = after ? acc : acc + bb;
                const float x3 = x * x * x, inner = 0.7978845608f * (x + 0.044715f * x3);
                const float t = tanhf(inner), y = quick ? x / (1.0f + expf(-1.702f * x)) : 0.5f * x * (1.0f + t);
                out[(q * M + m) * N + n] = tp_f16_from_float(after ? y + bb : y);
            }
}

/* Fused softmax cross-entropy (op rowwise, contracts/softmax_xent_fused.toml)
 * as kernels/softmax_xent_fused.hip runs it: 1024 strided per-thread sums,
 * then a pairwise tree; the host's expf and logf (glibc: within 1 ulp).
 * Mutants: no_onehot (grad without the target's -1), loss_no_max (loss =
 * logf(s) - x[t]), unscaled (grad not times scale), fp16_sum (each
 * thread's running sum of e kept in binary16), onehot_next (the -1 at
 * column t + 1). */
static void softmax_xent_fused(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x");
    const int64_t V = X->shape[1], rows = X->numel / V;
    const int32_t *target = tp_case_tensor(c, "target")->data;
    const float scale = ((const float *)tp_case_tensor(c, "scale")->data)[0];
    float *loss = tp_case_tensor(c, "loss")->data;
    uint16_t *grad = tp_case_tensor(c, "grad")->data;
    const int no_onehot = strcmp(mutant, "no_onehot") == 0, no_max = strcmp(mutant, "loss_no_max") == 0,
              unscaled = strcmp(mutant, "unscaled") == 0, fp16_sum = strcmp(mutant, "fp16_sum") == 0,
              next = strcmp(mutant, "onehot_next") == 0;
    enum { T = 1024 };
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t r = 0; r < rows; r++) {
        const uint16_t *x = (const uint16_t *)X->data + r * V;
        uint16_t *g = grad + r * V;
        const int64_t t = target[r];
        if (t == -100) {
            for (int64_t j = 0; j < V; j++)
                g[j] = tp_f16_from_float(0.0f);
            loss[r] = 0.0f;
            continue;
        }
        float red[T];
        for (int k = 0; k < T; k++) {
            red[k] = -INFINITY;
            for (int64_t j = k; j < V; j += T)
                red[k] = fmaxf(red[k], h2f(x[j]));
        }
        for (int w = T / 2; w > 0; w /= 2)
            for (int k = 0; k < w; k++)
                red[k] = fmaxf(red[k], red[k + w]);
        const float m = red[0];
        for (int k = 0; k < T; k++) {
            float s = 0.0f;
            for (int64_t j = k; j < V; j += T) {
                s += expf(h2f(x[j]) - m);
                if (fp16_sum)
                    s = h2f(tp_f16_from_float(s));
            }
            red[k] = s;
        }
        for (int w = T / 2; w > 0; w /= 2)
            for (int k = 0; k < w; k++)
                red[k] += red[k + w];
        const float s = red[0];
        const int64_t hot = next ? t + 1 : t;
        for (int64_t j = 0; j < V; j++) {
            const float p = expf(h2f(x[j]) - m) / s, d = p - (j == hot && !no_onehot ? 1.0f : 0.0f);
            g[j] = tp_f16_from_float(unscaled ? d : d * scale);
        }
        loss[r] = no_max ? logf(s) - h2f(x[t]) : logf(s) + m - h2f(x[t]);
    }
}

/* SwiGLU backward (op elementwise, contracts/swiglu_bwd.toml), with the
 * host's expf. Mutant wrong_constant: 1 - s becomes 0.5 - s. */
static void swiglu_bwd(tp_case *c, const char *mutant)
{
    const tp_tensor *A = tp_case_tensor(c, "a"), *B = tp_case_tensor(c, "b"), *G = tp_case_tensor(c, "dy");
    const uint16_t *a = A->data, *b = B->data, *g = G->data;
    uint16_t *da = tp_case_tensor(c, "da")->data, *db = tp_case_tensor(c, "db")->data;
    const float one = strcmp(mutant, "wrong_constant") == 0 ? 0.5f : 1.0f;
    for (int64_t i = 0; i < A->numel; i++) {
        const float av = h2f(a[i]), bv = h2f(b[i]), gv = h2f(g[i]);
        const float s = 1.0f / (1.0f + expf(-av));
        da[i] = tp_f16_from_float(gv * bv * s * (1.0f + av * (one - s)));
        db[i] = tp_f16_from_float(gv * av * s);
    }
}

/* RMSNorm forward (op rowwise, contracts/rmsnorm_fwd.toml and, in
 * bfloat16, rmsnorm_fwd_bf16.toml): each row's squares summed in order
 * with fmaf, a correctly rounded rsqrtf. Mutants: no_eps (eps dropped
 * from the root), truncate (store16). */
static void rmsnorm_fwd(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x"), *W = tp_case_tensor(c, "w");
    const tp_format *fmt = tp_format_of(X->dtype);
    const uint16_t *x = X->data, *w = W->data;
    uint16_t *y = tp_case_tensor(c, "y")->data;
    float *rstd = tp_case_tensor(c, "rstd")->data;
    const int64_t cols = X->shape[1], rows = X->numel / cols;
    const float eps = strcmp(mutant, "no_eps") == 0 ? 0.0f : 1e-6f;
    for (int64_t r = 0; r < rows; r++) {
        float q = 0.0f;
        for (int64_t j = 0; j < cols; j++)
            q = fmaf(load16(fmt, x[r * cols + j]), load16(fmt, x[r * cols + j]), q);
        const float rs = tp_ln_rsqrt_rn(q / (float)cols + eps);
        for (int64_t j = 0; j < cols; j++)
            y[r * cols + j] = store16(fmt, load16(fmt, x[r * cols + j]) * rs * load16(fmt, w[j]), mutant);
        rstd[r] = rs;
    }
}

/* RMSNorm backward, grad_input (op rowwise, contracts/rmsnorm_bwd_input.toml):
 * the row dot in order with fmaf. Mutant no_dot: the dot term left out. */
static void rmsnorm_bwd_input(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x");
    const uint16_t *x = X->data, *w = tp_case_tensor(c, "w")->data, *dy = tp_case_tensor(c, "dy")->data;
    const float *rstd = tp_case_tensor(c, "rstd")->data;
    uint16_t *dx = tp_case_tensor(c, "dx")->data;
    const int64_t cols = X->shape[1], rows = X->numel / cols;
    const int no_dot = strcmp(mutant, "no_dot") == 0;
    for (int64_t r = 0; r < rows; r++) {
        const float rs = rstd[r];
        float dot = 0.0f;
        for (int64_t j = 0; j < cols; j++)
            dot = fmaf(h2f(w[j]) * h2f(dy[r * cols + j]), h2f(x[r * cols + j]) * rs, dot);
        const float cc = no_dot ? 0.0f : dot / (float)cols;
        for (int64_t j = 0; j < cols; j++) {
            const float g = h2f(w[j]) * h2f(dy[r * cols + j]), xh = h2f(x[r * cols + j]) * rs;
            dx[r * cols + j] = tp_f16_from_float(rs * fmaf(-xh, cc, g));
        }
    }
}

/* RMSNorm backward, grad_weight (op rowwise along columns,
 * contracts/rmsnorm_bwd_weight.toml): each column summed from the last
 * row up. Mutant skip_last_row: the last row left out. */
static void rmsnorm_bwd_weight(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x");
    const uint16_t *x = X->data, *dy = tp_case_tensor(c, "dy")->data;
    const float *rstd = tp_case_tensor(c, "rstd")->data;
    float *dw = tp_case_tensor(c, "dw")->data;
    const int64_t cols = X->shape[1], rows = X->numel / cols;
    const int64_t last = strcmp(mutant, "skip_last_row") == 0 ? rows - 2 : rows - 1;
    for (int64_t j = 0; j < cols; j++) {
        float acc = 0.0f;
        for (int64_t r = last; r >= 0; r--)
            acc += (h2f(x[r * cols + j]) * rstd[r]) * h2f(dy[r * cols + j]);
        dw[j] = acc;
    }
}

/* Embedding forward: a row is copied only for an index in [0, V). Mutant
 * clamp_index: indices are clamped into [0, V) instead of skipped. */
static void embedding_fwd(tp_case *c, const char *mutant)
{
    const tp_tensor *I = tp_case_tensor(c, "idx"), *W = tp_case_tensor(c, "W"), *O = tp_case_tensor(c, "out");
    const int32_t *idx = I->data;
    const uint16_t *w = W->data;
    uint16_t *out = O->data;
    int64_t n = I->numel, V = W->shape[0], D = W->shape[1];
    int clamp = strcmp(mutant, "clamp_index") == 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = idx[i];
        if (clamp)
            r = r < 0 ? 0 : r >= V ? V - 1 : r;
        if (r < 0 || r >= V)
            continue;
        memcpy(out + i * D, w + r * D, (size_t)D * sizeof *out);
    }
}

/* Embedding backward: the CAS loop's arithmetic, a = RN16(RN32(a + g)) per
 * add, with the queries taken in a shuffled order (seeded by the case) as
 * the GPU's scheduling might. Mutants: fp32_once accumulates each element
 * in fp32 and rounds once (what the pilot's oracle assumed); no_atomic lets
 * the last writer win (a plain store instead of the CAS loop). */
static void embedding_bwd(tp_case *c, const char *mutant)
{
    const tp_tensor *I = tp_case_tensor(c, "idx"), *G = tp_case_tensor(c, "gout"), *GW = tp_case_tensor(c, "gW");
    const int32_t *idx = I->data;
    const uint16_t *g = G->data;
    uint16_t *gw = GW->data;
    int64_t n = I->numel, V = GW->shape[0], D = GW->shape[1];
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    uint64_t s = c->seed * 0x9e3779b97f4a7c15ull + 1;
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) { /* Fisher-Yates with xorshift64 */
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int64_t j = (int64_t)(s % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    if (strcmp(mutant, "fp32_once") == 0) {
        float *acc = calloc((size_t)(V * D), sizeof *acc);
        for (int64_t k = 0; k < V * D; k++)
            acc[k] = h2f(gw[k]);
        for (int64_t q = 0; q < n; q++)
            for (int64_t d = 0; d < D; d++)
                acc[idx[perm[q]] * D + d] += h2f(g[perm[q] * D + d]);
        for (int64_t k = 0; k < V * D; k++)
            gw[k] = tp_f16_from_float(acc[k]);
        free(acc);
    } else {
        int plain = strcmp(mutant, "no_atomic") == 0;
        for (int64_t q = 0; q < n; q++) {
            int64_t i = perm[q];
            uint16_t *row = gw + (int64_t)idx[i] * D;
            for (int64_t d = 0; d < D; d++) {
                float sum = (plain ? 0.0f : h2f(row[d])) + h2f(g[i * D + d]);
                row[d] = tp_f16_from_float(sum);
            }
        }
    }
    free(perm);
}

/* The emulations, by op: the registry's ops (build/gen/registry.json) are
 * the list to cover, and tests/registry.t checks that every one has a row
 * (`tool_emulate --ops`). Where contracts of one op run different kernels
 * (the GEMM backward contracts name other tensors), a row names the
 * contract; the first matching row wins. */
static const struct {
    const char *op, *contract;
    void (*run)(tp_case *c, const char *mutant);
} emulations[] = {
    {"gemm", "gemm_bwd_a", gemm_bwd_a},
    {"gemm", "gemm_bwd_b", gemm_bwd_b},
    {"gemm", NULL, gemm},
    {"gelu_bwd", NULL, gelu_bwd},
    {"gelu_fwd", NULL, gelu_fwd},
    {"softmax_fwd", NULL, softmax_fwd},
    {"softmax_xent_bwd", NULL, softmax_xent_bwd},
    {"layernorm_fwd", NULL, layernorm_fwd},
    {"layernorm_bwd_input", NULL, layernorm_bwd_input},
    {"layernorm_bwd_params", NULL, layernorm_bwd_params},
    {"embedding_fwd", NULL, embedding_fwd},
    {"embedding_bwd", NULL, embedding_bwd},
    {"elementwise", "swiglu_fwd", swiglu_fwd},
    {"elementwise", "swiglu_bwd", swiglu_bwd},
    {"elementwise", "swiglu_fwd_bf16", swiglu_fwd},
    {"elementwise", "rope_fwd", rope_fwd},
    {"attention_fwd", "attention_fwd_causal", attention_causal},
    {"attention_fwd", NULL, attention_full},
    {"rowwise", "rmsnorm_fwd", rmsnorm_fwd},
    {"rowwise", "rmsnorm_fwd_bf16", rmsnorm_fwd},
    {"rowwise", "rmsnorm_bwd_input", rmsnorm_bwd_input},
    {"rowwise", "rmsnorm_bwd_weight", rmsnorm_bwd_weight},
    {"rowwise", "softmax_xent_fused", softmax_xent_fused},
    {"contraction", NULL, gemm_bias_gelu},
};
#define NEMU (sizeof emulations / sizeof emulations[0])

/* --ops: the registered ops this tool emulates, one per line; an
 * emulation of an op the registry does not know is an error (a renamed
 * op must not leave its emulation behind). */
static int list_ops(void)
{
    int rc = 0;
    for (size_t i = 0; i < NEMU; i++) {
        if (!tp_op_find(emulations[i].op)) {
            fprintf(stderr, "tool_emulate: an emulation for op %s, which the registry does not know\n",
                    emulations[i].op);
            rc = 2;
        }
        if (i == 0 || strcmp(emulations[i].op, emulations[i - 1].op) != 0)
            printf("%s\n", emulations[i].op);
    }
    return rc;
}

/* ------------------------------------------------ the emulated device */

static const tp_plan *emu_plan;
static const char *emu_mutant = "none";

/* --fault KIND=CASE, at most 8 */
static struct {
    const char *kind, *case_name;
} emu_faults[8];
static int emu_nfaults;
static int emu_lost; /* a "lost" fault happened: every later call fails, as after a sticky error */

static int parse_fault(const char *spec)
{
    const char *eq = strchr(spec, '=');
    static const char *kinds[] = {"segv", "abort", "lost", "hang", "launch"};
    int known = 0;
    for (size_t k = 0; eq && k < sizeof kinds / sizeof kinds[0]; k++)
        known |= (size_t)(eq - spec) == strlen(kinds[k]) && strncmp(spec, kinds[k], strlen(kinds[k])) == 0;
    if (!known || !eq[1] || emu_nfaults == 8) {
        fprintf(stderr, "--fault %s: expected KIND=CASE with KIND segv, abort, lost, hang or launch (at most 8)\n", spec);
        return -1;
    }
    emu_faults[emu_nfaults].kind = strndup(spec, (size_t)(eq - spec));
    emu_faults[emu_nfaults++].case_name = eq + 1;
    return 0;
}

/* The planted fault of a case: 0 none, else -1 with the runtime's text
 * (segv and hang do not return). */
static int planted_fault(const tp_case *c, char *err, size_t errlen)
{
    for (int k = 0; k < emu_nfaults; k++) {
        if (strcmp(emu_faults[k].case_name, c->name) != 0)
            continue;
        const char *kind = emu_faults[k].kind;
        struct rlimit none = {0, 0}; /* a planted crash leaves no core file */
        setrlimit(RLIMIT_CORE, &none);
        if (strcmp(kind, "segv") == 0)
            raise(SIGSEGV);
        if (strcmp(kind, "abort") == 0) { /* what ROCm does on a GPU memory fault */
            fprintf(stderr, "Memory access fault by GPU node-1 (emulated) on address 0x10. Reason: Page not present "
                            "or supervisor privilege.\n");
            abort();
        }
        if (strcmp(kind, "hang") == 0)
            for (;;)
                pause();
        if (strcmp(kind, "lost") == 0) {
            emu_lost = 1;
            snprintf(err, errlen, "kernel launch: an illegal memory access was encountered (emulated)");
        } else
            snprintf(err, errlen, "kernel launch: invalid configuration argument (emulated)");
        return -1;
    }
    return 0;
}

static int cpu_context_lost(void) { return emu_lost; }

/* --mutant no_device: a machine without a GPU (the harness exits 3) */
static int emu_open(tp_device_props *p, char *err, size_t errlen)
{
    if (strcmp(emu_mutant, "no_device") == 0) {
        snprintf(err, errlen, "no CUDA-capable device is detected (emulated)");
        return -1;
    }
    return host_open(p, err, errlen);
}

/* The kernel on the "device" buffers: the case with its tensors' data
 * swapped for them. */
static int cpu_launch(const tp_case *c, void *const *buffers, const tp_launch_shape *shape, char *err, size_t errlen)
{
    (void)shape;
    if (emu_lost) {
        snprintf(err, errlen, "kernel launch: an illegal memory access was encountered (emulated, earlier)");
        return -1;
    }
    if (planted_fault(c, err, errlen) != 0)
        return -1;
    tp_case view = *c;
    for (int t = 0; t < view.ntensors; t++)
        view.tensors[t].data = buffers[t];
    const char *contract = emu_plan->contract, *op = emu_plan->op;
    size_t e = 0;
    while (e < NEMU && !(strcmp(emulations[e].op, op) == 0 &&
                         (!emulations[e].contract || strcmp(emulations[e].contract, contract) == 0)))
        e++;
    if (e == NEMU) {
        snprintf(err, errlen, "no CPU emulation for this op");
        return -1;
    }
    emulations[e].run(&view, emu_mutant);
    return 0;
}


/* The emulated device is "cuda": the ops then use the CUDA ulp bounds the
 * contracts document, as the recorded runs do. --backend hip names it
 * "hip" instead, so that the ops use the contracts' HIP figures (and
 * refuse what those do not cover); the kernels are emulated the same way. */
int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--ops") == 0)
        return list_ops();
    if (argc < 3) {
        fprintf(stderr, "usage: tool_emulate PLAN.json OUT_DIR [--mutant drop_last_term|fp16_accumulate|wrong_constant|no_device] "
                        "[--fault segv|abort|lost|hang|launch=CASE]... [--exact-provider emulated|wrong=INDEX] "
                        "[--backend cuda|hip] [harness options...]\n"
                        "       tool_emulate --ops\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", argv[1]);
        return 2;
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char err[600];
    tp_plan *plan = tp_plan_parse(text, err, sizeof err);
    if (!plan) {
        fprintf(stderr, "%s: %s\n", argv[1], err);
        return 2;
    }
    /* one timed launch by default: the emulations are slow, not timed */
    char *hargv[64] = {argv[0], "--out", argv[2], "--reps", "1"};
    int hargc = 5;
    const char *backend = "cuda";
    for (int i = 3; i < argc && hargc < 62; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            backend = argv[++i];
            if (strcmp(backend, "cuda") != 0 && strcmp(backend, "hip") != 0) {
                fprintf(stderr, "--backend %s: expected cuda or hip\n", backend);
                return 2;
            }
        } else if (strcmp(argv[i], "--mutant") == 0 && i + 1 < argc)
            emu_mutant = argv[++i];
        else if (strcmp(argv[i], "--exact-provider") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strncmp(v, "wrong=", 6) == 0)
                fixed_provider_wrong_at = atol(v + 6);
            else if (strcmp(v, "emulated") != 0) {
                fprintf(stderr, "--exact-provider %s: expected emulated or wrong=INDEX\n", v);
                return 2;
            }
            tp_gemm_exact_provider_set(&fixed_provider);
        } else if (strcmp(argv[i], "--fault") == 0 && i + 1 < argc) {
            if (parse_fault(argv[++i]) != 0)
                return 2;
        } else
            hargv[hargc++] = argv[i];
    }
    emu_plan = plan;
    emu_transpose_b = tp_value_is_true(tp_value_get(plan->model, "transpose_b"));
    tp_harness_info info = {text, backend, "cpu emulation (gcc)", "tests/tool_emulate.c"};
    tp_device cpu_device = host_device_with(cpu_launch);
    cpu_device.open = emu_open;
    cpu_device.context_lost = cpu_context_lost;
    int rc = tp_harness_main(hargc, hargv, &info, &cpu_device);
    tp_plan_free(plan);
    return rc;
}
