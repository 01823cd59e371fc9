/* variant: softmax_fwd_warp_shuffle
 * contract: softmax_fwd
 * expect: correct
 * entry: softmax_fwd_warp_shuffle
 * cases: wide_logits_64x1024 near_max_32x1024 dominant_64x512 ties_const_16x1000 single_column
 * what: the block max and the block sum are warp-shuffle trees plus one warp over the per-warp results (another summation order)
 */
/* The base kernel's precision path (d = x - max in fp32, expf, e rounded
 * to binary16 and re-read, fp32 row sum of the fp32 e, 1.0f/sum, second
 * rounding) with the two shared-memory trees replaced by __shfl_down trees:
 * the max is exact in any order and the model admits the sum in any order,
 * so only the order of the fp32 additions changes. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

/* Every lane of the warp takes part (the shuffles name the full mask). */
static __device__ float warp_max(float v)
{
    for (int d = warpSize / 2; d > 0; d /= 2)
        v = fmaxf(v, __shfl_down(v, d));
    return v;
}

static __device__ float warp_sum(float v)
{
    for (int d = warpSize / 2; d > 0; d /= 2)
        v += __shfl_down(v, d);
    return v;
}

__global__ void softmax_fwd_warp_shuffle(const __half *x, __half *y, int rows, int n)
{
    /* one slot per warp; sized for the smallest warp so that no literal
     * warp width is assumed */
    __shared__ float part_max[SOFTMAX_THREADS], part_sum[SOFTMAX_THREADS];
    __shared__ float row_max, row_sum;
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const int lane = t % warpSize, wid = t / warpSize, nwarps = SOFTMAX_THREADS / warpSize;
    const __half *xr = x + (size_t)r * n;
    __half *yr = y + (size_t)r * n;

    float m = -INFINITY;
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        m = fmaxf(m, __half2float(xr[j]));
    m = warp_max(m);
    if (lane == 0)
        part_max[wid] = m;
    __syncthreads();
    if (wid == 0) {
        float v = lane < nwarps ? part_max[lane] : -INFINITY;
        v = warp_max(v);
        if (lane == 0)
            row_max = v;
    }
    __syncthreads();
    const float mx = row_max;

    float s = 0.0f;
    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float e = expf(__half2float(xr[j]) - mx);
        yr[j] = __float2half(e);
        s += e;
    }
    s = warp_sum(s);
    if (lane == 0)
        part_sum[wid] = s;
    __syncthreads();
    if (wid == 0) {
        float v = lane < nwarps ? part_sum[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0)
            row_sum = v;
    }
    __syncthreads();
    const float inv = 1.0f / row_sum;

    /* each thread re-reads only the elements it wrote itself: no barrier */
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        yr[j] = __float2half(__half2float(yr[j]) * inv);
}
