/* variant: swiglu_fwd_drop_tail
 * contract: swiglu_fwd
 * expect: wrong
 * entry: swiglu_fwd_drop_tail
 * cases: normal_1024x4096 ragged_77x1000 mlp_16x11008
 * what: the bound check is i < n - 1: the last element is never written (it keeps the harness's initial contents)
 */
#include "tp_hip.h"
__global__ void swiglu_fwd_drop_tail(const __half *a, const __half *b, __half *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1) {
        const float av = __half2float(a[i]), bv = __half2float(b[i]);
        y[i] = __float2half(av / (1.0f + expf(-av)) * bv);
    }
}
