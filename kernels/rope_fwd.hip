/* Rotary position embedding, forward (the half-split "rotate_half" form of
 * Llama and GPT-NeoX): per token t, head h and pair i < d/2 of a head of
 * x [tokens, heads, d],
 *   a   = pos[t] * inv_freq[i]
 *   y_i       = x_i cos(a) - x_{i+d/2} sin(a)
 *   y_{i+d/2} = x_{i+d/2} cos(a) + x_i sin(a)
 * pos is each token's position (int32), inv_freq the rotation frequencies
 * the model computed on the host in fp32 (base^(-2i/d)).
 *
 * Launch: one thread per pair, 256 threads a block, a 1-D grid over
 * tokens * heads * d/2 (tokens * heads * d below 2^31).
 *
 * Precision path (what contracts/rope_fwd.toml models): the position
 * converted to fp32 (exact below 2^24), one fp32 product for the angle,
 * sincosf on it (each of sine and cosine within the vendor's documented
 * ulps of the correctly rounded value), then each output an fp32 sum of
 * two products, which nvcc may contract to an fma either way; one
 * rounding to fp16 (__float2half). */
#include "tp_hip.h"

__global__ void rope_fwd(const __half *x, const int *pos, const float *inv_freq, __half *y, int tokens, int heads,
                         int d)
{
    const int half = d / 2;
    const int pairs = tokens * heads * half, p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs)
        return;
    const int i = p % half, row = p / half, t = row / heads;
    const float angle = (float)pos[t] * inv_freq[i];
    float s, c;
    sincosf(angle, &s, &c);
    const int at = row * d + i;
    const float x1 = __half2float(x[at]), x2 = __half2float(x[at + half]);
    y[at] = __float2half(x1 * c - x2 * s);
    y[at + half] = __float2half(x2 * c + x1 * s);
}
