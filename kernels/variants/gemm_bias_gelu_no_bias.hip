/* variant: gemm_bias_gelu_no_bias
 * contract: gemm_bias_gelu
 * expect: wrong
 * entry: gemm_bias_gelu_no_bias
 * cases: ragged_3x37x100x250 tiny_1x1x1x1 special_2x32x64x32 wide_2x48x80x256 cancel_2x64x64x512 llama_2x32x1024x4096 bias_cancels_2x16x64x4096
 * what: the bias is never added: gelu(acc)
 */
#include "tp_hip.h"

__device__ __forceinline__ float epilogue(float acc, float bias)
{
    (void)bias;
    const float x = acc;
    return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * (x * x * x))));
}

__global__ void gemm_bias_gelu_no_bias(const __half *A, const __half *B, const __half *bias, __half *C, int M, int N, int K)
{
    __shared__ float As[16][16];
    __shared__ float Bs[16][17];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    const __half *a = A + (size_t)blockIdx.z * M * K;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        const int ka = k0 + tx;
        As[ty][tx] = (row < M && ka < K) ? __half2float(a[(size_t)row * K + ka]) : 0.0f;
        {
            const int kb = k0 + ty;
            Bs[ty][tx] = (kb < K && col < N) ? __half2float(B[(size_t)kb * N + col]) : 0.0f;
        }
        __syncthreads();
        const int kmax = (K - k0 < 16) ? K - k0 : 16;
        for (int kk = 0; kk < kmax; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[((size_t)blockIdx.z * M + row) * N + col] = __float2half(epilogue(acc, __half2float(bias[col])));
}
