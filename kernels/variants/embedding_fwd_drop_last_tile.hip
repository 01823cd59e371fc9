/* variant: embedding_fwd_drop_last_tile
 * contract: embedding_fwd
 * expect: wrong
 * entry: embedding_fwd_drop_last_tile
 * cases: special_512x256 tiny_37x1
 * what: assumes the last column of blocks is always idle (true only when 256 divides D): the tail columns are never copied
 */
/* The base kernel assuming the pilot's grid always has an idle last column
 * of blocks, as it has when 256 divides D: the last column returns at
 * once, so for other D the columns from 256 * (gridDim.y - 1) on are never
 * copied (D = 1: nothing is). */
#include "tp_hip.h"

__global__ void embedding_fwd_drop_last_tile(const int *idx, const __half *W, __half *out, int n, int V, int D)
{
    const int i = blockIdx.x;
    const int d = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= n || d >= D || blockIdx.y == gridDim.y - 1)
        return;
    const int row = __ldg(idx + i);
    if (row < 0 || row >= V)
        return;
    out[(size_t)i * D + d] = __ldg(W + (size_t)row * D + d);
}
