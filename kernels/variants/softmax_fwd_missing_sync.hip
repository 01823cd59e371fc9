/* variant: softmax_fwd_missing_sync
 * contract: softmax_fwd
 * expect: wrong
 * entry: softmax_fwd_missing_sync
 * cases: ties_const_16x1000 wide_logits_64x1024 dominant_64x512 special_64x256
 * what: the shared-memory sum tree has no __syncthreads between its levels nor before red[0] is read (a race)
 */
/* The base kernel without the barrier inside the sum tree. Levels 64 and
 * below read slots another warp writes at the level before, and every
 * thread reads red[0] as soon as its own levels are done: warps 4..7 take
 * part in no level at all, so they read red[0] while thread 0 is still
 * adding, and scale their outputs by 1/(a partial sum). */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd_missing_sync(const __half *x, __half *y, int rows, int n)
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
    }
    const float inv = 1.0f / red[0];

    for (int j = t; j < n; j += SOFTMAX_THREADS)
        yr[j] = __float2half(__half2float(yr[j]) * inv);
}
