/* variant: rmsnorm_bwd_weight_reversed_rows
 * contract: rmsnorm_bwd_weight
 * expect: correct
 * entry: rmsnorm_bwd_weight_reversed_rows
 * cases: tokens_4096x1024 cancel_2048x256 ragged_1000x77 wide_512x256 special_256x64
 * what: each thread walks its rows from the last one up: another summation order
 */
/* The base kernel with thread t taking rows rows-1-t, rows-1-t-256, ...:
 * another order of each column's sum, which the contract admits. */
#include "tp_hip.h"

#define RMSW_THREADS 256

__global__ void rmsnorm_bwd_weight_reversed_rows(const __half *x, const __half *dy, const float *rstd, float *dw, int rows,
                                   int cols)
{
    __shared__ float sh[RMSW_THREADS];
    const int c = blockIdx.x, t = threadIdx.x;
    if (c >= cols)
        return;
    float acc = 0.0f;
    for (int r = rows - 1 - t; r >= 0; r -= RMSW_THREADS) {
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
