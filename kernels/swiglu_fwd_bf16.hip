/* SwiGLU forward in bfloat16 (docs/kernels.md#swiglu-forward-bfloat16): per
 * element of a, b [rows, cols],
 *   y = silu(a) * b = a / (1 + exp(-a)) * b,
 * as kernels/swiglu_fwd.hip, with bf16 in and out (the usual training
 * format of Llama-style MLPs).
 *
 * Launch: one thread per element, 256 threads a block, a 1-D grid over
 * rows * cols (below 2^31).
 *
 * Precision path (what contracts/swiglu_fwd_bf16.toml models): a and b
 * widened to fp32 exactly; expf, an fp32 addition, division and
 * multiplication, each rounded to nearest; one rounding to bf16, nearest
 * even (tp_float2bf16: __float2bfloat16 on CUDA). bf16 has fp32's exponent
 * range, so unlike fp16 a product can overflow fp32 itself. */
#include "tp_hip.h"

__global__ void swiglu_fwd_bf16(const tp_bf16 *a, const tp_bf16 *b, tp_bf16 *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = tp_bf162float(a[i]), bv = tp_bf162float(b[i]);
        y[i] = tp_float2bf16(av / (1.0f + expf(-av)) * bv);
    }
}
