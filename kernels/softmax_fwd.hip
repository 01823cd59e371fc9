/* Softmax forward (KERNELS.md row 1), row-wise over an R x n matrix:
 *   y[r,j] = exp(x[r,j] - max_r) / sum_k exp(x[r,k] - max_r)
 *
 * Launch: one block of SOFTMAX_THREADS = 256 threads per row, grid (R).
 * Thread t handles columns t, t + 256, t + 512, ... of its row.
 *
 * Precision path (contracts/softmax_fwd.toml and oracles/op_softmax_fwd.c
 * model it step by step; do not reorder):
 *   1. max_r: each thread's fmaxf over its columns, then a shared-memory
 *      tree of fmaxf: exact, whatever the order;
 *   2. d = x - max_r in fp32 (one rounding: the difference of two binary16
 *      values is not always a binary32 value, e.g. 65504 - 2^-24);
 *   3. e = expf(d), the device's expf (CUDA: 2 ulp over the full range);
 *   4. e is rounded to binary16 and WRITTEN to y (the pilot's quirk);
 *   5. the row sum is a sum of the fp32 e (not of the binary16 copies):
 *      each thread adds its own e sequentially, then a shared-memory tree
 *      adds the 256 partial sums; every addition rounds to fp32;
 *   6. inv = 1.0f / sum, a correctly rounded fp32 division (-prec-div=true,
 *      nvcc's default without fast-math);
 *   7. each y is RE-READ (binary16), multiplied by inv in fp32 and rounded
 *      to binary16 again: two roundings to binary16 per output.
 * No step has the a*b+c shape, so FMA contraction cannot change the result.
 */
#include "tp_hip.h" /* __half, expf and the launch names on both backends */
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd(const __half *x, __half *y, int rows, int n)
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
        __syncthreads();
    }
    const float inv = 1.0f / red[0];

    /* each thread re-reads only the elements it wrote itself: no barrier */
    for (int j = t; j < n; j += SOFTMAX_THREADS)
        yr[j] = __float2half(__half2float(yr[j]) * inv);
}
