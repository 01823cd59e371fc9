/* Embedding forward (KERNELS.md row 3): out[i, :] = W[idx[i], :] for
 * 0 <= idx[i] < V; a row whose index lies outside [0, V) is left as it was.
 *
 * Launch: 2-D grid (n, D/256 + 1) of 256 threads; block (i, c) thread t
 * owns out[i, c*256 + t] (the pilot's grid: when D is a multiple of 256
 * the last column of blocks is idle).
 *
 * Precision path: none. Each element is moved as a 16-bit pattern through
 * the read-only data cache (__ldg on both backends), so the copy is
 * bit-exact, signed zeros and NaN payloads included; the index is checked
 * before any load, so an out-of-range index reads nothing and writes
 * nothing. */
#include "tp_hip.h"

__global__ void embedding_fwd(const int *idx, const __half *W, __half *out, int n, int V, int D)
{
    const int i = blockIdx.x;
    const int d = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= n || d >= D)
        return;
    const int row = __ldg(idx + i);
    if (row < 0 || row >= V)
        return;
    out[(size_t)i * D + d] = __ldg(W + (size_t)row * D + d);
}
