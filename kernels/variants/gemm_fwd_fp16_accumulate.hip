/* variant: gemm_fwd_fp16_accumulate
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_fp16_accumulate
 * cases: normal_64 ragged_100x37x250 cancel_128x64x512 wide_256
 * what: fp16 accumulation: the running sum is rounded to binary16 after every step, where the contract says fp32
 */
/* K roundings to binary16 instead of one: the error grows like sqrt(K)
 * half-ulps of binary16, several output ulps on every case with K >= 64. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_fp16_accumulate(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        for (int kk = 0; kk < kmax; kk++)
            acc = __half2float(__float2half(fmaf(As[ty][kk], Bs[kk][tx], acc)));
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
