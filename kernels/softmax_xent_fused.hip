/* Fused softmax cross-entropy, loss and gradient in one kernel (issue 11;
 * docs/kernels.md#fused-softmax-cross-entropy), as llm.c's
 * fused_classifier and Liger's cross_entropy write it: per row r of
 * logits x[rows, V] with target class t = target[r],
 *   m = max_j x[r,j],   s = sum_j exp(x[r,j] - m),
 *   loss[r]   = log(s) + m - x[r,t]                 (the row's -log p_t)
 *   grad[r,j] = (exp(x[r,j] - m) / s - (j == t)) * scale[0]
 * scale is the loss's upstream gradient (1/rows for a mean over rows).
 * A row whose target is -100 (PyTorch's ignore_index) is ignored: loss 0
 * and a zero gradient row. Other targets must lie in [0, V).
 *
 * Launch: one block of 1024 threads per row, grid (rows); thread i owns
 * columns i, i + 1024, ...: a 128256-word row is 126 elements a thread.
 *
 * Precision path (what contracts/softmax_xent_fused.toml models, op
 * rowwise):
 *   - logits are fp16, widened to fp32 exactly; targets int32;
 *   - m: per-thread fmaxf, then warp-shuffle and per-warp trees: exact;
 *   - e = expf(x - m): the difference rounds to fp32, the device's expf
 *     (CUDA: 2 ulp);
 *   - s: per-thread fp32 sums of e, a shuffle tree, a tree over the
 *     per-warp sums: an fp32 sum in a fixed but unspecified order;
 *   - loss = (logf(s) + m) - x[t] in fp32 (logf: 1 ulp), written as fp32;
 *   - grad: e recomputed, p = e / s (correctly rounded division), p - 1 at
 *     the target (p - 0 elsewhere is p), times scale, then __float2half.
 * No step has the a*b + c shape: FMA contraction changes nothing. */
#include "tp_hip.h"

#define XENT_IGNORE (-100)
#define XENT_MAX_WARPS 32 /* 1024 threads / the narrowest warp (32) */

/* The block's max (is_max) or sum of v, returned to every thread; sh holds
 * one float per warp. */
__device__ static float xent_block_reduce(float v, float *sh, int is_max)
{
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int nwarps = (blockDim.x + warpSize - 1) / warpSize;
    for (int d = warpSize / 2; d > 0; d /= 2) {
        const float o = __shfl_down(v, d);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    __syncthreads(); /* sh may still be read from the previous reduction */
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? sh[lane] : (is_max ? -INFINITY : 0.0f);
        for (int d = warpSize / 2; d > 0; d /= 2) {
            const float o = __shfl_down(v, d);
            v = is_max ? fmaxf(v, o) : v + o;
        }
        if (lane == 0)
            sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}

__global__ void softmax_xent_fused(const __half *x, const int *target, const float *scale, float *loss, __half *grad,
                                   int rows, int V)
{
    __shared__ float sh[XENT_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const __half *xr = x + (size_t)r * V;
    __half *gr = grad + (size_t)r * V;
    const int t = target[r];
    if (t == XENT_IGNORE) { /* the whole block leaves: no barrier below is reached */
        for (int j = threadIdx.x; j < V; j += blockDim.x)
            gr[j] = __float2half(0.0f);
        if (threadIdx.x == 0)
            loss[r] = 0.0f;
        return;
    }

    float m = -INFINITY;
    for (int j = threadIdx.x; j < V; j += blockDim.x)
        m = fmaxf(m, __half2float(xr[j]));
    m = xent_block_reduce(m, sh, 1);

    float s = 0.0f;
    for (int j = threadIdx.x; j < V; j += blockDim.x)
        s += expf(__half2float(xr[j]) - m);
    s = xent_block_reduce(s, sh, 0);

    const float sc = scale[0];
    for (int j = threadIdx.x; j < V; j += blockDim.x) {
        const float p = expf(__half2float(xr[j]) - m) / s;
        gr[j] = __float2half((p - (j == t ? 1.0f : 0.0f)) * sc);
    }
    if (threadIdx.x == 0)
        loss[r] = logf(s) + m - __half2float(xr[t]);
}
