/* variant: rmsnorm_fwd_bf16_fmaf_reversed
 * contract: rmsnorm_fwd_bf16
 * expect: correct
 * entry: rmsnorm_fwd_bf16_fmaf_reversed
 * cases: normal_256x4096 llama70b_16x8192 ragged_33x1000 qk_norm_1024x128 wide_64x1024 tiny_rows_64x256 outliers_32x4096 subnormal_w_64x64
 * what: each thread walks its elements last to first with an explicit fmaf, then the base's trees
 */
/* The base kernel with each thread's squares accumulated last to first by
 * fmaf(v, v, q): another order and a fused step, both of which the
 * contract admits (order any, fma any). */
#include "tp_hip.h"

#define RMS_EPS 1e-6f
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

__global__ void rmsnorm_fwd_bf16_fmaf_reversed(const tp_bf16 *x, const tp_bf16 *w, tp_bf16 *y, float *rstd, int rows, int cols)
{
    __shared__ float sh[RMS_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const tp_bf16 *xr = x + (size_t)r * cols;
    tp_bf16 *yr = y + (size_t)r * cols;

    float q = 0.0f;
    if ((int)threadIdx.x < cols) { /* a thread past the row end has no last element */
        const int last = threadIdx.x + (cols - 1 - (int)threadIdx.x) / (int)blockDim.x * (int)blockDim.x;
        for (int j = last; j >= (int)threadIdx.x; j -= blockDim.x) {
            const float v = tp_bf162float(xr[j]);
            q = fmaf(v, v, q);
        }
    }
    const float rs = rsqrtf(rms_block_sum(q, sh) / (float)cols + RMS_EPS);

    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = tp_float2bf16(tp_bf162float(xr[j]) * rs * tp_bf162float(w[j]));
    if (threadIdx.x == 0)
        rstd[r] = rs;
}
