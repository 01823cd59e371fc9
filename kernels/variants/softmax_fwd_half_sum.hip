/* variant: softmax_fwd_half_sum
 * contract: softmax_fwd
 * expect: wrong
 * entry: softmax_fwd_half_sum
 * cases: wide_logits_64x1024 dominant_64x512
 * what: each thread accumulates its part of the row sum in binary16 (__hadd of the binary16 exps) where the contract says fp32
 */
/* fp16 accumulation where the contract declares an fp32 sum of the fp32
 * exps: each thread adds the binary16 copies of its exps with __hadd, so
 * every step rounds to 11 bits (and exps below 2^-24 vanish); the tree
 * over the 256 partial sums stays fp32. The sum, hence every output of
 * the row, is off by up to a few 2^-11 relative: visible where the row's
 * mass sits in a few partial sums (wide logits, one dominant logit). */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd_half_sum(const __half *x, __half *y, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *xr = x + (size_t)r * n;
    __half *yr = y + (size_t)r * n;

    float m = -INFINITY;
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        m = fmaxf(m, __half2float(xr[j]));
    red[t] = m;
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] = fmaxf(red[t], red[t + w]);
        __syncthreads();
    }
    const float mx = red[0];
    __syncthreads(); /* everyone has read red[0] before it is reused */

    __half s = __float2half(0.0f);
    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const __half e = __float2half(expf(__half2float(xr[j]) - mx));
        yr[j] = e;
        s = __hadd(s, e);
    }
    red[t] = __half2float(s);
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] += red[t + w];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];

    /* each thread re-reads only the elements it wrote itself: no barrier */
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        yr[j] = __float2half(__half2float(yr[j]) * inv);
}
