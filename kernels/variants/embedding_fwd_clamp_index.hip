/* variant: embedding_fwd_clamp_index
 * contract: embedding_fwd
 * expect: wrong
 * entry: embedding_fwd_clamp_index
 * cases: special_512x256 tiny_37x1
 * what: an index outside [0, V) is clamped into it (row 0 or V-1 copied) instead of the row being left alone
 */
/* The base kernel clamping out-of-range indices instead of skipping them:
 * memory-safe, but a row the contract says must keep its initial content
 * receives W[0] or W[V-1]. */
#include "tp_hip.h"

__global__ void embedding_fwd_clamp_index(const int *idx, const __half *W, __half *out, int n, int V, int D)
{
    const int i = blockIdx.x;
    const int d = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= n || d >= D)
        return;
    const int row = min(max(__ldg(idx + i), 0), V - 1);
    out[(size_t)i * D + d] = __ldg(W + (size_t)row * D + d);
}
