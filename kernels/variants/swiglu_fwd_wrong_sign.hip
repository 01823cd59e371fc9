/* variant: swiglu_fwd_wrong_sign
 * contract: swiglu_fwd
 * expect: wrong
 * entry: swiglu_fwd_wrong_sign
 * cases: ragged_77x1000 special_64x64
 * what: expf(a) instead of expf(-a): a / (1 + e^a), silu mirrored
 */
#include "tp_hip.h"
__global__ void swiglu_fwd_wrong_sign(const __half *a, const __half *b, __half *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = __half2float(a[i]), bv = __half2float(b[i]);
        y[i] = __float2half(av / (1.0f + expf(av)) * bv);
    }
}
