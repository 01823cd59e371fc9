/* variant: softmax_fwd_max_off_by_one
 * contract: softmax_fwd
 * expect: wrong
 * entry: softmax_fwd_max_off_by_one
 * cases: single_column special_64x256 near_max_32x1024
 * what: the row max loop stops at n - 1: the last column never takes part in the max
 */
/* The base kernel with an off-by-one in the max loop. Softmax does not
 * depend on the shift mathematically, so most rows still come out right
 * (the max is usually elsewhere); a row whose last column is its strict
 * maximum exponentiates a positive d (overflowing when the gap exceeds
 * ~88.7), and a one-column row subtracts -inf and becomes NaN. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd_max_off_by_one(const __half *x, __half *y, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *xr = x + (size_t)r * n;
    __half *yr = y + (size_t)r * n;

    float m = -INFINITY;
    for (int j = t; j < n - 1; j += SOFTMAX_THREADS)
        m = fmaxf(m, __half2float(xr[j]));
    red[t] = m;
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] = fmaxf(red[t], red[t + w]);
        __syncthreads();
    }
    const float mx = red[0];
    __syncthreads(); /* everyone has read red[0] before it is reused */

    float s = 0.0f;
    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float e = expf(__half2float(xr[j]) - mx);
        yr[j] = __float2half(e);
        s += e;
    }
    red[t] = s;
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] += red[t + w];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];

    /* each thread re-reads only the elements it wrote itself: no barrier */
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        yr[j] = __float2half(__half2float(yr[j]) * inv);
}
