/* RMSNorm forward in bfloat16 (docs/kernels.md#rmsnorm-forward-bfloat16):
 * kernels/rmsnorm_fwd.hip with bf16 x, w and y. Per row r of x[rows, cols],
 *   rstd = 1 / sqrt(sum_j x[r,j]^2 / cols + eps),   y[r,j] = x[r,j] * rstd * w[j];
 * rstd[r] is also written, as fp32, for the backward pass. eps = 1e-6
 * (Llama's rms_norm_eps).
 *
 * Launch: one block per row, blockDim.x = next power of two of cols/8,
 * clamped to 32..1024; thread t handles j = t, t + blockDim.x, ...
 *
 * Precision path (what contracts/rmsnorm_fwd_bf16.toml models, op rowwise):
 *   - x and w are read as bf16 and widened to fp32 exactly;
 *   - each thread sums v*v in fp32 over its elements (each product rounded,
 *     or fused into the running sum by the compiler), then a warp-shuffle
 *     tree and a tree over the per-warp sums: an fp32 sum of cols terms in
 *     a fixed but unspecified order;
 *   - rstd = rsqrtf(sum / cols + eps): a correctly rounded division
 *     (cols < 2^24 is exact as float), an add, rsqrtf (2 ulp on CUDA);
 *   - y = (x * rstd) * w in fp32, rounded once to bf16, nearest even
 *     (tp_float2bf16: __float2bfloat16 on CUDA).
 * bf16 has fp32's exponent range: a square of |x| >= 2^64 overflows fp32,
 * which the contract refuses before launch rather than judge. */
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

__global__ void rmsnorm_fwd_bf16(const tp_bf16 *x, const tp_bf16 *w, tp_bf16 *y, float *rstd, int rows, int cols)
{
    __shared__ float sh[RMS_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const tp_bf16 *xr = x + (size_t)r * cols;
    tp_bf16 *yr = y + (size_t)r * cols;

    float q = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float v = tp_bf162float(xr[j]);
        q += v * v;
    }
    const float rs = rsqrtf(rms_block_sum(q, sh) / (float)cols + RMS_EPS);

    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = tp_float2bf16(tp_bf162float(xr[j]) * rs * tp_bf162float(w[j]));
    if (threadIdx.x == 0)
        rstd[r] = rs;
}
