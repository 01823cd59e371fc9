/* SwiGLU forward (the gated MLP activation of Llama-style models): per
 * element of a, b [rows, cols],
 *   y = silu(a) * b = a / (1 + exp(-a)) * b.
 *
 * Launch: one thread per element, 256 threads a block, a 1-D grid over
 * rows * cols (below 2^31).
 *
 * Precision path (what contracts/swiglu_fwd.toml models): a and b widened
 * to fp32 exactly; expf, an fp32 addition, division and multiplication,
 * each rounded to nearest (nvcc's default -prec-div=true); one rounding to
 * fp16 (__float2half). No x*y + z pattern, so contraction changes nothing. */
#include "tp_hip.h"

__global__ void swiglu_fwd(const __half *a, const __half *b, __half *y, int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = __half2float(a[i]), bv = __half2float(b[i]);
        y[i] = __float2half(av / (1.0f + expf(-av)) * bv);
    }
}
