/* GEMM backward, grad_A (KERNELS.md row 5): gA[M,K] = gC[M,N] @ B[K,N]^T,
 * i.e. gA[m,k] = sum_n gC[m,n] * B[k,n]; row-major, fp16 in global memory,
 * fp32 accumulation, fp16 out.
 *
 * Launch: 16x16 threads per block, grid (M/16, K/16); thread (tx, ty) of
 * block (bx, by) owns gA[bx*16+ty, by*16+tx]. As in the pilot, M and K must
 * be multiples of 16: nothing guards the m and k indices (the contract
 * refuses other shapes before launch). N is free: the n-tiles are guarded.
 *
 * Precision path (what contracts/gemm_bwd_a.toml models):
 *   - gC and B widened to fp32 exactly (__half2float);
 *   - each thread accumulates sequentially over n = 0..N-1 with
 *     acc = fmaf(gC[m,n], B[k,n], acc) from 0.0f: the product of two fp16
 *     values is exact in fp32, so each step rounds only the sum;
 *   - padded n-tile slots load as 0 but are never added (the inner loop
 *     stops at the last real n), so inf/NaN inputs follow the plain chain;
 *   - one rounding to fp16, to nearest even (__float2half).
 */
#include "tp_hip.h" /* __half, fmaf and the launch names on both backends */
#define GEMM_TILE 16

__global__ void gemm_bwd_a(const __half *gC, const __half *B, __half *gA, int M, int N, int K)
{
    /* +1 column: the B tile is read down a column (Bs[tx][nn]) */
    __shared__ float Gs[GEMM_TILE][GEMM_TILE + 1];
    __shared__ float Bs[GEMM_TILE][GEMM_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m0 = blockIdx.x * GEMM_TILE, k0 = blockIdx.y * GEMM_TILE;
    const int m = m0 + ty, k = k0 + tx;
    float acc = 0.0f;
    for (int n0 = 0; n0 < N; n0 += GEMM_TILE) {
        const int n = n0 + tx;
        Gs[ty][tx] = n < N ? __half2float(gC[(size_t)m * N + n]) : 0.0f;
        Bs[ty][tx] = n < N ? __half2float(B[(size_t)(k0 + ty) * N + n]) : 0.0f;
        __syncthreads();
        const int nmax = (N - n0 < GEMM_TILE) ? N - n0 : GEMM_TILE;
        for (int nn = 0; nn < nmax; nn++)
            acc = fmaf(Gs[ty][nn], Bs[tx][nn], acc);
        __syncthreads();
    }
    gA[(size_t)m * K + k] = __float2half(acc);
}
