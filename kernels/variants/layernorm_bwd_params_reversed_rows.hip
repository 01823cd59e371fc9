/* variant: layernorm_bwd_params_reversed_rows
 * contract: layernorm_bwd_params
 * expect: correct
 * entry: layernorm_bwd_params_reversed_rows
 * cases: normal_1024x1024 tall_8192x64 ragged_1000x77 short_100x512 wide_1024x256 cancel_2048x256 special_512x128 refused_rows_1048577 f32_statistics_1024x256
 * what: each thread walks its rows from the last one up (thread t: rows - 1 - t, rows - 1 - t - 256, ...): another summation order
 */
/* The base kernel with the rows taken from the bottom: thread t owns rows
 * rows-1-t, rows-1-t-256, ... down to 0, so each thread sums another set of
 * rows in descending order and the tree combines other partial sums. The
 * contract's order = "any" admits it. */
#include "tp_hip.h"

#define LNP_THREADS 256

__global__ void layernorm_bwd_params_reversed_rows(const __half *x, const __half *dy, const float *mean, const float *rstd,
                                     float *dgamma, float *dbeta, int rows, int cols)
{
    __shared__ float sg[LNP_THREADS], sb[LNP_THREADS];
    const int c = blockIdx.x, t = threadIdx.x;
    if (c >= cols)
        return;
    float ag = 0.0f, ab = 0.0f;
    for (int r = rows - 1 - t; r >= 0; r -= LNP_THREADS) {
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
