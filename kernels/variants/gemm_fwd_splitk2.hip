/* variant: gemm_fwd_splitk2
 * contract: gemm_fwd
 * expect: correct
 * entry: gemm_fwd_splitk2
 * cases: tiny_1x1x1 normal_64 ragged_100x37x250 cancel_128x64x512 special_64x64x32 wide_256 ksplit_32x32x8192
 * what: split-K in two: the first half of the k-tiles and the rest go into two fp32 accumulators, added once at the end
 */
/* Split-K changes the shape of the summation tree (two chains and one
 * final add), which the contract's order = "any" admits. On the cancel
 * case the two halves nearly cancel each other, so the final add is the
 * step with the largest relative effect. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_splitk2(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GEMM_TILE + ty;
    const int col = blockIdx.x * GEMM_TILE + tx;
    const int ntiles = (K + GEMM_TILE - 1) / GEMM_TILE;
    const int split = (ntiles / 2) * GEMM_TILE; /* k where the second accumulator takes over */
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += GEMM_TILE) {
        const int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? __half2float(A[(size_t)row * K + ka]) : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        __syncthreads();
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        if (k0 < split)
            for (int kk = 0; kk < kmax; kk++)
                acc0 = fmaf(As[ty][kk], Bs[kk][tx], acc0);
        else
            for (int kk = 0; kk < kmax; kk++)
                acc1 = fmaf(As[ty][kk], Bs[kk][tx], acc1);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc0 + acc1);
}
