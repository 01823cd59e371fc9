/* variant: embedding_fwd_row_loop
 * contract: embedding_fwd
 * expect: correct
 * entry: embedding_fwd_row_loop
 * cases: special_512x256 tiny_37x1
 * what: the first column of blocks copies the whole row in a blockDim.x-strided loop; the other columns of blocks return
 */
/* The base kernel with another work split: block (i, 0) copies all of row
 * i, thread t taking d = t, t + blockDim.x, ...; blocks (i, y > 0) do
 * nothing. Same bit-exact copies, same skip of out-of-range indices. */
#include "tp_hip.h"

__global__ void embedding_fwd_row_loop(const int *idx, const __half *W, __half *out, int n, int V, int D)
{
    const int i = blockIdx.x;
    if (i >= n || blockIdx.y != 0)
        return;
    const int row = __ldg(idx + i);
    if (row < 0 || row >= V)
        return;
    for (int d = threadIdx.x; d < D; d += blockDim.x)
        out[(size_t)i * D + d] = __ldg(W + (size_t)row * D + d);
}
