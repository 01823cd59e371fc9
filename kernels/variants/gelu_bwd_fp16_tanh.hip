/* variant: gelu_bwd_fp16_tanh
 * contract: gelu_bwd
 * expect: wrong
 * entry: gelu_bwd_fp16_tanh
 * cases: near_zero_of_derivative ragged_1000
 * what: t = tanh(...) is stored as binary16 (rounded to 11 bits) before 1 + t and 1 - t^2 use it
 */
/* A binary16 intermediate where the contract says fp32: t loses 13 bits,
 * about 2.4e-4 relative, which moves f by up to ~1e-4. That is below the
 * 1e-2 claim but large next to f itself where f crosses zero (x near
 * -0.7525). */
#include "tp_hip.h"
__global__ void gelu_bwd_fp16_tanh(const __half *x, const __half *g, __half *gi, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xf = __half2float(x[i]), gf = __half2float(g[i]);
    const float c = 0.7978845608f, a = 0.044715f, k3a = 0.134145f;
    float x2 = xf * xf;
    float x3 = x2 * xf;
    float inner = c * (xf + a * x3);
    const __half th = __float2half(tanhf(inner));
    float t = __half2float(th);
    float dinner = c * (1.0f + k3a * x2);
    float f = 0.5f * (1.0f + t) + 0.5f * xf * (1.0f - t * t) * dinner;
    gi[i] = __float2half(gf * f);
}
