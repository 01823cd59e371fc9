/* variant: gemm_fwd_wild_store
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_wild_store
 * cases: normal_64 ragged_100x37x250 cancel_128x64x512
 * what: when K is not a multiple of 16 the result is stored 2^40 elements past C, an illegal address that loses the context (ragged: the case in error by fault; the others pass, the last one in a fresh process)
 */
/* The fault-isolation witness (harness/tp_supervise.h): a store through
 * an offset no allocation covers, so the GPU reports an illegal address
 * (CUDA error 700, sticky: every later call of the process fails) instead
 * of silently overwriting a neighbour. Only ragged_100x37x250 (K = 250)
 * takes that path; normal_64 runs before it and cancel_128x64x512 after
 * it, in the fresh process the supervisor starts, and both pass. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_wild_store(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
    const size_t wild = (K % GEMM_TILE) ? (size_t)1 << 40 : 0;
    if (row < M && col < N)
        C[(size_t)row * N + col + wild] = __float2half(acc);
}
