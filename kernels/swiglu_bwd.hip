/* SwiGLU backward: per element of a, b, dy [rows, cols], with
 * s = sigmoid(a) = 1 / (1 + exp(-a)) and y = a s b,
 *   da = dy * b * s * (1 + a (1 - s)),   db = dy * a * s.
 *
 * Launch: one thread per element, 256 threads a block, a 1-D grid over
 * rows * cols (below 2^31).
 *
 * Precision path (what contracts/swiglu_bwd.toml models): inputs widened
 * to fp32 exactly; s = RN32(1 / RN32(1 + expf(-a))) computed once and used
 * in both outputs; 1 + a*(1 - s) may be contracted into an fmaf; every
 * other operation rounded to nearest in the order written; one rounding
 * of each output to fp16. */
#include "tp_hip.h"

__global__ void swiglu_bwd(const __half *a, const __half *b, const __half *dy, __half *da, __half *db, int rows,
                           int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = __half2float(a[i]), bv = __half2float(b[i]), g = __half2float(dy[i]);
        const float s = 1.0f / (1.0f + expf(-av));
        da[i] = __float2half(g * bv * s * (1.0f + av * (1.0f - s)));
        db[i] = __float2half(g * av * s);
    }
}
