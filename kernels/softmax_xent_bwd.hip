/* Softmax + cross-entropy backward (KERNELS.md row 2), row-wise over an
 * R x n matrix, s the softmax output and g the upstream gradient:
 *   gi[r,j] = s[r,j] * (g[r,j] - dot_r),  dot_r = sum_k g[r,k] * s[r,k]
 *
 * Launch: one block of SOFTMAX_THREADS = 256 threads per row, grid (R).
 * Thread t handles columns t, t + 256, ... of its row.
 *
 * Precision path (contracts/softmax_xent_bwd.toml models it):
 *   - dot_r: each thread accumulates g*s over its columns with fmaf, then a
 *     shared-memory tree adds the 256 partial sums, all in fp32. g*s of two
 *     binary16 values is exact in fp32, so fused or not, each step is one
 *     rounding of a sum: the order is the only freedom;
 *   - d = g - dot_r in fp32 (one rounding), then gi = s * d in fp32 (one
 *     rounding). This is s*(g - dot), not s*g - s*dot: no a*b+c appears, so
 *     nvcc's contraction cannot fuse anything here;
 *   - the result is rounded once to binary16, to nearest even.
 */
#include "tp_hip.h" /* __half, fmaf and the launch names on both backends */
#define SOFTMAX_THREADS 256

__global__ void softmax_xent_bwd(const __half *s, const __half *g, __half *gi, int rows, int n)
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
        __syncthreads();
    }
    const float dot = red[0];

    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float d = __half2float(gr[j]) - dot;
        out[j] = __float2half(__half2float(sr[j]) * d);
    }
}
