/* variant: swiglu_fwd_sigmoid_first
 * contract: swiglu_fwd
 * expect: correct
 * entry: swiglu_fwd_sigmoid_first
 * cases: normal_1024x4096 ragged_77x1000 wide_256x1024 negative_gate_256x256 all_f16_gate_62x1024 special_64x64
 * what: y = b * (a / (1 + expf(-a))): the product's operands swapped
 */
/* RN(x * y) = RN(y * x): the base's value bit for bit, from source that
 * reads differently (a reviewer should not have to prove that by hand). */
#include "tp_hip.h"
__global__ void swiglu_fwd_sigmoid_first(const __half *a, const __half *b, __half *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = __half2float(a[i]), bv = __half2float(b[i]);
        y[i] = __float2half(bv * (av / (1.0f + expf(-av))));
    }
}
