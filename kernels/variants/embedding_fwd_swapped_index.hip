/* variant: embedding_fwd_swapped_index
 * contract: embedding_fwd
 * expect: wrong
 * entry: embedding_fwd_swapped_index
 * cases: special_512x256 tiny_37x1
 * what: W read as if stored D x V: W[d*V + idx] instead of W[idx*D + d] (in bounds for in-range idx; same as right when D = 1)
 */
/* The base kernel with the table's indices swapped: W[d * V + row], as if
 * W were stored transposed (D x V). For 0 <= row < V and d < D the offset
 * stays below V*D, so nothing is read out of bounds; with D = 1 it is the
 * right element, so tiny_37x1 cannot tell. */
#include "tp_hip.h"

__global__ void embedding_fwd_swapped_index(const int *idx, const __half *W, __half *out, int n, int V, int D)
{
    const int i = blockIdx.x;
    const int d = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= n || d >= D)
        return;
    const int row = __ldg(idx + i);
    if (row < 0 || row >= V)
        return;
    out[(size_t)i * D + d] = __ldg(W + (size_t)d * V + row);
}
