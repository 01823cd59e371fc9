/* variant: softmax_fwd_sum_off_by_one
 * contract: softmax_fwd
 * expect: wrong
 * entry: softmax_fwd_sum_off_by_one
 * cases: single_column ties_const_16x1000 wide_logits_64x1024 special_64x256
 * what: the row sum is a separate loop bounded by n - 1: the last column's exp is written but never added
 */
/* The base kernel with the exps written in one loop and summed in a second
 * one (recomputing expf, which gives the same fp32 e) whose bound is off
 * by one: the last column is left out of the sum, so every output of the
 * row is too large by the factor 1 + e_last/sum, and a one-column row
 * divides by 0. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd_sum_off_by_one(const __half *x, __half *y, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *xr = x + (size_t)r * n;
    __half *yr = y + (size_t)r * n;

    float m = -INFINITY;
    for (int j = t; j < n; j += SOFTMAX_THREADS)
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

    for (int j = t; j < n; j += SOFTMAX_THREADS)
        yr[j] = __float2half(expf(__half2float(xr[j]) - mx));
    float s = 0.0f;
    for (int j = t; j < n - 1; j += SOFTMAX_THREADS)
        s += expf(__half2float(xr[j]) - mx);
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
