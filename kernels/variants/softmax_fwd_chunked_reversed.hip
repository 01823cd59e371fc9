/* variant: softmax_fwd_chunked_reversed
 * contract: softmax_fwd
 * expect: correct
 * entry: softmax_fwd_chunked_reversed
 * cases: wide_logits_64x1024 near_max_32x1024 dominant_64x512 ties_const_16x1000 single_column
 * what: each thread owns a contiguous run of ceil(n/256) columns and sums its exps from the last column down (another summation order)
 */
/* The base kernel with another assignment of columns to threads: thread t
 * owns columns [t*k, min((t+1)*k, n)), k = ceil(n/256), instead of the
 * strided t, t+256, ...; it adds its exps in decreasing column order. The
 * max is exact whatever the order; the model admits the fp32 row sum in
 * any order. The steps and roundings of each element are the base's. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd_chunked_reversed(const __half *x, __half *y, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *xr = x + (size_t)r * n;
    __half *yr = y + (size_t)r * n;
    const int k = (n + SOFTMAX_THREADS - 1) / SOFTMAX_THREADS;
    const int lo = t * k < n ? t * k : n, hi = lo + k < n ? lo + k : n;

    float m = -INFINITY;
    for (int j = lo; j < hi; j++)
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
    for (int j = hi - 1; j >= lo; j--) {
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
    for (int j = lo; j < hi; j++)
        yr[j] = __float2half(__half2float(yr[j]) * inv);
}
