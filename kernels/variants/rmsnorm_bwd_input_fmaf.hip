/* variant: rmsnorm_bwd_input_fmaf
 * contract: rmsnorm_bwd_input
 * expect: correct
 * entry: rmsnorm_bwd_input_fmaf
 * cases: normal_256x4096 qk_norm_1024x128 ragged_33x1000 cancel_64x1024 wide_64x1024 special_64x64
 * what: the row dot and g - xh*c written as explicit fmaf calls (the fused choices of fma = "any")
 */
/* The base kernel with both multiply-adds fused by hand: dot = fmaf(g, xh,
 * dot) and dx = rstd * fmaf(-xh, c, g). The contract's fma = "any" admits
 * both choices. */
#include "tp_hip.h"

#define RMS_MAX_WARPS 32 /* 1024 threads / the narrowest warp (32) */

/* Sum of v over the block, returned to every thread; sh holds one float
 * per warp. Lanes of a partial wavefront are never read. */
__device__ static float rms_block_sum(float v, float *sh)
{
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int nwarps = (blockDim.x + warpSize - 1) / warpSize;
    const int here = min(warpSize, (int)blockDim.x - warp * warpSize); /* lanes of this warp */
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
        if (lane == 0)
            sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}

__global__ void rmsnorm_bwd_input_fmaf(const __half *x, const __half *w, const __half *dy, const float *rstd, __half *dx,
                                  int rows, int cols)
{
    __shared__ float sh[RMS_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const size_t o = (size_t)r * cols;
    const float rs = rstd[r];

    float dot = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float g = __half2float(w[j]) * __half2float(dy[o + j]);
        const float xh = __half2float(x[o + j]) * rs;
        dot = fmaf(g, xh, dot);
    }
    const float c = rms_block_sum(dot, sh) / (float)cols;

    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float g = __half2float(w[j]) * __half2float(dy[o + j]);
        const float xh = __half2float(x[o + j]) * rs;
        dx[o + j] = __float2half(rs * fmaf(-xh, c, g));
    }
}
