/* variant: gelu_fwd_sigmoid_form
 * contract: gelu_fwd
 * expect: wrong
 * entry: gelu_fwd_sigmoid_form
 * cases: normal_65536 ragged_1000
 * what: the sigmoid approximation x * sigmoid(1.702 x) ("quick GELU") instead of the tanh form the contract names
 */
/* Another GELU approximation mixed up with the tanh form: x / (1 +
 * exp(-1.702 x)) differs from 0.5x(1 + tanh(c(x + a x^3))) by up to ~0.02
 * for |x| ~ 1..3. */
#include "tp_hip.h"
__global__ void gelu_fwd_sigmoid_form(const __half *x, __half *y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float xf = __half2float(x[i]);
    y[i] = __float2half(xf / (1.0f + expf(-1.702f * xf)));
}
