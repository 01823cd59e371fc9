/* GEMM backward, grad_B (KERNELS.md row 6): gB[K,N] = A[M,K]^T @ gC[M,N],
 * i.e. gB[k,n] = sum_m A[m,k] * gC[m,n]; row-major, fp16 in global memory,
 * fp32 accumulation, fp16 out.
 *
 * Launch: 16x16 threads per block, grid (K/16, N/16); thread (tx, ty) of
 * block (bx, by) owns gB[bx*16+ty, by*16+tx]. As in the pilot, K and N must
 * be multiples of 16: nothing guards the k and n indices (the contract
 * refuses other shapes before launch). M is free: the m-tiles are guarded.
 *
 * Precision path (what contracts/gemm_bwd_b.toml models):
 *   - A and gC widened to fp32 exactly (__half2float);
 *   - each thread accumulates sequentially over m = 0..M-1 with
 *     acc = fmaf(A[m,k], gC[m,n], acc) from 0.0f (exact products, one
 *     rounding per step);
 *   - padded m-tile slots load as 0 but are never added;
 *   - one rounding to fp16, to nearest even (__float2half).
 */
#include "tp_hip.h" /* __half, fmaf and the launch names on both backends */
#define GEMM_TILE 16

__global__ void gemm_bwd_b(const __half *A, const __half *gC, __half *gB, int M, int N, int K)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE + 1];
    __shared__ float Gs[GEMM_TILE][GEMM_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int k0 = blockIdx.x * GEMM_TILE, n0 = blockIdx.y * GEMM_TILE;
    const int k = k0 + ty, n = n0 + tx;
    float acc = 0.0f;
    for (int mt = 0; mt < M; mt += GEMM_TILE) {
        const int m = mt + ty;
        As[ty][tx] = m < M ? __half2float(A[(size_t)m * K + k0 + tx]) : 0.0f;
        Gs[ty][tx] = m < M ? __half2float(gC[(size_t)m * N + n]) : 0.0f;
        __syncthreads();
        const int mmax = (M - mt < GEMM_TILE) ? M - mt : GEMM_TILE;
        for (int mm = 0; mm < mmax; mm++)
            acc = fmaf(As[mm][ty], Gs[mm][tx], acc);
        __syncthreads();
    }
    gB[(size_t)k * N + n] = __float2half(acc);
}
