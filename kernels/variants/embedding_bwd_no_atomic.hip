/* variant: embedding_bwd_no_atomic
 * contract: embedding_bwd
 * expect: wrong
 * entry: embedding_bwd_no_atomic
 * cases: all_same_2048x256 all_same_positive_1024x256 wide_4096x128 special_1024x256 ragged_999x300 refused_out_of_range
 * what: plain read-modify-write of gW (no CAS loop): concurrent adds into one row lose updates
 */
/* The base kernel with the CAS loop replaced by a plain load, add and
 * store: blocks whose queries share a row read the same old value and the
 * last store wins, so updates are lost wherever indices repeat (a real
 * race; with 1024 queries on one row nearly all run at once). */
#include "tp_hip.h"

__global__ void embedding_bwd_no_atomic(const int *idx, const __half *gout, __half *gW, int n, int V, int D)
{
    const int i = blockIdx.x;
    const int d = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= n || d >= D)
        return;
    const int row = __ldg(idx + i);
    const float g = __half2float(__ldg(gout + (size_t)i * D + d));
    __half *slot = gW + (size_t)row * D + d;
    *slot = __float2half(__half2float(*slot) + g);
    (void)V;
}
