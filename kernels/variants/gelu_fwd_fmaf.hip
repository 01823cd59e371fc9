/* variant: gelu_fwd_fmaf
 * contract: gelu_fwd
 * expect: correct
 * entry: gelu_fwd_fmaf
 * cases: all_f16 wide_65536 ragged_1000 special near_zero
 * what: x + a*x3 always fused with an explicit fmaf, and 0.5x(1+t) computed as x*fmaf(0.5, t, 0.5)
 */
/* Two rewrites the model covers:
 *   - fmaf(a, x3, x) is the fused choice of fma = "any";
 *   - x * fmaf(0.5f, t, 0.5f) equals the base's (0.5f*x)*(1+t) bit for
 *     bit: 0.5t is exact, RN32(0.5 + 0.5t) = 0.5*RN32(1+t) (|1+t| is 0 or
 *     at least 2^-24, far from underflow), and x*(0.5r) = (0.5x)*r
 *     exactly before the one rounding of the product. */
#include "tp_hip.h"
__global__ void gelu_fwd_fmaf(const __half *x, __half *y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float xf = __half2float(x[i]);
    const float c = 0.7978845608f, a = 0.044715f;
    const float x2 = xf * xf;
    const float x3 = x2 * xf;
    const float t = tanhf(c * fmaf(a, x3, xf));
    y[i] = __float2half(xf * fmaf(0.5f, t, 0.5f));
}
