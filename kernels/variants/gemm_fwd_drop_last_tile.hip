/* variant: gemm_fwd_drop_last_tile
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_drop_last_tile
 * cases: tiny_1x1x1 normal_64 ragged_100x37x250 cancel_128x64x512
 * what: the k-tile loop runs only over whole tiles (k0 + 16 <= K): when K is not a multiple of 16 the partial last tile is dropped (ragged: 10 of 250 products; tiny: the only product)
 */
/* Exposed only where K % 16 != 0: ragged_100x37x250 and tiny_1x1x1.
 * normal_64 and cancel_128x64x512 (K multiples of 16) are selected to
 * show them passing. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_drop_last_tile(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GEMM_TILE + ty;
    const int col = blockIdx.x * GEMM_TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 + GEMM_TILE <= K; k0 += GEMM_TILE) {
        const int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M) ? __half2float(A[(size_t)row * K + ka]) : 0.0f;
        Bs[ty][tx] = (col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < GEMM_TILE; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
