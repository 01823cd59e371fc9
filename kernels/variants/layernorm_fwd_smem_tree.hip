/* variant: layernorm_fwd_smem_tree
 * contract: layernorm_fwd
 * expect: correct
 * entry: layernorm_fwd_smem_tree
 * cases: large_mean_tiny_var_64x1024 ragged_33x77 wide_row_8x8192 constant_rows_16x512 special_32x256 refused_cols_65537
 * what: both row sums by a shared-memory tree over all blockDim.x partial sums (no shuffles): another summation order
 */
/* The base kernel with another reduction: every thread's partial sum goes
 * to shared memory and a halving tree over blockDim.x slots (a power of two
 * by the contract's launch shape) combines them, no warp shuffles. Another
 * fixed order of the same fp32 adds: the contract's order = "any" admits it. */
#include "tp_hip.h"

#define LN_EPS 1e-5f
#define LN_MAX_THREADS 1024

__device__ static float ln_tree_sum(float v, float *sh)
{
    const int t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (t < w)
            sh[t] += sh[t + w];
        __syncthreads();
    }
    const float total = sh[0];
    __syncthreads(); /* every thread has read sh[0] before the next use overwrites it */
    return total;
}

__global__ void layernorm_fwd_smem_tree(const __half *x, const __half *gamma, const __half *beta, __half *y,
                                        float *mean, float *rstd, int rows, int cols)
{
    __shared__ float sh[LN_MAX_THREADS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const __half *xr = x + (size_t)r * cols;
    __half *yr = y + (size_t)r * cols;

    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        s += __half2float(xr[j]);
    const float mu = ln_tree_sum(s, sh) / (float)cols;

    float q = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float d = __half2float(xr[j]) - mu;
        q += d * d;
    }
    const float var = ln_tree_sum(q, sh) / (float)cols;
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
