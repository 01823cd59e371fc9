/* variant: softmax_xent_bwd_drop_last_term
 * contract: softmax_xent_bwd
 * expect: wrong
 * entry: softmax_xent_bwd_drop_last_term
 * cases: single_column ragged_32x1000 wide_64x1024
 * what: the dot loop is bounded by n - 1: g*s of the last column is left out of the dot
 */
/* An off-by-one in the dot loop: dot misses g[n-1]*s[n-1]. Every output
 * of the row shifts by s*g[n-1]*s[n-1]; a one-column row gets dot = 0,
 * i.e. gi = s*g. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_xent_bwd_drop_last_term(const __half *s, const __half *g, __half *gi, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *sr = s + (size_t)r * n, *gr = g + (size_t)r * n;
    __half *out = gi + (size_t)r * n;

    float acc = 0.0f;
    for (int j = t; j < n - 1; j += SOFTMAX_THREADS)
        acc = fmaf(__half2float(gr[j]), __half2float(sr[j]), acc);
    red[t] = acc;
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] += red[t + w];
        __syncthreads();
    }
    const float dot = red[0];

    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float d = __half2float(gr[j]) - dot;
        out[j] = __float2half(__half2float(sr[j]) * d);
    }
}
