/* variant: rmsnorm_bwd_weight_fmaf_pairs
 * contract: rmsnorm_bwd_weight
 * expect: correct
 * entry: rmsnorm_bwd_weight_fmaf_pairs
 * cases: tokens_4096x1024 tokens_65536x64 ragged_1000x77 special_256x64
 * what: explicit fmaf accumulation, and the tree's first level adds neighbours (t, t+1) instead of (t, t+128)
 */
/* Fused accumulation by hand and another tree shape: both within the
 * contract's fma = "any" and any order. */
#include "tp_hip.h"

#define RMSW_THREADS 256

__global__ void rmsnorm_bwd_weight_fmaf_pairs(const __half *x, const __half *dy, const float *rstd, float *dw, int rows,
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
        acc = fmaf(xh, __half2float(dy[i]), acc);
    }
    sh[t] = acc;
    __syncthreads();
    for (int s = 1; s < RMSW_THREADS; s *= 2) {
        if (t % (2 * s) == 0)
            sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0)
        dw[c] = sh[0];
}
