/* variant: gemm_bwd_a_drop_last_ntile
 * contract: gemm_bwd_a
 * expect: wrong
 * entry: gemm_bwd_a_drop_last_ntile
 * cases: ragged_n_128x250x64 cancel_128x512x64 wide_256
 * what: the n-tile loop runs only over whole tiles (n0 + 16 <= N): with N = 250 the last 10 terms of every dot product are dropped
 */
/* Exposed only by ragged_n_128x250x64 (the one case with N % 16 != 0);
 * cancel and wide are selected to show the multiples of 16 passing. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_bwd_a_drop_last_ntile(const __half *gC, const __half *B, __half *gA, int M, int N, int K)
{
    __shared__ float Gs[GEMM_TILE][GEMM_TILE + 1];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m0 = blockIdx.x * GEMM_TILE, k0 = blockIdx.y * GEMM_TILE;
    const int m = m0 + ty, k = k0 + tx;
    float acc = 0.0f;
    for (int n0 = 0; n0 + GEMM_TILE <= N; n0 += GEMM_TILE) {
        const int n = n0 + tx;
        Gs[ty][tx] = __half2float(gC[(size_t)m * N + n]);
        Bs[ty][tx] = __half2float(B[(size_t)(k0 + ty) * N + n]);
        __syncthreads();
        for (int nn = 0; nn < GEMM_TILE; nn++)
            acc = fmaf(Gs[ty][nn], Bs[tx][nn], acc);
        __syncthreads();
    }
    gA[(size_t)m * K + k] = __float2half(acc);
}
