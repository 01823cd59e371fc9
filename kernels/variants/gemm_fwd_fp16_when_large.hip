/* variant: gemm_fwd_fp16_when_large
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_fp16_when_large
 * cases: normal_64 ragged_100x37x250 wide_256 special_64x64x32
 * what: the running sum is rounded to binary16 after each step once |acc| > 256: right for small outputs (normal, ragged pass) and wrong at large magnitudes (wide, special)
 */
/* An error that only large magnitudes expose: below 256 the path is the
 * base kernel's fp32 chain, so the normal and ragged cases pass; on
 * wide_256 (|C| up to ~2^10) the binary16 roundings of the running sum
 * are each up to 1/8 or more, and on the special case (products up to
 * 2^32) the rounded running sum overflows to inf even where the exact sum
 * is small. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_fp16_when_large(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
        for (int kk = 0; kk < kmax; kk++) {
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
            if (fabsf(acc) > 256.0f)
                acc = __half2float(__float2half(acc));
        }
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
