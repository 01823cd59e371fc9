/* variant: softmax_fwd_single_rounding
 * contract: softmax_fwd
 * expect: correct
 * entry: softmax_fwd_single_rounding
 * cases: wide_logits_64x1024 near_max_32x1024 dominant_64x512 ties_const_16x1000 single_column
 * model: intermediate=fp32
 * what: scales the fp32 exp (recomputed) instead of its binary16 copy: one rounding to binary16, declared by intermediate=fp32
 */
/* The pilot's double rounding removed: the output pass recomputes
 * e = expf(x - max) (the same device expf of the same argument, so the
 * same e the sum used) and rounds e*inv once. The base contract declares
 * the double rounding (intermediate = "binary16"); this kernel declares
 * its own path with intermediate = "fp32", which the op models as y1 = e. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd_single_rounding(const __half *x, __half *y, int rows, int n)
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

    float s = 0.0f;
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        s += expf(__half2float(xr[j]) - mx);
    red[t] = s;
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] += red[t + w];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];

    for (int j = t; j < n; j += SOFTMAX_THREADS)
        yr[j] = __float2half(expf(__half2float(xr[j]) - mx) * inv);
}
