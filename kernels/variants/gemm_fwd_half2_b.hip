/* variant: gemm_fwd_half2_b
 * contract: gemm_fwd
 * expect: correct
 * entry: gemm_fwd_half2_b
 * cases: tiny_1x1x1 normal_64 ragged_100x37x250 cancel_128x64x512 special_64x64x32 wide_256
 * what: the B tile is loaded as half2 pairs (even tx loads columns col, col+1) where the pair is 4-byte aligned and inside N; scalar loads otherwise
 */
/* Vectorised loads change only how B reaches shared memory, not the
 * arithmetic. A half2 load needs a 4-byte aligned address and both
 * columns in range: with odd N (the ragged case, N = 37) the pair starts
 * at an odd element on every other row of B, and the last column of a
 * ragged tile has no partner, so each pair checks both and falls back to
 * two scalar loads. Only even-tx threads load B; the odd ones leave their
 * slot to their even neighbour. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_half2_b(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
        if ((tx & 1) == 0) {
            float b0 = 0.0f, b1 = 0.0f;
            if (kb < K) {
                const __half *p = B + (size_t)kb * N + col;
                if (col + 1 < N && ((uintptr_t)p & 3) == 0) {
                    const float2 f = __half22float2(*(const __half2 *)p);
                    b0 = f.x;
                    b1 = f.y;
                } else {
                    if (col < N)
                        b0 = __half2float(p[0]);
                    if (col + 1 < N)
                        b1 = __half2float(p[1]);
                }
            }
            Bs[ty][tx] = b0;
            Bs[ty][tx + 1] = b1;
        }
        __syncthreads();
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        for (int kk = 0; kk < kmax; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
