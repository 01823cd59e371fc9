/* GELU backward, tanh form (KERNELS.md row 7):
 *   gi = g * (0.5(1+t) + 0.5 x (1-t^2) c (1+3a x^2)),  t = tanh(c(x + a x^3))
 * with c = sqrt(2/pi) and a = 0.044715 as fp32 literals (k3a = 3a).
 *
 * Launch: 1-D grid of 256-thread blocks, one element per thread.
 *
 * Precision path (contracts/gelu_bwd.toml mirrors it op by op; do not
 * reorder): x and g widened exactly to fp32; every operation below in fp32
 * (the compiler may contract a*b+c into fmaf: the model allows it); tanhf
 * is the device library's (CUDA: 2 ulp over the full range); the product
 * gf*f is rounded once to fp16, to nearest even.
 */
#include "tp_hip.h" /* __half, fmaf/tanhf and the launch names on both backends */
__global__ void gelu_bwd(const __half *x, const __half *g, __half *gi, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xf = __half2float(x[i]), gf = __half2float(g[i]);
    const float c = 0.7978845608f, a = 0.044715f, k3a = 0.134145f;
    float x2 = xf * xf;
    float x3 = x2 * xf;
    float inner = c * (xf + a * x3);
    float t = tanhf(inner);
    float dinner = c * (1.0f + k3a * x2);
    float f = 0.5f * (1.0f + t) + 0.5f * xf * (1.0f - t * t) * dinner;
    gi[i] = __float2half(gf * f);
}
