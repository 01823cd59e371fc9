/* variant: gelu_fwd_no_fma
 * contract: gelu_fwd
 * expect: correct
 * entry: gelu_fwd_no_fma
 * cases: all_f16 wide_65536 ragged_1000 special near_zero
 * model: fma=no
 * what: every fp32 operation written as __fmul_rn/__fadd_rn, so x + a*x3 is never contracted; declares fma=no
 */
/* The base kernel's expression with contraction ruled out: __fmul_rn and
 * __fadd_rn are never fused into an fmaf, so x + a*x3 rounds the product
 * first. The contract admits fused or not; fma = "no" narrows the model
 * to this kernel's one path. */
#include "tp_hip.h"
__global__ void gelu_fwd_no_fma(const __half *x, __half *y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float xf = __half2float(x[i]);
    const float c = 0.7978845608f, a = 0.044715f;
    const float x2 = __fmul_rn(xf, xf);
    const float x3 = __fmul_rn(x2, xf);
    const float inner = __fmul_rn(c, __fadd_rn(xf, __fmul_rn(a, x3)));
    const float t = tanhf(inner);
    y[i] = __float2half(__fmul_rn(__fmul_rn(0.5f, xf), __fadd_rn(1.0f, t)));
}
