/* variant: swiglu_fwd_bf16_truncate
 * contract: swiglu_fwd_bf16
 * expect: wrong
 * entry: swiglu_fwd_bf16_truncate
 * cases: normal_1024x4096 ragged_77x1000 wide_256x1024
 * what: the fp32 result converted to bf16 by keeping its top 16 bits (rounding toward zero), a common hand-written conversion
 */
/* Truncation is off by up to one bf16 ulp (2^-8 relative) wherever the
 * dropped 16 bits are at least half of one: about half of all outputs. */
#include "tp_hip.h"

__global__ void swiglu_fwd_bf16_truncate(const tp_bf16 *a, const tp_bf16 *b, tp_bf16 *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = tp_bf162float(a[i]), bv = tp_bf162float(b[i]);
        const float v = av / (1.0f + expf(-av)) * bv;
        ((unsigned short *)y)[i] = (unsigned short)(__float_as_uint(v) >> 16);
    }
}
