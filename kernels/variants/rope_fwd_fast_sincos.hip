/* variant: rope_fwd_fast_sincos
 * contract: rope_fwd
 * expect: wrong
 * entry: rope_fwd_fast_sincos
 * cases: long_context_64x8x128 quarter_turns_256x4x64
 * what: __sincosf, the fast hardware approximation -use_fast_math substitutes, whose error is absolute and grows with the angle
 */
/* __sincosf reduces its argument with a short multiply: at thousands of
 * radians its result is off by far more than sincosf's 2 ulp, which is
 * what the contract declares. */
#include "tp_hip.h"

__global__ void rope_fwd_fast_sincos(const __half *x, const int *pos, const float *inv_freq, __half *y, int tokens,
                                     int heads, int d)
{
    const int half = d / 2;
    const int pairs = tokens * heads * half, p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs)
        return;
    const int i = p % half, row = p / half;
    const float angle = (float)pos[row / heads] * inv_freq[i];
    float s, c;
    __sincosf(angle, &s, &c);
    const int at = row * d + i;
    const float x1 = __half2float(x[at]), x2 = __half2float(x[at + half]);
    y[at] = __float2half(x1 * c - x2 * s);
    y[at + half] = __float2half(x2 * c + x1 * s);
}
