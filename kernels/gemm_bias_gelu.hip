/* Fused first projection of a transformer MLP (not a pilot kernel):
 * C[b,m,n] = gelu(sum_k A[b,m,k] W(k,n) + bias[n]), the tanh form of GELU,
 * fp16 in global memory, fp32 accumulation and epilogue, fp16 out.
 * Two entries, one body:
 *   gemm_bias_gelu     W(k,n) = B[k,n]: B stored K x N (in x out: GPT-2's
 *                      Conv1D weight);
 *   gemm_bias_gelu_nt  W(k,n) = B[n,k]: B stored N x K (out x in:
 *                      torch.nn.Linear's weight, F.linear(x, W, b)).
 * A is [batch, M, K] (the batch's tokens), B one matrix shared by every
 * batch entry, bias [N], C [batch, M, N], all row-major.
 *
 * Launch: 16x16 threads per block, grid (ceil(N/16), ceil(M/16), batch);
 * thread (tx, ty) of block (bx, by, bz) owns C[bz, by*16+ty, bx*16+tx].
 *
 * Precision path (what contracts/gemm_bias_gelu*.toml model):
 *   - A, B and bias are read as fp16 and widened to fp32 exactly;
 *   - each thread accumulates its element over k = 0..K-1 in order,
 *     acc = fmaf(a, w, acc) in fp32 from 0.0f (a product of two fp16
 *     values is exact in fp32, so each step rounds the sum once); tiles
 *     of 16 k staged through shared memory, out-of-range slots loaded as
 *     0 but never added (the inner loop stops at the last real k);
 *   - x = acc + bias[n], then
 *     y = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * (x * x * x))))
 *     in fp32 (nvcc may contract a product and a sum into an fma);
 *   - one rounding to fp16, to nearest even (__float2half).
 */
#include "tp_hip.h" /* __half, fmaf/tanhf and the launch names on both backends */
#define GBG_TILE 16

/* The epilogue: bias, then tanh-GELU, in fp32. */
__device__ __forceinline__ float gbg_epilogue(float acc, float bias)
{
    const float x = acc + bias;
    return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * (x * x * x))));
}

template <bool TRANS_B>
__device__ __forceinline__ void gbg_body(const __half *A, const __half *B, const __half *bias, __half *C, int M,
                                         int N, int K)
{
    __shared__ float As[GBG_TILE][GBG_TILE];
    __shared__ float Bs[GBG_TILE][GBG_TILE + 1]; /* +1: the transposed load writes down a column */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GBG_TILE + ty; /* m */
    const int col = blockIdx.x * GBG_TILE + tx; /* n */
    const __half *a = A + (size_t)blockIdx.z * M * K;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += GBG_TILE) {
        const int ka = k0 + tx;
        As[ty][tx] = (row < M && ka < K) ? __half2float(a[(size_t)row * K + ka]) : 0.0f;
        if (TRANS_B) { /* B[n, k], read along k: thread (tx, ty) loads n = bx*16+ty, k = k0+tx */
            const int n = blockIdx.x * GBG_TILE + ty;
            Bs[tx][ty] = (n < N && ka < K) ? __half2float(B[(size_t)n * K + ka]) : 0.0f;
        } else {
            const int kb = k0 + ty;
            Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        }
        __syncthreads();
        const int kmax = (K - k0 < GBG_TILE) ? K - k0 : GBG_TILE;
        for (int kk = 0; kk < kmax; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[((size_t)blockIdx.z * M + row) * N + col] = __float2half(gbg_epilogue(acc, __half2float(bias[col])));
}

__global__ void gemm_bias_gelu(const __half *A, const __half *B, const __half *bias, __half *C, int M, int N, int K)
{
    gbg_body<false>(A, B, bias, C, M, N, K);
}

__global__ void gemm_bias_gelu_nt(const __half *A, const __half *B, const __half *bias, __half *C, int M, int N,
                                  int K)
{
    gbg_body<true>(A, B, bias, C, M, N, K);
}
