/* variant: rmsnorm_fwd_bf16_bf16_partials
 * contract: rmsnorm_fwd_bf16
 * expect: wrong
 * entry: rmsnorm_fwd_bf16_bf16_partials
 * cases: normal_256x4096 llama70b_16x8192 llama405b_4x16384
 * what: each thread accumulates its squares in bf16 (8 bits), then the fp32 trees
 */
/* The base kernel with each thread's partial sum of squares kept in bf16:
 * every step rounds to 8 bits, so a partial of eight or sixteen squares
 * near 1 is off by up to a few percent, and rstd with it. */
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

__global__ void rmsnorm_fwd_bf16_bf16_partials(const tp_bf16 *x, const tp_bf16 *w, tp_bf16 *y, float *rstd, int rows, int cols)
{
    __shared__ float sh[RMS_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const tp_bf16 *xr = x + (size_t)r * cols;
    tp_bf16 *yr = y + (size_t)r * cols;

    tp_bf16 q = tp_float2bf16(0.0f);
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float v = tp_bf162float(xr[j]);
        q = tp_float2bf16(tp_bf162float(q) + v * v); /* the partial kept in the tensor's type */
    }
    const float rs = rsqrtf(rms_block_sum(tp_bf162float(q), sh) / (float)cols + RMS_EPS);

    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = tp_float2bf16(tp_bf162float(xr[j]) * rs * tp_bf162float(w[j]));
    if (threadIdx.x == 0)
        rstd[r] = rs;
}
