/* GELU forward, tanh form (KERNELS.md row 12):
 *   y = 0.5 x (1 + tanh(c (x + a x^3)))
 * with c = sqrt(2/pi) and a = 0.044715 as fp32 literals.
 *
 * Launch: 1-D grid of 256-thread blocks, one element per thread.
 *
 * Precision path (contracts/gelu_fwd.toml mirrors it op by op; do not
 * reorder): x widened exactly to fp32; every operation below in fp32 (the
 * compiler may contract x + a*x3 into fmaf: the model allows it); tanhf is
 * the device library's (CUDA: 2 ulp over the full range); 0.5f*xf is
 * exact; y is rounded once to fp16, to nearest even.
 */
#include "tp_hip.h" /* __half, tanhf and the launch names on both backends */
__global__ void gelu_fwd(const __half *x, __half *y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xf = __half2float(x[i]);
    const float c = 0.7978845608f, a = 0.044715f;
    float x2 = xf * xf;
    float x3 = x2 * xf;
    float inner = c * (xf + a * x3);
    float t = tanhf(inner);
    y[i] = __float2half(0.5f * xf * (1.0f + t));
}
