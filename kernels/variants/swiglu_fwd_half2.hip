/* variant: swiglu_fwd_half2
 * contract: swiglu_fwd
 * expect: correct
 * entry: swiglu_fwd_half2
 * cases: normal_1024x4096 ragged_77x1000 wide_256x1024 negative_gate_256x256 all_f16_gate_62x1024 special_64x64
 * what: two elements a thread through half2 loads and stores, a grid-stride loop over pairs, the odd last element alone
 */
/* Another thread mapping with the base's arithmetic per element: the
 * values are the same bit for bit, the memory access pattern is not. The
 * launch is the base's (one thread per element), so half the threads find
 * no pair and the stride covers the rest. */
#include "tp_hip.h"
__device__ static float silu_times(float av, float bv) { return av / (1.0f + expf(-av)) * bv; }

__global__ void swiglu_fwd_half2(const __half *a, const __half *b, __half *y, int rows, int cols)
{
    const int n = rows * cols, pairs = n / 2;
    const __half2 *a2 = (const __half2 *)a, *b2 = (const __half2 *)b;
    __half2 *y2 = (__half2 *)y;
    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < pairs; p += gridDim.x * blockDim.x) {
        const float2 av = __half22float2(a2[p]), bv = __half22float2(b2[p]);
        y2[p] = __floats2half2_rn(silu_times(av.x, bv.x), silu_times(av.y, bv.y));
    }
    if (n % 2 && blockIdx.x == 0 && threadIdx.x == 0)
        y[n - 1] = __float2half(silu_times(__half2float(a[n - 1]), __half2float(b[n - 1])));
}
