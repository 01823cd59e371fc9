/* variant: swiglu_bwd_grid_stride
 * contract: swiglu_bwd
 * expect: correct
 * entry: swiglu_bwd_grid_stride
 * cases: normal_1024x4096 ragged_77x1000 wide_256x1024 negative_gate_256x256 all_f16_gate_62x1024 special_64x64
 * what: a grid-stride loop, and s = 1 / (1 + expf(-a)) recomputed at each of its three uses
 */
/* Another loop shape (with the base's launch, each thread still finds one
 * element), and s evaluated at each use: the model bounds each use of s on
 * its own, which covers this. */
#include "tp_hip.h"
__device__ static float sig(float av) { return 1.0f / (1.0f + expf(-av)); }

__global__ void swiglu_bwd_grid_stride(const __half *a, const __half *b, const __half *dy, __half *da, __half *db,
                                       int rows, int cols)
{
    const int n = rows * cols, stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float av = __half2float(a[i]), bv = __half2float(b[i]), g = __half2float(dy[i]);
        da[i] = __float2half(g * bv * sig(av) * (1.0f + av * (1.0f - sig(av))));
        db[i] = __float2half(g * av * sig(av));
    }
}
