/* variant: rmsnorm_fwd_first_warp_sum
 * contract: rmsnorm_fwd
 * expect: wrong
 * entry: rmsnorm_fwd_first_warp_sum
 * cases: normal_256x4096 ragged_33x1000
 * what: rstd from warp 0's partial sum only: the tree over the per-warp sums is missing
 */
/* The base kernel whose block sum stops after the shuffle tree of each
 * warp and returns warp 0's sum: with more than one warp (cols > 256) the
 * row's sum of squares is a fraction of the right one. */
#include "tp_hip.h"

#define RMS_EPS 1e-6f
#define RMS_MAX_WARPS 32 /* 1024 threads / the narrowest warp (32) */

/* Meant as the sum of v over the block; returns warp 0's sum only (the
 * bug: the tree over sh[0 .. nwarps-1] is missing). */
__device__ static float rms_block_sum(float v, float *sh)
{
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int here = min(warpSize, (int)blockDim.x - warp * warpSize); /* lanes of this warp */
    for (int d = warpSize / 2; d > 0; d /= 2) {
        const float o = __shfl_down(v, d);
        if (lane + d < here)
            v += o;
    }
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    return sh[0];
}

__global__ void rmsnorm_fwd_first_warp_sum(const __half *x, const __half *w, __half *y, float *rstd, int rows, int cols)
{
    __shared__ float sh[RMS_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const __half *xr = x + (size_t)r * cols;
    __half *yr = y + (size_t)r * cols;

    float q = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float v = __half2float(xr[j]);
        q += v * v;
    }
    const float rs = rsqrtf(rms_block_sum(q, sh) / (float)cols + RMS_EPS);

    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = __float2half(__half2float(xr[j]) * rs * __half2float(w[j]));
    if (threadIdx.x == 0)
        rstd[r] = rs;
}
