/* variant: layernorm_bwd_input_no_fma
 * contract: layernorm_bwd_input
 * expect: correct
 * entry: layernorm_bwd_input_no_fma
 * cases: large_mean_64x1024 wide_128x512 ragged_33x77 special_32x256 refused_cols_65537
 * what: every multiply and add rounded separately (__fmul_rn/__fadd_rn/__fsub_rn): no contraction anywhere
 */
/* The base kernel with contraction ruled out: every product and sum goes
 * through __fmul_rn / __fadd_rn / __fsub_rn, which the compiler never fuses.
 * The contract's fma = "any" admits the unfused path as well as the fused. */
#include "tp_hip.h"

#define LN_MAX_WARPS 32

/* The base kernel's block sum (kernels/layernorm_bwd_input.hip). */
__device__ static float lnb_block_sum(float v, float *sh)
{
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int nwarps = (blockDim.x + warpSize - 1) / warpSize;
    const int here = min(warpSize, (int)blockDim.x - warp * warpSize);
    for (int d = warpSize / 2; d > 0; d /= 2) {
        const float o = __shfl_down(v, d);
        if (lane + d < here)
            v += o;
    }
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? sh[lane] : 0.0f;
        for (int d = warpSize / 2; d > 0; d /= 2) {
            const float o = __shfl_down(v, d);
            if (lane + d < min(nwarps, here))
                v += o;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0)
        sh[0] = v;
    __syncthreads();
    const float total = sh[0];
    __syncthreads();
    return total;
}

__global__ void layernorm_bwd_input_no_fma(const __half *x, const __half *dy, const __half *gamma, const __half *mean,
                                    const __half *rstd, __half *dx, int rows, int cols)
{
    __shared__ float sh[LN_MAX_WARPS];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const size_t off = (size_t)r * cols;
    const float m = __half2float(mean[r]), s = __half2float(rstd[r]);

    float a1 = 0.0f, a2 = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float xh = __fmul_rn(__fsub_rn(__half2float(x[off + j]), m), s);
        const float dxh = __fmul_rn(__half2float(dy[off + j]), __half2float(gamma[j]));
        a1 = __fadd_rn(a1, dxh);
        a2 = __fadd_rn(a2, __fmul_rn(dxh, xh));
    }
    const float sum1 = lnb_block_sum(a1, sh);
    const float sum2 = lnb_block_sum(a2, sh);
    const float k = s / (float)cols;
    const float n = (float)cols;

    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float xh = (__half2float(x[off + j]) - m) * s;
        const float dxh = __half2float(dy[off + j]) * __half2float(gamma[j]);
        const float t = __fsub_rn(__fsub_rn(__fmul_rn(n, dxh), sum1), __fmul_rn(xh, sum2));
        dx[off + j] = __float2half(__fmul_rn(k, t));
    }
}
