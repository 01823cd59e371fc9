/* variant: gelu_bwd_no_fma
 * contract: gelu_bwd
 * expect: correct
 * entry: gelu_bwd_no_fma
 * cases: all_f16 near_zero_of_derivative ragged_1000 special
 * what: every fp32 operation written as __fmul_rn/__fadd_rn/__fsub_rn, so no a*b+c is ever contracted
 */
/* The base kernel's expression, statement by statement, with contraction
 * ruled out: each product is rounded before it is added. The model admits
 * every a*b+c fused or not, so this is one of its paths. */
#include "tp_hip.h"
__global__ void gelu_bwd_no_fma(const __half *x, const __half *g, __half *gi, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float xf = __half2float(x[i]), gf = __half2float(g[i]);
    const float c = 0.7978845608f, a = 0.044715f, k3a = 0.134145f;
    const float x2 = __fmul_rn(xf, xf);
    const float x3 = __fmul_rn(x2, xf);
    const float inner = __fmul_rn(c, __fadd_rn(xf, __fmul_rn(a, x3)));
    const float t = tanhf(inner);
    const float dinner = __fmul_rn(c, __fadd_rn(1.0f, __fmul_rn(k3a, x2)));
    const float left = __fmul_rn(0.5f, __fadd_rn(1.0f, t));
    const float right = __fmul_rn(__fmul_rn(0.5f, xf), __fsub_rn(1.0f, __fmul_rn(t, t)));
    const float f = __fadd_rn(left, __fmul_rn(right, dinner));
    gi[i] = __float2half(__fmul_rn(gf, f));
}
