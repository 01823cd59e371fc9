/* variant: rope_fwd_half_angle
 * contract: rope_fwd
 * expect: wrong
 * entry: rope_fwd_half_angle
 * cases: long_context_64x8x128 quarter_turns_256x4x64
 * what: the angle computed in half precision (position and frequency as __half), as a kernel templated on the activation type does
 */
/* At position 5000 a binary16 angle is a multiple of 4 radians: the
 * rotation is essentially random there. */
#include "tp_hip.h"

__global__ void rope_fwd_half_angle(const __half *x, const int *pos, const float *inv_freq, __half *y, int tokens,
                                    int heads, int d)
{
    const int half = d / 2;
    const int pairs = tokens * heads * half, p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs)
        return;
    const int i = p % half, row = p / half;
    const __half ph = __float2half((float)pos[row / heads]), fh = __float2half(inv_freq[i]);
    const float angle = __half2float(__float2half(__half2float(ph) * __half2float(fh)));
    float s, c;
    sincosf(angle, &s, &c);
    const int at = row * d + i;
    const float x1 = __half2float(x[at]), x2 = __half2float(x[at + half]);
    y[at] = __float2half(x1 * c - x2 * s);
    y[at + half] = __float2half(x2 * c + x1 * s);
}
