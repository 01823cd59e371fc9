/* variant: gelu_bwd_fmaf
 * contract: gelu_bwd
 * expect: correct
 * entry: gelu_bwd_fmaf
 * cases: all_f16 near_zero_of_derivative ragged_1000 special
 * what: every a*b+c of the base expression fused with an explicit fmaf (x + a*x3, 1 + k3a*x2, 1 - t*t, left + right*dinner)
 */
/* The fused choice at each of the four a*b+c the model names:
 * fmaf(a, x3, x), fmaf(k3a, x2, 1), fmaf(-t, t, 1) and
 * fmaf(right, dinner, left); everything else as the base kernel. */
#include "tp_hip.h"
__global__ void gelu_bwd_fmaf(const __half *x, const __half *g, __half *gi, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float xf = __half2float(x[i]), gf = __half2float(g[i]);
    const float c = 0.7978845608f, a = 0.044715f, k3a = 0.134145f;
    const float x2 = xf * xf;
    const float x3 = x2 * xf;
    const float t = tanhf(c * fmaf(a, x3, xf));
    const float dinner = c * fmaf(k3a, x2, 1.0f);
    const float left = 0.5f * (1.0f + t);
    const float right = 0.5f * xf * fmaf(-t, t, 1.0f);
    const float f = fmaf(right, dinner, left);
    gi[i] = __float2half(gf * f);
}
