/* variant: gemm_fwd_swapped_output
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_swapped_output
 * cases: normal_64 ragged_100x37x250 special_64x64x32
 * what: row and column swapped in the output write (C[n*M + m] instead of C[m*N + n]): the result is stored transposed
 */
/* C[col * M + row] stays inside the M x N buffer and each element is
 * written once, so no poison is left: on square cases the output is C^T,
 * on the ragged case (100 x 37) the rows are scrambled. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_swapped_output(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
        C[(size_t)col * M + row] = __float2half(acc);
}
