/* variant: softmax_xent_fused_loss_no_max
 * contract: softmax_xent_fused
 * expect: wrong
 * entry: softmax_xent_fused_loss_no_max
 * cases: target_first_column_16x4096 confident_all_f16_62x1024 ignore_index_8x4096 special_64x64 wide_32x4096 single_class_8x1
 * what: the loss without + m: logf(s) - x[t], right only where the row's max is 0
 */
/* The max subtracted inside the exponentials is not added back to the
 * loss. */
#include "tp_hip.h"

#define XENT_IGNORE (-100)
#define XENT_MAX_WARPS 32 /* 1024 threads / the narrowest warp (32) */

/* The block's max (is_max) or sum of v, returned to every thread; sh holds
 * one float per warp. */
__device__ static float loss_no_max_block_reduce(float v, float *sh, int is_max)
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

__global__ void softmax_xent_fused_loss_no_max(const __half *x, const int *target, const float *scale, float *loss, __half *grad,
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
    m = loss_no_max_block_reduce(m, sh, 1);

    float s = 0.0f;
    for (int j = threadIdx.x; j < V; j += blockDim.x)
        s += expf(__half2float(xr[j]) - m);
    s = loss_no_max_block_reduce(s, sh, 0);

    const float sc = scale[0];
    for (int j = threadIdx.x; j < V; j += blockDim.x) {
        const float p = expf(__half2float(xr[j]) - m) / s;
        gr[j] = __float2half((p - (j == t ? 1.0f : 0.0f)) * sc);
    }
    if (threadIdx.x == 0)
        loss[r] = logf(s) - __half2float(xr[t]);
}
