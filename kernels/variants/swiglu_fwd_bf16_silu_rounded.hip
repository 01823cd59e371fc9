/* variant: swiglu_fwd_bf16_silu_rounded
 * contract: swiglu_fwd_bf16
 * expect: wrong
 * entry: swiglu_fwd_bf16_silu_rounded
 * cases: normal_1024x4096 llama8b_16x14336 ragged_77x1000
 * what: silu(a) rounded to bf16 before the product with b, then the product rounded again: what eager F.silu(a) * b does in bf16
 */
/* Two roundings to bf16 instead of one: the result can be a whole bf16
 * ulp from the exact value, outside the fp32 model, which admits one final
 * rounding. (A framework's unfused silu-then-multiply in bf16 computes
 * exactly this; a fused kernel that claims fp32 to the end must not.) */
#include "tp_hip.h"

__global__ void swiglu_fwd_bf16_silu_rounded(const tp_bf16 *a, const tp_bf16 *b, tp_bf16 *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = tp_bf162float(a[i]), bv = tp_bf162float(b[i]);
        const float s = tp_bf162float(tp_float2bf16(av / (1.0f + expf(-av))));
        y[i] = tp_float2bf16(s * bv);
    }
}
