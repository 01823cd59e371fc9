/* variant: gemm_bwd_b_reversed_m
 * contract: gemm_bwd_b
 * expect: correct
 * entry: gemm_bwd_b_reversed_m
 * cases: ragged_m_250x64x128 cancel_512x64x128 wide_256 special_32x64x64 refused_k100
 * what: accumulates m from M-1 down to 0 (m-tiles last to first, each tile backwards): another summation order
 */
/* order = "any" admits the reversed chain; the partial last m-tile (the
 * ragged case) comes first and its padding is still never added. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_bwd_b_reversed_m(const __half *A, const __half *gC, __half *gB, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE + 1];
    __shared__ float Gs[GEMM_TILE][GEMM_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int k0 = blockIdx.x * GEMM_TILE, n0 = blockIdx.y * GEMM_TILE;
    const int k = k0 + ty, n = n0 + tx;
    float acc = 0.0f;
    const int last = ((M - 1) / GEMM_TILE) * GEMM_TILE;
    for (int mt = last; mt >= 0; mt -= GEMM_TILE) {
        const int m = mt + ty;
        As[ty][tx] = m < M ? __half2float(A[(size_t)m * K + k0 + tx]) : 0.0f;
        Gs[ty][tx] = m < M ? __half2float(gC[(size_t)m * N + n]) : 0.0f;
        __syncthreads();
        const int mmax = (M - mt < GEMM_TILE) ? M - mt : GEMM_TILE;
        for (int mm = mmax - 1; mm >= 0; mm--)
            acc = fmaf(As[mm][ty], Gs[mm][tx], acc);
        __syncthreads();
    }
    gB[(size_t)k * N + n] = __float2half(acc);
}
