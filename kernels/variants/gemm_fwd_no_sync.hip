/* variant: gemm_fwd_no_sync
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_no_sync
 * cases: normal_64 ragged_100x37x250 cancel_128x64x512 wide_256
 * what: both __syncthreads removed: a warp reads B-tile rows that other warps have not stored yet (stale values of the previous tile or of another block) or have already overwritten with the next tile (a data race)
 */
/* Thread (tx, ty) reads Bs[kk][tx] for kk = 0..15, written by the threads
 * of row kk, i.e. by all 8 warps of the block; nothing orders those stores
 * before the reads, nor the next tile's stores after them. Each warp waits
 * only for its own global loads, whose latency varies from warp to warp,
 * so on a GPU some reads see the wrong tile. The cases chosen have many
 * blocks and many k-tiles (up to 32) to give the race room. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_no_sync(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        for (int kk = 0; kk < kmax; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
