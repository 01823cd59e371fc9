/* variant: softmax_fwd_no_max_subtraction
 * contract: softmax_fwd
 * expect: wrong
 * entry: softmax_fwd_no_max_subtraction
 * cases: huge_logits_32x1024 near_max_32x1024 special_64x256
 * what: exponentiates x itself instead of x - max: expf overflows to inf for logits above ~88.7 and the row becomes NaN
 */
/* Mathematically the same softmax (the max cancels), numerically the
 * textbook bug: e = expf(x) overflows for x > 88.72, the row sum becomes
 * inf, 1/sum = 0 and the overflowing elements give inf * 0 = NaN. Rows of
 * moderate logits still come out right. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd_no_max_subtraction(const __half *x, __half *y, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *xr = x + (size_t)r * n;
    __half *yr = y + (size_t)r * n;

    float s = 0.0f;
    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float e = expf(__half2float(xr[j]));
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

    for (int j = t; j < n; j += SOFTMAX_THREADS)
        yr[j] = __float2half(__half2float(yr[j]) * inv);
}
