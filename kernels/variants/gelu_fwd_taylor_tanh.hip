/* variant: gelu_fwd_taylor_tanh
 * contract: gelu_fwd
 * expect: wrong
 * entry: gelu_fwd_taylor_tanh
 * cases: normal_65536 ragged_1000
 * what: tanh(z) replaced by its 3-term Taylor series z - z^3/3 + 2z^5/15: fine near 0, wrong from |z| ~ 0.5 on
 */
/* A cheap tanh that is accurate only near 0: the first omitted term is
 * 17 z^7 / 315, about 4e-4 at z = 0.5, and the series leaves [-1, 1] for
 * |z| > ~1.6. */
#include "tp_hip.h"
__global__ void gelu_fwd_taylor_tanh(const __half *x, __half *y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xf = __half2float(x[i]);
    const float c = 0.7978845608f, a = 0.044715f;
    float x2 = xf * xf;
    float x3 = x2 * xf;
    float z = c * (xf + a * x3);
    float z2 = z * z;
    float t = z * (1.0f - z2 * (1.0f / 3.0f - z2 * (2.0f / 15.0f)));
    y[i] = __float2half(0.5f * xf * (1.0f + t));
}
