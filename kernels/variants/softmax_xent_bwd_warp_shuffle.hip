/* variant: softmax_xent_bwd_warp_shuffle
 * contract: softmax_xent_bwd
 * expect: correct
 * entry: softmax_xent_bwd_warp_shuffle
 * cases: cancel_128x1024 special_64x256 single_column
 * what: the row dot is reduced by warp-shuffle trees plus one warp over the per-warp sums (another summation order)
 */
/* The base kernel with the shared-memory tree of the dot replaced by
 * __shfl_down trees. g*s of two binary16 values is exact in fp32, so
 * every step of the dot is one rounding of a sum, in an order the model
 * admits (order = "any"); g - dot, s*d and the binary16 rounding are the
 * base's. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

static __device__ float warp_sum(float v)
{
    for (int d = warpSize / 2; d > 0; d /= 2)
        v += __shfl_down(v, d);
    return v;
}

__global__ void softmax_xent_bwd_warp_shuffle(const __half *s, const __half *g, __half *gi, int rows, int n)
{
    /* one slot per warp; sized for the smallest warp so that no literal
     * warp width is assumed */
    __shared__ float part[SOFTMAX_THREADS];
    __shared__ float row_dot;
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const int lane = t % warpSize, wid = t / warpSize, nwarps = SOFTMAX_THREADS / warpSize;
    const __half *sr = s + (size_t)r * n, *gr = g + (size_t)r * n;
    __half *out = gi + (size_t)r * n;

    float acc = 0.0f;
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        acc = fmaf(__half2float(gr[j]), __half2float(sr[j]), acc);
    acc = warp_sum(acc);
    if (lane == 0)
        part[wid] = acc;
    __syncthreads();
    if (wid == 0) {
        float v = lane < nwarps ? part[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0)
            row_dot = v;
    }
    __syncthreads();
    const float dot = row_dot;

    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float d = __half2float(gr[j]) - dot;
        out[j] = __float2half(__half2float(sr[j]) * d);
    }
}
