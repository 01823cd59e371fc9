/* variant: gemm_fwd_no_fma
 * contract: gemm_fwd
 * expect: correct
 * entry: gemm_fwd_no_fma
 * cases: tiny_1x1x1 normal_64 ragged_100x37x250 cancel_128x64x512 special_64x64x32 wide_256 ksplit_32x32x8192
 * what: FMA off: each step is __fadd_rn(acc, __fmul_rn(a, b)), which nvcc may not contract into an fma
 */
/* __fmul_rn/__fadd_rn are never fused, so this is the separate
 * multiply-then-add path the model's fma = "any" also covers. The product
 * of two binary16 values is exact in binary32, so the result equals the
 * fused one here; the variant checks that the harness and model accept
 * the unfused code path, not a different number. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_no_fma(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
            acc = __fadd_rn(acc, __fmul_rn(As[ty][kk], Bs[kk][tx]));
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
