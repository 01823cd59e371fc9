/* variant: layernorm_fwd_naive_var
 * contract: layernorm_fwd
 * expect: wrong
 * entry: layernorm_fwd_naive_var
 * cases: ragged_33x77 large_mean_tiny_var_64x1024 constant_rows_16x512 special_32x256
 * what: one pass: var = sum(x^2)/cols - mean^2 in fp32 (cancels catastrophically at a large mean)
 */
/* The textbook one-pass variance, var = E[x^2] - mean^2, in fp32: both
 * sums in one sweep. Fine for rows centred near zero, catastrophic where
 * |mean| >> spread (x ~ 1000: sum x^2 ~ 1e9, one fp32 ulp there is 64). */
#include "tp_hip.h"

#define LN_EPS 1e-5f
#define LN_MAX_WARPS 32

/* The base kernel's block sum (kernels/layernorm_fwd.hip): a shuffle tree
 * per warp over the lanes that exist, then the same tree over the per-warp
 * sums; every thread gets the total. */
__device__ static float ln_block_sum(float v, float *sh)
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

__global__ void layernorm_fwd_naive_var(const __half *x, const __half *gamma, const __half *beta, __half *y, float *mean,
                              float *rstd, int rows, int cols)
{
    __shared__ float sh[LN_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const __half *xr = x + (size_t)r * cols;
    __half *yr = y + (size_t)r * cols;

    float s = 0.0f, q = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float v = __half2float(xr[j]);
        s += v;
        q += v * v;
    }
    const float mu = ln_block_sum(s, sh) / (float)cols;
    const float var = ln_block_sum(q, sh) / (float)cols - mu * mu;
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
