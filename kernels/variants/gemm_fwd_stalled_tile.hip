/* variant: gemm_fwd_stalled_tile
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_stalled_tile
 * cases: normal_64 ragged_100x37x250 cancel_128x64x512
 * what: the k-tile loop advances only by whole tiles, so when K is not a multiple of 16 it never leaves the partial last tile: the kernel never ends (ragged: the case in error by timeout; the others pass, the last one in a fresh process)
 */
/* The watchdog's witness (harness/tp_supervise.h): the step is the part
 * of the remaining k that fills a whole tile, 0 on the partial last one,
 * so k0 stops there and every block of the launch spins (the loop keeps
 * its barriers, so the compiler cannot drop it). Only ragged_100x37x250
 * (K = 250) takes that path; it is recorded "by": "timeout" after the
 * case's watchdog (60 s by default, --case-timeout), normal_64 runs before
 * it and cancel_128x64x512 after it in a fresh process, and both pass. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_stalled_tile(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GEMM_TILE + ty;
    const int col = blockIdx.x * GEMM_TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K;) {
        const int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? __half2float(A[(size_t)row * K + ka]) : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        __syncthreads();
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        for (int kk = 0; kk < kmax; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
        k0 += (K - k0) / GEMM_TILE > 0 ? GEMM_TILE : 0;
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
