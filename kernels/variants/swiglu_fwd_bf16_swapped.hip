/* variant: swiglu_fwd_bf16_swapped
 * contract: swiglu_fwd_bf16
 * expect: correct
 * entry: swiglu_fwd_bf16_swapped
 * cases: normal_1024x4096 ragged_77x1000 wide_256x1024 negative_gate_256x256 all_bf16_gate_64x1020 special_64x64
 * what: y = b * (a / (expf(-a) + 1.0f)): the addition's and the product's operands swapped
 */
/* The same roundings in another spelling: fp32 addition and multiplication
 * commute exactly, so every output equals the base's. */
#include "tp_hip.h"

__global__ void swiglu_fwd_bf16_swapped(const tp_bf16 *a, const tp_bf16 *b, tp_bf16 *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = tp_bf162float(a[i]), bv = tp_bf162float(b[i]);
        y[i] = tp_float2bf16(bv * (av / (expf(-av) + 1.0f)));
    }
}
