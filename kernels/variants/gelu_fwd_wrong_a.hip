/* variant: gelu_fwd_wrong_a
 * contract: gelu_fwd
 * expect: wrong
 * entry: gelu_fwd_wrong_a
 * cases: all_f16 normal_65536
 * what: the cubic coefficient is 0.0447f instead of 0.044715 (a truncated constant)
 */
/* The base kernel with a = 0.0447f: z is off by c*1.5e-5*x^3, which moves
 * y by a fraction of a binary16 ulp for |x| ~ 1..3 and shows where that
 * shift crosses a rounding boundary. */
#include "tp_hip.h"
__global__ void gelu_fwd_wrong_a(const __half *x, __half *y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xf = __half2float(x[i]);
    const float c = 0.7978845608f, a = 0.0447f;
    float x2 = xf * xf;
    float x3 = x2 * xf;
    float inner = c * (xf + a * x3);
    float t = tanhf(inner);
    y[i] = __float2half(0.5f * xf * (1.0f + t));
}
