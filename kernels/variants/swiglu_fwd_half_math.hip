/* variant: swiglu_fwd_half_math
 * contract: swiglu_fwd
 * expect: wrong
 * entry: swiglu_fwd_half_math
 * cases: ragged_77x1000 wide_256x1024 all_f16_gate_62x1024
 * what: the whole expression in fp16 arithmetic (hexp, __hdiv, __hmul): a rounding to fp16 after every operation
 */
/* A common shortcut: stay in __half. Each operation rounds to binary16,
 * so the result can be several fp16 ulps from the exact value: outside the
 * fp32 model, which admits one final rounding. */
#include "tp_hip.h"
__global__ void swiglu_fwd_half_math(const __half *a, const __half *b, __half *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const __half one = __float2half(1.0f);
        y[i] = __hmul(__hdiv(a[i], __hadd(one, hexp(__hneg(a[i])))), b[i]);
    }
}
