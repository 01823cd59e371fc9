/* variant: swiglu_fwd_bf16_via_half
 * contract: swiglu_fwd_bf16
 * expect: wrong
 * entry: swiglu_fwd_bf16_via_half
 * cases: wide_256x1024 all_bf16_gate_64x1020 special_64x64
 * what: a kernel ported from fp16 that still stages the inputs through __half: bf16 values beyond 65504 become inf, those below 2^-14 lose bits and those below 2^-25 become 0
 */
/* Within fp16's range (and precision: bf16's 8 bits fit in fp16's 11) the
 * staging is exact, so normal inputs pass; bf16's wider range does not fit. */
#include "tp_hip.h"

__global__ void swiglu_fwd_bf16_via_half(const tp_bf16 *a, const tp_bf16 *b, tp_bf16 *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = __half2float(__float2half(tp_bf162float(a[i])));
        const float bv = __half2float(__float2half(tp_bf162float(b[i])));
        y[i] = tp_float2bf16(av / (1.0f + expf(-av)) * bv);
    }
}
