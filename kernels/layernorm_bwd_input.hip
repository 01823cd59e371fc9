/* LayerNorm backward, grad_input (KERNELS.md row 9): per row r,
 *   xh = (x - mean) * rstd,  dxh = dy * gamma,
 *   dx = rstd / cols * (cols * dxh - sum_j dxh - xh * sum_j dxh * xh).
 *
 * Launch: one block per row, blockDim.x = next power of two of cols/8,
 * clamped to 32..1024 (as the forward kernel); thread t handles
 * j = t, t + blockDim.x, ...
 *
 * Precision path (what contracts/layernorm_bwd_input.toml models):
 *   - the pilot's quirk: mean and rstd are READ AS FP16 (the pilot stored
 *     the forward pass's fp32 statistics rounded to fp16) and widened;
 *   - xh = (x - m) * s, two fp32 roundings, recomputed identically in both
 *     passes; dxh = dy * gamma is exact in fp32 (a product of two fp16);
 *   - both row sums (dxh, and dxh * xh with the product rounded or fused)
 *     are fp32 sums in a fixed but unspecified order: per-thread partial
 *     sums, then a warp-shuffle tree and a tree over the per-warp sums;
 *   - k = rstd / cols once per row (correctly rounded division), then
 *     dx = k * ((cols * dxh - sum1) - xh * sum2) in fp32 (each multiply-add
 *     may be fused), rounded once to fp16. */
#include "tp_hip.h"

#define LN_MAX_WARPS 32

/* The same block reduction as kernels/layernorm_fwd.hip (each kernel file
 * stands alone: the harness includes exactly one). */
__device__ static float lnb_block_sum(float v, float *sh)
{
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int nwarps = (blockDim.x + warpSize - 1) / warpSize;
    const int here = min(warpSize, (int)blockDim.x - warp * warpSize);
    for (int d = warpSize / 2; d > 0; d /= 2) {
        const float o = __shfl_down(v, d);
        if (lane + d < here)
            v += o;
    }
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? sh[lane] : 0.0f;
        for (int d = warpSize / 2; d > 0; d /= 2) {
            const float o = __shfl_down(v, d);
            if (lane + d < min(nwarps, here))
                v += o;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0)
        sh[0] = v;
    __syncthreads();
    const float total = sh[0];
    __syncthreads();
    return total;
}

__global__ void layernorm_bwd_input(const __half *x, const __half *dy, const __half *gamma, const __half *mean,
                                    const __half *rstd, __half *dx, int rows, int cols)
{
    __shared__ float sh[LN_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const size_t off = (size_t)r * cols;
    const float m = __half2float(mean[r]), s = __half2float(rstd[r]);

    float a1 = 0.0f, a2 = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float xh = (__half2float(x[off + j]) - m) * s;
        const float dxh = __half2float(dy[off + j]) * __half2float(gamma[j]);
        a1 += dxh;
        a2 += dxh * xh;
    }
    const float sum1 = lnb_block_sum(a1, sh);
    const float sum2 = lnb_block_sum(a2, sh);
    const float k = s / (float)cols;
    const float n = (float)cols;

    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float xh = (__half2float(x[off + j]) - m) * s;
        const float dxh = __half2float(dy[off + j]) * __half2float(gamma[j]);
        dx[off + j] = __float2half(k * (n * dxh - sum1 - xh * sum2));
    }
}
