/* variant: rmsnorm_bwd_weight_rstd_squared
 * contract: rmsnorm_bwd_weight
 * expect: wrong
 * entry: rmsnorm_bwd_weight_rstd_squared
 * cases: tokens_4096x1024 wide_512x256
 * what: xh = x * rstd * rstd: the normalization applied twice
 */
/* The base kernel with rstd multiplied in twice: off wherever rstd != 1. */
#include "tp_hip.h"

#define RMSW_THREADS 256

__global__ void rmsnorm_bwd_weight_rstd_squared(const __half *x, const __half *dy, const float *rstd, float *dw, int rows,
                                   int cols)
{
    __shared__ float sh[RMSW_THREADS];
    const int c = blockIdx.x, t = threadIdx.x;
    if (c >= cols)
        return;
    float acc = 0.0f;
    for (int r = t; r < rows; r += RMSW_THREADS) {
        const size_t i = (size_t)r * cols + c;
        const float xh = __half2float(x[i]) * rstd[r] * rstd[r];
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
