/* variant: softmax_xent_fused_smem_tree
 * contract: softmax_xent_fused
 * expect: correct
 * entry: softmax_xent_fused_smem_tree
 * cases: target_first_column_16x4096 confident_all_f16_62x1024 ignore_index_8x4096 special_64x64 wide_32x4096 single_class_8x1
 * what: both reductions as a shared-memory tree over all 1024 threads (no shuffles), and the target's logit read by the thread that owns its column
 */
/* The textbook block reduction: one float per thread in shared memory,
 * halved each step. The row's sum is added in another tree order, which
 * the contract's order = "any" admits; the loss is the same arithmetic,
 * written by the thread whose strided columns include t. */
#include "tp_hip.h"

#define SMEM_THREADS 1024 /* = the contract's block */

__device__ static float smem_reduce(float v, float *red, int is_max)
{
    const int i = threadIdx.x;
    red[i] = v;
    __syncthreads();
    for (int w = SMEM_THREADS / 2; w > 0; w /= 2) {
        if (i < w)
            red[i] = is_max ? fmaxf(red[i], red[i + w]) : red[i] + red[i + w];
        __syncthreads();
    }
    const float r = red[0];
    __syncthreads(); /* everyone has read red[0] before it is reused */
    return r;
}

__global__ void softmax_xent_fused_smem_tree(const __half *x, const int *target, const float *scale, float *loss,
                                             __half *grad, int rows, int V)
{
    __shared__ float red[SMEM_THREADS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const __half *xr = x + (size_t)r * V;
    __half *gr = grad + (size_t)r * V;
    const int t = target[r];
    if (t == -100) {
        for (int j = threadIdx.x; j < V; j += SMEM_THREADS)
            gr[j] = __float2half(0.0f);
        if (threadIdx.x == 0)
            loss[r] = 0.0f;
        return;
    }
    float m = -INFINITY;
    for (int j = threadIdx.x; j < V; j += SMEM_THREADS)
        m = fmaxf(m, __half2float(xr[j]));
    m = smem_reduce(m, red, 1);
    float s = 0.0f;
    for (int j = threadIdx.x; j < V; j += SMEM_THREADS)
        s += expf(__half2float(xr[j]) - m);
    s = smem_reduce(s, red, 0);
    const float sc = scale[0];
    for (int j = threadIdx.x; j < V; j += SMEM_THREADS) {
        const float xj = __half2float(xr[j]);
        const float p = expf(xj - m) / s;
        gr[j] = __float2half((p - (j == t ? 1.0f : 0.0f)) * sc);
        if (j == t)
            loss[r] = logf(s) + m - xj;
    }
}
