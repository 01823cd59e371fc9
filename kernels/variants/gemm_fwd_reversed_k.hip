/* variant: gemm_fwd_reversed_k
 * contract: gemm_fwd
 * expect: correct
 * entry: gemm_fwd_reversed_k
 * cases: tiny_1x1x1 normal_64 ragged_100x37x250 cancel_128x64x512 special_64x64x32 wide_256 ksplit_32x32x8192
 * what: accumulates k from K-1 down to 0 (k-tiles last to first, each tile backwards): another summation order
 */
/* The contract's model admits any order of the fp32 sum, so walking k
 * backwards must still pass. The partial last tile (K not a multiple of
 * 16) is visited first, and its padding is still never added. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_reversed_k(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GEMM_TILE + ty;
    const int col = blockIdx.x * GEMM_TILE + tx;
    float acc = 0.0f;
    const int last = ((K - 1) / GEMM_TILE) * GEMM_TILE; /* start of the last (maybe partial) tile */
    for (int k0 = last; k0 >= 0; k0 -= GEMM_TILE) {
        const int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? __half2float(A[(size_t)row * K + ka]) : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        __syncthreads();
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        for (int kk = kmax - 1; kk >= 0; kk--)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
