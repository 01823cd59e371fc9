/* variant: gelu_bwd_a_for_3a
 * contract: gelu_bwd
 * expect: wrong
 * entry: gelu_bwd_a_for_3a
 * cases: normal_65536 ragged_1000
 * what: the inner derivative is c(1 + a x^2) instead of c(1 + 3a x^2): the factor 3 of d/dx x^3 forgotten
 */
#include "tp_hip.h"
__global__ void gelu_bwd_a_for_3a(const __half *x, const __half *g, __half *gi, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xf = __half2float(x[i]), gf = __half2float(g[i]);
    const float c = 0.7978845608f, a = 0.044715f;
    float x2 = xf * xf;
    float x3 = x2 * xf;
    float inner = c * (xf + a * x3);
    float t = tanhf(inner);
    float dinner = c * (1.0f + a * x2);
    float f = 0.5f * (1.0f + t) + 0.5f * xf * (1.0f - t * t) * dinner;
    gi[i] = __float2half(gf * f);
}
