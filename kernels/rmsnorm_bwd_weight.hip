/* RMSNorm backward, grad_weight (issue 11; docs/kernels.md#rmsnorm-backward):
 * per column c of x[rows, cols], with the forward's rstd[r],
 *   dw[c] = sum_r (x[r,c] * rstd[r]) * dy[r,c].
 *
 * Launch: one block of 256 threads per column; thread t handles rows
 * t, t + 256, ...; a fixed shared-memory tree combines the 256 partial
 * sums: no atomics, the same result on every run.
 *
 * Precision path (what contracts/rmsnorm_bwd_weight.toml models, op
 * rowwise along columns): xh = x * rstd, one rounding; xh * dy rounded or
 * fused into the running sum; an fp32 sum in a fixed but unspecified order,
 * written as fp32 (a parameter gradient, accumulated by the optimizer in
 * fp32). The tree is written against the block size, not warpSize. */
#include "tp_hip.h"

#define RMSW_THREADS 256

__global__ void rmsnorm_bwd_weight(const __half *x, const __half *dy, const float *rstd, float *dw, int rows,
                                   int cols)
{
    __shared__ float sh[RMSW_THREADS];
    const int c = blockIdx.x, t = threadIdx.x;
    if (c >= cols)
        return;
    float acc = 0.0f;
    for (int r = t; r < rows; r += RMSW_THREADS) {
        const size_t i = (size_t)r * cols + c;
        const float xh = __half2float(x[i]) * rstd[r];
        acc += xh * __half2float(dy[i]);
    }
    sh[t] = acc;
    __syncthreads();
    for (int s = RMSW_THREADS / 2; s > 0; s /= 2) {
        if (t < s)
            sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0)
        dw[c] = sh[0];
}
