/* variant: layernorm_bwd_input_sign_sum1
 * contract: layernorm_bwd_input
 * expect: wrong
 * entry: layernorm_bwd_input_sign_sum1
 * cases: ragged_33x77 pm7_128x256 special_32x256
 * what: sign error in one term: n dxh + sum(dxh) instead of n dxh - sum(dxh)
 */
/* The base kernel with a sign error in one term: + sum(dxh) where the
 * derivative has - sum(dxh). */
#include "tp_hip.h"

#define LN_MAX_WARPS 32

/* The base kernel's block sum (kernels/layernorm_bwd_input.hip). */
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

__global__ void layernorm_bwd_input_sign_sum1(const __half *x, const __half *dy, const __half *gamma, const __half *mean,
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
        dx[off + j] = __float2half(k * (n * dxh + sum1 - xh * sum2));
    }
}
