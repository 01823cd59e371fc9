/* variant: gemm_bwd_a_b_not_transposed
 * contract: gemm_bwd_a
 * expect: wrong
 * entry: gemm_bwd_a_b_not_transposed
 * cases: ragged_n_128x250x64 cancel_128x512x64 special_64x32x64
 * what: uses B instead of B^T: reads B[n*K + k] (B taken as an N x K matrix) instead of B[k*N + n]
 */
/* The forward GEMM's indexing pasted into the backward one: the index
 * stays inside B (n < N, k < K), so nothing faults, but each gA[m, k] is
 * a dot product with the wrong vector of B. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_bwd_a_b_not_transposed(const __half *gC, const __half *B, __half *gA, int M, int N, int K)
{
    __shared__ float Gs[GEMM_TILE][GEMM_TILE + 1];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m0 = blockIdx.x * GEMM_TILE, k0 = blockIdx.y * GEMM_TILE;
    const int m = m0 + ty, k = k0 + tx;
    float acc = 0.0f;
    for (int n0 = 0; n0 < N; n0 += GEMM_TILE) {
        const int n = n0 + tx;
        Gs[ty][tx] = n < N ? __half2float(gC[(size_t)m * N + n]) : 0.0f;
        Bs[ty][tx] = n < N ? __half2float(B[(size_t)n * K + k0 + ty]) : 0.0f;
        __syncthreads();
        const int nmax = (N - n0 < GEMM_TILE) ? N - n0 : GEMM_TILE;
        for (int nn = 0; nn < nmax; nn++)
            acc = fmaf(Gs[ty][nn], Bs[tx][nn], acc);
        __syncthreads();
    }
    gA[(size_t)m * K + k] = __float2half(acc);
}
