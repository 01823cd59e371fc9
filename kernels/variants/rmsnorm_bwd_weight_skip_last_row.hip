/* variant: rmsnorm_bwd_weight_skip_last_row
 * contract: rmsnorm_bwd_weight
 * expect: wrong
 * entry: rmsnorm_bwd_weight_skip_last_row
 * cases: ragged_1000x77 tokens_4096x1024
 * what: the row loop stops one short (r < rows - 1): every column misses its last token
 */
/* The base kernel with an off-by-one in the row loop. */
#include "tp_hip.h"

#define RMSW_THREADS 256

__global__ void rmsnorm_bwd_weight_skip_last_row(const __half *x, const __half *dy, const float *rstd, float *dw, int rows,
                                   int cols)
{
    __shared__ float sh[RMSW_THREADS];
    const int c = blockIdx.x, t = threadIdx.x;
    if (c >= cols)
        return;
    float acc = 0.0f;
    for (int r = t; r < rows - 1; r += RMSW_THREADS) {
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
