/* variant: gemm_fwd_round_toward_zero
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_round_toward_zero
 * cases: normal_64 ragged_100x37x250 special_64x64x32
 * what: the output is rounded toward zero (__float2half_rz) instead of to nearest: one binary16 ulp low in magnitude on about half of the elements, and 65504 instead of inf on overflow
 */
/* A truncating conversion: the fp32 sum is well inside the bound, but its
 * binary16 rounding is not the monotone nearest rounding the contract's
 * output_rounding = "nearest" admits. On the special case sums beyond
 * 65520 give +-65504 instead of +-inf. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_round_toward_zero(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half_rz(acc);
}
