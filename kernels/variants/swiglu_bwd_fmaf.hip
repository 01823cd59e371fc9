/* variant: swiglu_bwd_fmaf
 * contract: swiglu_bwd
 * expect: correct
 * entry: swiglu_bwd_fmaf
 * cases: normal_1024x4096 ragged_77x1000 wide_256x1024 negative_gate_256x256 all_f16_gate_62x1024 special_64x64
 * what: 1 + a*(1 - s) written as an explicit fmaf(a, 1 - s, 1): the fused choice of fma = "any"
 */
#include "tp_hip.h"
__global__ void swiglu_bwd_fmaf(const __half *a, const __half *b, const __half *dy, __half *da, __half *db, int rows,
                                int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = __half2float(a[i]), bv = __half2float(b[i]), g = __half2float(dy[i]);
        const float s = 1.0f / (1.0f + expf(-av));
        da[i] = __float2half(g * bv * s * fmaf(av, 1.0f - s, 1.0f));
        db[i] = __float2half(g * av * s);
    }
}
