/* variant: softmax_xent_bwd_nofma_reversed
 * contract: softmax_xent_bwd
 * expect: correct
 * entry: softmax_xent_bwd_nofma_reversed
 * cases: wide_64x1024 special_64x256 ragged_32x1000 single_column
 * model: fma="no"
 * what: the per-thread dot runs from the thread's last column down with explicit __fmul_rn/__fadd_rn (no fused multiply-add)
 */
/* The base kernel with FMA contraction ruled out (__fmul_rn / __fadd_rn
 * are never fused) and each thread's columns visited in decreasing order.
 * g*s of two binary16 values is exact in fp32, so the unfused product
 * rounds nothing and each step is still one rounding of a sum: only the
 * order differs, which the model leaves free. fma = "no" declares it. */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_xent_bwd_nofma_reversed(const __half *s, const __half *g, __half *gi, int rows, int n)
{
    __shared__ float red[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *sr = s + (size_t)r * n, *gr = g + (size_t)r * n;
    __half *out = gi + (size_t)r * n;

    float acc = 0.0f;
    if (t < n) {
        const int last = t + (n - 1 - t) / SOFTMAX_THREADS * SOFTMAX_THREADS;
        for (int j = last; j >= 0; j -= SOFTMAX_THREADS)
            acc = __fadd_rn(acc, __fmul_rn(__half2float(gr[j]), __half2float(sr[j])));
    }
    red[t] = acc;
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w)
            red[t] = __fadd_rn(red[t], red[t + w]);
        __syncthreads();
    }
    const float dot = red[0];

    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float d = __fsub_rn(__half2float(gr[j]), dot);
        out[j] = __float2half(__fmul_rn(__half2float(sr[j]), d));
    }
}
