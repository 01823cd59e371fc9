/* variant: rmsnorm_fwd_cols_minus_1
 * contract: rmsnorm_fwd
 * expect: wrong
 * entry: rmsnorm_fwd_cols_minus_1
 * cases: qk_norm_1024x128 special_64x64
 * what: the mean square divides by cols - 1 (an unbiased-variance habit)
 */
/* The base kernel dividing the sum of squares by cols - 1: rstd is
 * sqrt(1 - 1/cols) times the right one, 0.4% low at cols = 128 (about four
 * fp16 ulps of y), 0.05% at 1024. */
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

__global__ void rmsnorm_fwd_cols_minus_1(const __half *x, const __half *w, __half *y, float *rstd, int rows, int cols)
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
    const float rs = rsqrtf(rms_block_sum(q, sh) / (float)(cols - 1) + RMS_EPS);

    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = __float2half(__half2float(xr[j]) * rs * __half2float(w[j]));
    if (threadIdx.x == 0)
        rstd[r] = rs;
}
