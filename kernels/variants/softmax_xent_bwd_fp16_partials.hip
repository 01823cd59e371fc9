/* variant: softmax_xent_bwd_fp16_partials
 * contract: softmax_xent_bwd
 * expect: wrong
 * entry: softmax_xent_bwd_fp16_partials
 * cases: wide_64x1024 special_64x256 single_column
 * what: each thread accumulates its part of the dot in binary16 (__hfma) where the contract says fp32; the tree stays fp32
 */
/* fp16 accumulation where the contract declares fp32: each thread's
 * partial dot is an __hfma chain, rounding every step to binary16 (11
 * bits) and overflowing past 65504. Where a few large products dominate
 * the dot (wide, special) or a row has one term (single_column: dot is
 * RN16(g s), not g s), the lost bits exceed the fp32 bound. On rows of
 * many similar terms (normal, cancel, vocab) the per-thread chains are
 * short (4 or 125 terms) and their errors stay inside the worst-case fp32
 * bound n*2^-24*sum|g s|, which is wide there: not detected. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_xent_bwd_fp16_partials(const __half *s, const __half *g, __half *gi, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *sr = s + (size_t)r * n, *gr = g + (size_t)r * n;
    __half *out = gi + (size_t)r * n;

    __half acc = __float2half(0.0f);
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        acc = __hfma(gr[j], sr[j], acc);
    red[t] = __half2float(acc);
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] += red[t + w];
        __syncthreads();
    }
    const float dot = red[0];

    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float d = __half2float(gr[j]) - dot;
        out[j] = __float2half(__half2float(sr[j]) * d);
    }
}
