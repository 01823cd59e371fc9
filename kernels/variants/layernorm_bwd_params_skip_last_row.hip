/* variant: layernorm_bwd_params_skip_last_row
 * contract: layernorm_bwd_params
 * expect: wrong
 * entry: layernorm_bwd_params_skip_last_row
 * cases: normal_1024x1024 tall_8192x64 ragged_1000x77 short_100x512 wide_1024x256 cancel_2048x256 special_512x128 refused_rows_1048577 f32_statistics_1024x256
 * what: off by one in the row loop (r < rows - 1): the last row never contributes
 */
/* The base kernel with an off-by-one loop bound: r < rows - 1, so the
 * last row of x and dy is never summed. */
#include "tp_hip.h"

#define LNP_THREADS 256

__global__ void layernorm_bwd_params_skip_last_row(const __half *x, const __half *dy, const float *mean, const float *rstd,
                                     float *dgamma, float *dbeta, int rows, int cols)
{
    __shared__ float sg[LNP_THREADS], sb[LNP_THREADS];
    const int c = blockIdx.x, t = threadIdx.x;
    if (c >= cols)
        return;
    float ag = 0.0f, ab = 0.0f;
    for (int r = t; r < rows - 1; r += LNP_THREADS) {
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
