/* GEMM forward (KERNELS.md row 11): C[M,N] = A[M,K] @ B[K,N], row-major,
 * fp16 in global memory, fp32 accumulation, fp16 out.
 *
 * Launch: 16x16 threads per block, grid (ceil(N/16), ceil(M/16)); thread
 * (tx, ty) of block (bx, by) owns C[by*16+ty, bx*16+tx].
 *
 * Precision path (what contracts/gemm_fwd.toml models):
 *   - A and B are read as fp16 and widened to fp32 exactly (__half2float);
 *   - each thread accumulates its output sequentially over k = 0..K-1 with
 *     acc = fmaf(a, b, acc) in fp32 starting from 0.0f: one rounding to
 *     fp32 per step (the product of two fp16 values is exact in fp32, so
 *     the fused multiply-add rounds only the sum);
 *   - out-of-range tile elements load as 0 (so any M, N, K works) but the
 *     inner loop stops at the last real k, so padding is never added: even
 *     with inf/NaN inputs the result is the plain sequential fmaf chain;
 *   - the result is rounded once to fp16, to nearest even (__float2half).
 */
#include "tp_hip.h" /* __half, fmaf/tanhf and the launch names on both backends */
#define GEMM_TILE 16

__global__ void gemm_fwd(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GEMM_TILE + ty; /* m */
    const int col = blockIdx.x * GEMM_TILE + tx; /* n */
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += GEMM_TILE) {
        const int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? __half2float(A[(size_t)row * K + ka]) : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        __syncthreads();
        const int kmax = (K - k0 < GEMM_TILE) ? K - k0 : GEMM_TILE;
        /* only the k that exist: padded zeros are never added, so the order
         * and number of roundings is exactly k = 0, 1, ..., K-1 */
        for (int kk = 0; kk < kmax; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
