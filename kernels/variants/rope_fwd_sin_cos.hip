/* variant: rope_fwd_sin_cos
 * contract: rope_fwd
 * expect: correct
 * entry: rope_fwd_sin_cos
 * cases: long_context_64x8x128 quarter_turns_256x4x64 wide_x_128x8x128 special_64x4x64 position_zero_64x8x128
 * what: sinf and cosf called apart instead of sincosf, in a grid-stride loop over pairs
 */
/* The contract bounds the sine and the cosine each on its own, within its
 * documented ulps, so whether one call computes both or two calls compute
 * one each, the outputs stay admitted. */
#include "tp_hip.h"

__global__ void rope_fwd_sin_cos(const __half *x, const int *pos, const float *inv_freq, __half *y, int tokens,
                                 int heads, int d)
{
    const int half = d / 2, pairs = tokens * heads * half;
    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < pairs; p += gridDim.x * blockDim.x) {
        const int i = p % half, row = p / half;
        const float angle = (float)pos[row / heads] * inv_freq[i];
        const float s = sinf(angle), c = cosf(angle);
        const int at = row * d + i;
        const float x1 = __half2float(x[at]), x2 = __half2float(x[at + half]);
        y[at] = __float2half(x1 * c - x2 * s);
        y[at + half] = __float2half(x2 * c + x1 * s);
    }
}
