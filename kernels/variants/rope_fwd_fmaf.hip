/* variant: rope_fwd_fmaf
 * contract: rope_fwd
 * expect: correct
 * entry: rope_fwd_fmaf
 * cases: long_context_64x8x128 quarter_turns_256x4x64 wide_x_128x8x128 special_64x4x64 position_zero_64x8x128
 * what: each rotated value an explicit fmaf, fusing a different product in each half
 */
/* fmaf(x1, c, -x2 s) fuses the cosine product of the first half and
 * fmaf(x1, s, x2 c) the sine product of the second: the contract's
 * fma = "any" admits either product fused. */
#include "tp_hip.h"

__global__ void rope_fwd_fmaf(const __half *x, const int *pos, const float *inv_freq, __half *y, int tokens, int heads,
                              int d)
{
    const int half = d / 2;
    const int pairs = tokens * heads * half, p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs)
        return;
    const int i = p % half, row = p / half;
    const float angle = (float)pos[row / heads] * inv_freq[i];
    float s, c;
    sincosf(angle, &s, &c);
    const int at = row * d + i;
    const float x1 = __half2float(x[at]), x2 = __half2float(x[at + half]);
    const float m1 = -x2 * s, m2 = x2 * c;
    y[at] = __float2half(fmaf(x1, c, m1));
    y[at + half] = __float2half(fmaf(x1, s, m2));
}
