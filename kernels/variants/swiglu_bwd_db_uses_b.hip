/* variant: swiglu_bwd_db_uses_b
 * contract: swiglu_bwd
 * expect: wrong
 * entry: swiglu_bwd_db_uses_b
 * cases: ragged_77x1000 negative_gate_256x256
 * what: db = dy b s: the up projection's gradient multiplied by b instead of a (a copy-paste slip)
 */
#include "tp_hip.h"
__global__ void swiglu_bwd_db_uses_b(const __half *a, const __half *b, const __half *dy, __half *da, __half *db,
                                     int rows, int cols)
{
    const int n = rows * cols, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float av = __half2float(a[i]), bv = __half2float(b[i]), g = __half2float(dy[i]);
        const float s = 1.0f / (1.0f + expf(-av));
        da[i] = __float2half(g * bv * s * (1.0f + av * (1.0f - s)));
        db[i] = __float2half(g * bv * s);
    }
}
