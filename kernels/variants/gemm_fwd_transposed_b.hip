/* variant: gemm_fwd_transposed_b
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_transposed_b
 * cases: normal_64 ragged_100x37x250 special_64x64x32
 * what: B read as if it were stored transposed (B[n*K + k] instead of B[k*N + n]): C = A @ reshape(B, N x K)^T
 */
/* A transposed-operand bug: the index stays inside B (n < N, k < K), so
 * nothing faults and the output is simply another matrix. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_transposed_b(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
        Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)col * K + kb]) : 0.0f;
        __syncthreads();
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        for (int kk = 0; kk < kmax; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
