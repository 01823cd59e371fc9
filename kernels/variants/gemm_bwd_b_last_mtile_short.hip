/* variant: gemm_bwd_b_last_mtile_short
 * contract: gemm_bwd_b
 * expect: wrong
 * entry: gemm_bwd_b_last_mtile_short
 * cases: ragged_m_250x64x128 cancel_512x64x128 special_32x64x64
 * what: off-by-one in m on the partial last m-tile (mmax = M - mt - 1): when M % 16 != 0 the product of row m = M-1 is never added
 */
/* Exposed only by ragged_m_250x64x128 (M = 250: row 249 lost); with M a
 * multiple of 16 the last tile is full and the result is right, which the
 * cancel and special cases show. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_bwd_b_last_mtile_short(const __half *A, const __half *gC, __half *gB, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE + 1];
    __shared__ float Gs[GEMM_TILE][GEMM_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int k0 = blockIdx.x * GEMM_TILE, n0 = blockIdx.y * GEMM_TILE;
    const int k = k0 + ty, n = n0 + tx;
    float acc = 0.0f;
    for (int mt = 0; mt < M; mt += GEMM_TILE) {
        const int m = mt + ty;
        As[ty][tx] = m < M ? __half2float(A[(size_t)m * K + k0 + tx]) : 0.0f;
        Gs[ty][tx] = m < M ? __half2float(gC[(size_t)m * N + n]) : 0.0f;
        __syncthreads();
        const int mmax = (M - mt < GEMM_TILE) ? M - mt - 1 : GEMM_TILE;
        for (int mm = 0; mm < mmax; mm++)
            acc = fmaf(As[mm][ty], Gs[mm][tx], acc);
        __syncthreads();
    }
    gB[(size_t)k * N + n] = __float2half(acc);
}
