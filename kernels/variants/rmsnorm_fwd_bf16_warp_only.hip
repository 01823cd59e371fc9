/* variant: rmsnorm_fwd_bf16_warp_only
 * contract: rmsnorm_fwd_bf16
 * expect: correct
 * entry: rmsnorm_fwd_bf16_warp_only
 * cases: normal_256x4096 llama70b_16x8192 ragged_33x1000 qk_norm_1024x128 wide_64x1024 tiny_rows_64x256 outliers_32x4096 subnormal_w_64x64
 * what: only warp 0 works: 32 lanes stride the row, one shuffle tree, no shared memory; the other warps return at once
 */
/* Another reduction shape with the base's arithmetic per element: the
 * squares are summed by 32 strided lanes and one shuffle tree, an fp32 sum
 * in another order, which the contract admits in any order. */
#include "tp_hip.h"

#define RMS_EPS 1e-6f
#define RMS_MAX_WARPS 32

__global__ void rmsnorm_fwd_bf16_warp_only(const tp_bf16 *x, const tp_bf16 *w, tp_bf16 *y, float *rstd, int rows, int cols)
{
    const int r = blockIdx.x, lane = threadIdx.x;
    if (r >= rows || threadIdx.x >= 32)
        return;
    const tp_bf16 *xr = x + (size_t)r * cols;
    tp_bf16 *yr = y + (size_t)r * cols;
    float q = 0.0f;
    for (int j = lane; j < cols; j += 32) {
        const float v = tp_bf162float(xr[j]);
        q += v * v;
    }
    for (int d = 16; d > 0; d /= 2) /* lanes 0..31: a whole warp (CUDA), half a wavefront (HIP) */
        q += __shfl_xor(q, d);
    const float rs = rsqrtf(q / (float)cols + RMS_EPS);
    for (int j = lane; j < cols; j += 32)
        yr[j] = tp_float2bf16(tp_bf162float(xr[j]) * rs * tp_bf162float(w[j]));
    if (lane == 0)
        rstd[r] = rs;
}
