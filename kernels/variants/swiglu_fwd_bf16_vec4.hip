/* variant: swiglu_fwd_bf16_vec4
 * contract: swiglu_fwd_bf16
 * expect: correct
 * entry: swiglu_fwd_bf16_vec4
 * cases: normal_1024x4096 llama8b_16x14336 ragged_77x1000 wide_256x1024 negative_gate_256x256 all_bf16_gate_64x1020 special_64x64
 * what: four elements a thread, a grid-stride loop over groups of four, the tail (n mod 4) by thread 0 of block 0
 */
/* Another thread mapping with the base's arithmetic per element: the
 * values are the same bit for bit, the order of memory accesses is not.
 * The launch is the base's (one thread per element), so three quarters of
 * the threads find no group. */
#include "tp_hip.h"
__device__ static float silu_times(float av, float bv) { return av / (1.0f + expf(-av)) * bv; }

__global__ void swiglu_fwd_bf16_vec4(const tp_bf16 *a, const tp_bf16 *b, tp_bf16 *y, int rows, int cols)
{
    const int n = rows * cols, groups = n / 4;
    for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += gridDim.x * blockDim.x) {
        float av[4], bv[4];
        for (int k = 0; k < 4; k++) {
            av[k] = tp_bf162float(a[4 * g + k]);
            bv[k] = tp_bf162float(b[4 * g + k]);
        }
        for (int k = 0; k < 4; k++)
            y[4 * g + k] = tp_float2bf16(silu_times(av[k], bv[k]));
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (int i = 4 * groups; i < n; i++)
            y[i] = tp_float2bf16(silu_times(tp_bf162float(a[i]), tp_bf162float(b[i])));
}
