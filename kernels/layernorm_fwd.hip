/* LayerNorm forward (KERNELS.md row 8): per row r of x[rows, cols],
 *   mean = sum_j x[r,j] / cols,  var = sum_j (x[r,j] - mean)^2 / cols (biased),
 *   rstd = 1 / sqrt(var + eps),  y[r,j] = (x[r,j] - mean) * rstd * gamma[j] + beta[j];
 * mean[r] and rstd[r] are also written, as fp32.
 *
 * Launch: one block per row, blockDim.x = next power of two of cols/8,
 * clamped to 32..1024; thread t handles j = t, t + blockDim.x, ...
 *
 * Precision path (what contracts/layernorm_fwd.toml models):
 *   - x, gamma, beta are read as fp16 and widened to fp32 exactly;
 *   - pass 1: each thread sums its x in fp32, then a warp-shuffle tree and
 *     a tree over the per-warp sums in shared memory: an fp32 sum of cols
 *     exact terms in a fixed but unspecified order; mean = sum / cols
 *     (a correctly rounded fp32 division; cols < 2^24 is exact as float);
 *   - pass 2: d = x - mean (one rounding), d*d summed the same way (each
 *     product rounded, or fused into the running sum by the compiler);
 *     var = sum / cols, then rstd = rsqrtf(var + eps) (rsqrtf: 2 ulp);
 *   - pass 3: y = ((x - mean) * rstd) * gamma + beta in fp32 (the last
 *     multiply-add may be fused), rounded once to fp16 (__float2half).
 * Lanes of a partial wavefront (a 32-thread block on a 64-wide AMD
 * wavefront) are never read: each shuffle step adds only lanes that exist. */
#include "tp_hip.h"

#define LN_EPS 1e-5f
#define LN_MAX_WARPS 32 /* 1024 threads / the narrowest warp (32) */

/* Sum of v over the block, returned to every thread. sh holds one float per
 * warp; the caller's next use of sh must follow a barrier (we end on one). */
__device__ static float ln_block_sum(float v, float *sh)
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
    }
    __syncthreads(); /* every warp has read sh before warp 0 overwrites sh[0] */
    if (threadIdx.x == 0)
        sh[0] = v;
    __syncthreads();
    const float total = sh[0];
    __syncthreads();
    return total;
}

__global__ void layernorm_fwd(const __half *x, const __half *gamma, const __half *beta, __half *y, float *mean,
                              float *rstd, int rows, int cols)
{
    __shared__ float sh[LN_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const __half *xr = x + (size_t)r * cols;
    __half *yr = y + (size_t)r * cols;

    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        s += __half2float(xr[j]);
    const float mu = ln_block_sum(s, sh) / (float)cols;

    float q = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float d = __half2float(xr[j]) - mu;
        q += d * d;
    }
    const float var = ln_block_sum(q, sh) / (float)cols;
    const float rs = rsqrtf(var + LN_EPS);

    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float d = __half2float(xr[j]) - mu;
        yr[j] = __float2half(d * rs * __half2float(gamma[j]) + __half2float(beta[j]));
    }
    if (threadIdx.x == 0) {
        mean[r] = mu;
        rstd[r] = rs;
    }
}
