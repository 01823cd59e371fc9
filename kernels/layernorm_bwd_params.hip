/* LayerNorm backward, grad_gamma and grad_beta (KERNELS.md row 10): per
 * column c of x[rows, cols],
 *   dgamma[c] = sum_r xh[r,c] * dy[r,c],  dbeta[c] = sum_r dy[r,c],
 *   xh[r,c] = (x[r,c] - mean[r]) * rstd[r].
 *
 * Launch: one block of 256 threads per column; thread t handles rows
 * t, t + 256, ...; a fixed shared-memory tree combines the 256 partial
 * sums: no atomics, so the result is the same on every run.
 *
 * Precision path (what contracts/layernorm_bwd_params.toml models):
 *   - mean and rstd are the pilot's fp32 statistics, read as fp32;
 *   - xh = (x - m) * s, two fp32 roundings; xh * dy rounded or fused into
 *     the running sum; dy summed exactly as read (fp16 is exact in fp32);
 *   - both sums are fp32 in a fixed but unspecified order and are written
 *     as fp32 (the pilot rounded them to fp16 on the host afterwards; that
 *     rounding is monotone and is not the kernel's).
 * The tree is written against the block size, not warpSize: shared memory
 * only, so it is the same on 32- and 64-wide wavefronts. */
#include "tp_hip.h"

#define LNP_THREADS 256

__global__ void layernorm_bwd_params(const __half *x, const __half *dy, const float *mean, const float *rstd,
                                     float *dgamma, float *dbeta, int rows, int cols)
{
    __shared__ float sg[LNP_THREADS], sb[LNP_THREADS];
    const int c = blockIdx.x, t = threadIdx.x;
    if (c >= cols)
        return;
    float ag = 0.0f, ab = 0.0f;
    for (int r = t; r < rows; r += LNP_THREADS) {
        const size_t i = (size_t)r * cols + c;
        const float g = __half2float(dy[i]);
        const float xh = (__half2float(x[i]) - mean[r]) * rstd[r];
        ag += xh * g;
        ab += g;
    }
    sg[t] = ag;
    sb[t] = ab;
    __syncthreads();
    for (int w = LNP_THREADS / 2; w > 0; w /= 2) {
        if (t < w) {
            sg[t] += sg[t + w];
            sb[t] += sb[t + w];
        }
        __syncthreads();
    }
    if (t == 0) {
        dgamma[c] = sg[0];
        dbeta[c] = sb[0];
    }
}
