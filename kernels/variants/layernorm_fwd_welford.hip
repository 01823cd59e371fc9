/* variant: layernorm_fwd_welford
 * contract: layernorm_fwd
 * expect: correct
 * entry: layernorm_fwd_welford
 * cases: large_mean_tiny_var_64x1024 ragged_33x77 wide_row_8x8192 constant_rows_16x512 special_32x256 refused_cols_65537
 * what: single pass: per-thread Welford (count, mean, M2), merged by Chan's formula in the shuffle trees
 */
/* Single-pass LayerNorm: each thread runs Welford's update over its
 * strided elements (count, running mean, M2 = sum of squared deviations),
 * then the block merges the triples with Chan's formula along the base
 * kernel's trees (shuffles per warp, then over the per-warp triples).
 * mean = merged mean, var = M2 / cols, rstd = rsqrtf(var + eps), y as in
 * the base kernel.
 *
 * The contract's model derives the admitted mean and rstd from a two-pass
 * computation (an fp32 sum of x, then an fp32 sum of RN32(x - mean)^2);
 * Welford's mean and M2 are other fp32 computations of the same exact
 * quantities, so the model's intervals do not cover them by construction.
 * They land inside them because both intervals are worst-case bounds
 * (n * 2^-24 * sum|x| on the sum, and T(m) over the whole mean interval
 * times 1 +- n 2^-24 on the sum of squares), while Welford's errors grow
 * with the merge depth (log2 of the block, plus the per-thread count),
 * not with n. */
#include "tp_hip.h"

#define LN_EPS 1e-5f
#define LN_MAX_WARPS 32

/* (n, m, q) <- merge of (n, m, q) and (nb, mb, qb); n counts are exact floats. */
__device__ static void wf_merge(float &n, float &m, float &q, float nb, float mb, float qb)
{
    if (nb == 0.0f)
        return;
    if (n == 0.0f) {
        n = nb, m = mb, q = qb;
        return;
    }
    const float t = n + nb, d = mb - m;
    m = m + d * (nb / t);
    q = q + qb + d * d * (n * nb / t);
    n = t;
}

__global__ void layernorm_fwd_welford(const __half *x, const __half *gamma, const __half *beta, __half *y,
                                      float *mean, float *rstd, int rows, int cols)
{
    __shared__ float shn[LN_MAX_WARPS], shm[LN_MAX_WARPS], shq[LN_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const __half *xr = x + (size_t)r * cols;
    __half *yr = y + (size_t)r * cols;

    float n = 0.0f, m = 0.0f, q = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float v = __half2float(xr[j]);
        n += 1.0f;
        const float d = v - m;
        m += d / n;
        q += d * (v - m);
    }

    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int nwarps = (blockDim.x + warpSize - 1) / warpSize;
    const int here = min(warpSize, (int)blockDim.x - warp * warpSize);
    for (int d = warpSize / 2; d > 0; d /= 2) {
        const float on = __shfl_down(n, d), om = __shfl_down(m, d), oq = __shfl_down(q, d);
        if (lane + d < here)
            wf_merge(n, m, q, on, om, oq);
    }
    if (lane == 0) {
        shn[warp] = n;
        shm[warp] = m;
        shq[warp] = q;
    }
    __syncthreads();
    if (warp == 0) {
        n = lane < nwarps ? shn[lane] : 0.0f;
        m = lane < nwarps ? shm[lane] : 0.0f;
        q = lane < nwarps ? shq[lane] : 0.0f;
        for (int d = warpSize / 2; d > 0; d /= 2) {
            const float on = __shfl_down(n, d), om = __shfl_down(m, d), oq = __shfl_down(q, d);
            if (lane + d < min(nwarps, here))
                wf_merge(n, m, q, on, om, oq);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        shm[0] = m;
        shq[0] = q;
    }
    __syncthreads();
    const float mu = shm[0];
    const float var = shq[0] / (float)cols;
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
