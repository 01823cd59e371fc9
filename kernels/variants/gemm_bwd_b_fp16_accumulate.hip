/* variant: gemm_bwd_b_fp16_accumulate
 * contract: gemm_bwd_b
 * expect: wrong
 * entry: gemm_bwd_b_fp16_accumulate
 * cases: ragged_m_250x64x128 cancel_512x64x128 wide_256
 * what: fp16 accumulation over m: the running sum is kept in a __half and rounded to binary16 after every step, where the contract says fp32
 */
/* M roundings to binary16 instead of one; on the cancel case the running
 * sum peaks mid-way (|partial| ~ 100) where a binary16 ulp is 2^-4, far
 * above the tiny final |gB|. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_bwd_b_fp16_accumulate(const __half *A, const __half *gC, __half *gB, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE + 1];
    __shared__ float Gs[GEMM_TILE][GEMM_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int k0 = blockIdx.x * GEMM_TILE, n0 = blockIdx.y * GEMM_TILE;
    const int k = k0 + ty, n = n0 + tx;
    __half acc = __float2half(0.0f);
    for (int mt = 0; mt < M; mt += GEMM_TILE) {
        const int m = mt + ty;
        As[ty][tx] = m < M ? __half2float(A[(size_t)m * K + k0 + tx]) : 0.0f;
        Gs[ty][tx] = m < M ? __half2float(gC[(size_t)m * N + n]) : 0.0f;
        __syncthreads();
        const int mmax = (M - mt < GEMM_TILE) ? M - mt : GEMM_TILE;
        for (int mm = 0; mm < mmax; mm++)
            acc = __float2half(fmaf(As[mm][ty], Gs[mm][tx], __half2float(acc)));
        __syncthreads();
    }
    gB[(size_t)k * N + n] = acc;
}
