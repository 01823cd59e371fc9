/* variant: softmax_xent_fused_chunked
 * contract: softmax_xent_fused
 * expect: correct
 * entry: softmax_xent_fused_chunked
 * cases: target_first_column_16x4096 confident_all_f16_62x1024 ignore_index_8x4096 special_64x64 wide_32x4096 single_class_8x1
 * what: each thread owns a contiguous chunk of ceil(V / 1024) columns, summed from its end backwards; warp-shuffle trees as the base kernel
 */
/* Contiguous chunks instead of strided columns (as a vectorizing author
 * might lay them out), each summed in reverse: the same terms in another
 * order and grouping, which order = "any" admits. */
#include "tp_hip.h"

#define CHUNK_MAX_WARPS 32

__device__ static float chunked_block_reduce(float v, float *sh, int is_max)
{
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int nwarps = (blockDim.x + warpSize - 1) / warpSize;
    for (int d = warpSize / 2; d > 0; d /= 2) {
        const float o = __shfl_down(v, d);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    __syncthreads();
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

__global__ void softmax_xent_fused_chunked(const __half *x, const int *target, const float *scale, float *loss,
                                           __half *grad, int rows, int V)
{
    __shared__ float sh[CHUNK_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const __half *xr = x + (size_t)r * V;
    __half *gr = grad + (size_t)r * V;
    const int t = target[r];
    const int chunk = (V + blockDim.x - 1) / blockDim.x;
    const int j0 = min(V, (int)threadIdx.x * chunk), j1 = min(V, j0 + chunk);
    if (t == -100) {
        for (int j = j0; j < j1; j++)
            gr[j] = __float2half(0.0f);
        if (threadIdx.x == 0)
            loss[r] = 0.0f;
        return;
    }
    float m = -INFINITY;
    for (int j = j0; j < j1; j++)
        m = fmaxf(m, __half2float(xr[j]));
    m = chunked_block_reduce(m, sh, 1);
    float s = 0.0f;
    for (int j = j1 - 1; j >= j0; j--)
        s += expf(__half2float(xr[j]) - m);
    s = chunked_block_reduce(s, sh, 0);
    const float sc = scale[0];
    for (int j = j0; j < j1; j++) {
        const float p = expf(__half2float(xr[j]) - m) / s;
        gr[j] = __float2half((p - (j == t ? 1.0f : 0.0f)) * sc);
    }
    if (threadIdx.x == 0)
        loss[r] = logf(s) + m - __half2float(xr[t]);
}
