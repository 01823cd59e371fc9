/* variant: rmsnorm_fwd_no_eps
 * contract: rmsnorm_fwd
 * expect: wrong
 * entry: rmsnorm_fwd_no_eps
 * cases: tiny_rows_64x256 special_64x64
 * what: eps left out of the root: rstd = rsqrtf(sum / cols)
 */
/* The base kernel without eps: harmless on rows of ordinary magnitude,
 * off by orders of magnitude on rows whose mean square is far below 1e-6
 * (and infinite on a row of zeros, giving NaN outputs). */
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

__global__ void rmsnorm_fwd_no_eps(const __half *x, const __half *w, __half *y, float *rstd, int rows, int cols)
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
    const float rs = rsqrtf(rms_block_sum(q, sh) / (float)cols);

    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = __float2half(__half2float(xr[j]) * rs * __half2float(w[j]));
    if (threadIdx.x == 0)
        rstd[r] = rs;
}
