/* variant: gelu_bwd_sign_error
 * contract: gelu_bwd
 * expect: wrong
 * entry: gelu_bwd_sign_error
 * cases: normal_65536 ragged_1000
 * what: the second term of the derivative is subtracted: 0.5(1+t) - 0.5x(1-t^2)c(1+3ax^2)
 */
#include "tp_hip.h"
__global__ void gelu_bwd_sign_error(const __half *x, const __half *g, __half *gi, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xf = __half2float(x[i]), gf = __half2float(g[i]);
    const float c = 0.7978845608f, a = 0.044715f, k3a = 0.134145f;
    float x2 = xf * xf;
    float x3 = x2 * xf;
    float inner = c * (xf + a * x3);
    float t = tanhf(inner);
    float dinner = c * (1.0f + k3a * x2);
    float f = 0.5f * (1.0f + t) - 0.5f * xf * (1.0f - t * t) * dinner;
    gi[i] = __float2half(gf * f);
}
