/* variant: gemm_fwd_fp16_products
 * contract: gemm_fwd
 * expect: wrong
 * entry: gemm_fwd_fp16_products
 * cases: normal_64 ragged_100x37x250 special_64x64x32
 * what: each product is computed in binary16 (__hmul) and only then added in fp32: one extra binary16 rounding per product, overflow of products above 65504 and underflow of tiny ones
 */
/* The contract's model has exact products: a binary16 product loses up
 * to 2^-11 relatively per term, which moves the binary16 output on many
 * elements; on the special case 65504 * 65504 becomes inf and 2^-24 * 1
 * products of subnormals vanish. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_fwd_fp16_products(const __half *A, const __half *B, __half *C, int M, int N, int K)
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
            acc += __half2float(__hmul(__float2half(As[ty][kk]), __float2half(Bs[kk][tx])));
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half(acc);
}
