/* variant: gemm_fwd_acc_starts_at_one
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_acc_starts_at_one
 * cases: tiny_1x1x1 normal_64 cancel_128x64x512
 * what: the accumulator starts at 1.0f instead of 0.0f (a stale initial value): every output is off by +1
 */
/* The stand-in for an uninitialised accumulator, kept deterministic. The
 * +1 is far outside the bound wherever |C| is below ~2^11 (all selected
 * cases; the cancel case's |C| is tiny, so the shift is huge relatively). */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_acc_starts_at_one(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GEMM_TILE + ty;
    const int col = blockIdx.x * GEMM_TILE + tx;
    float acc = 1.0f;
    for (int k0 = 0; k0 < K; k0 += GEMM_TILE) {
        const int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? __half2float(A[(size_t)row * K + ka]) : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        __syncthreads();
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        for (int kk = 0; kk < kmax; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
