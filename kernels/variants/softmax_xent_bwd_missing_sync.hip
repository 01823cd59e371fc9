/* variant: softmax_xent_bwd_missing_sync
 * contract: softmax_xent_bwd
 * expect: wrong
 * entry: softmax_xent_bwd_missing_sync
 * cases: ragged_32x1000 wide_64x1024
 * what: the shared-memory dot tree has no __syncthreads between its levels nor before red[0] is read (a race)
 */
/* The base kernel without the barrier inside the dot tree. Levels 64 and
 * below read slots another warp writes at the level before, and every
 * thread reads red[0] as soon as its own levels are done: warps 4..7 take
 * part in no level, so they read red[0] while thread 0 is still adding
 * and subtract a partial dot. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_xent_bwd_missing_sync(const __half *s, const __half *g, __half *gi, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *sr = s + (size_t)r * n, *gr = g + (size_t)r * n;
    __half *out = gi + (size_t)r * n;

    float acc = 0.0f;
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        acc = fmaf(__half2float(gr[j]), __half2float(sr[j]), acc);
    red[t] = acc;
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] += red[t + w];
    }
    const float dot = red[0];

    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float d = __half2float(gr[j]) - dot;
        out[j] = __float2half(__half2float(sr[j]) * d);
    }
}
