/* variant: gemm_fwd_k_stops_early
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_k_stops_early
 * cases: tiny_1x1x1 normal_64 ragged_100x37x250 special_64x64x32
 * what: off-by-one in the k bound (k < K-1): the last product A[m,K-1] B[K-1,n] is never added
 */
/* The bound is written in global k, as "kg < K - 1". One lost product of
 * size ~1 (normal fills) is far above the fp32 accumulation bound; with
 * K = 1 the sum is empty and C = 0. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_k_stops_early(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GEMM_TILE + ty;
    const int col = blockIdx.x * GEMM_TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += GEMM_TILE) {
        const int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? __half2float(A[(size_t)row * K + ka]) : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < GEMM_TILE && k0 + kk < K - 1; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
