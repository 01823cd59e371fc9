/* variant: embedding_fwd_half2
 * contract: embedding_fwd
 * expect: correct
 * entry: embedding_fwd_half2
 * cases: special_512x256 tiny_37x1
 * what: copies two elements per thread as one 32-bit __half2 load/store when D is even (scalar when odd): still bit-exact
 */
/* The base kernel with vectorised copies: when D is even every row starts
 * on a 4-byte boundary, so thread p of column block y moves the pair
 * (2q, 2q+1), q = y*blockDim.x + p, as one __half2 (a 32-bit move of two
 * bit patterns: exact). The contract's grid covers at least D pairs, so the
 * surplus threads return. Odd D falls back to one element per thread. */
#include "tp_hip.h"

__global__ void embedding_fwd_half2(const int *idx, const __half *W, __half *out, int n, int V, int D)
{
    const int i = blockIdx.x;
    const int q = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int row = __ldg(idx + i);
    if (row < 0 || row >= V)
        return;
    if (D % 2 == 0) {
        const int d = 2 * q;
        if (d >= D)
            return;
        const __half2 *src = (const __half2 *)(W + (size_t)row * D + d);
        __half2 *dst = (__half2 *)(out + (size_t)i * D + d);
        *dst = __ldg(src);
    } else {
        if (q >= D)
            return;
        out[(size_t)i * D + q] = __ldg(W + (size_t)row * D + q);
    }
}
