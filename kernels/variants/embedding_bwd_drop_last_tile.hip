/* variant: embedding_bwd_drop_last_tile
 * contract: embedding_bwd
 * expect: wrong
 * entry: embedding_bwd_drop_last_tile
 * cases: all_same_2048x256 all_same_positive_1024x256 wide_4096x128 special_1024x256 ragged_999x300 refused_out_of_range
 * what: assumes the last column of blocks is always idle (true only when 256 divides D): nothing is added when D < 256, columns 256..299 are lost when D = 300
 */
/* The base kernel assuming the pilot's grid always has an idle last column
 * of blocks, as it has when 256 divides D: for D < 256 no gradient is
 * added at all, for D = 300 the columns 256..299 of gW never receive
 * theirs. */
#include "tp_hip.h"

__global__ void embedding_bwd_drop_last_tile(const int *idx, const __half *gout, __half *gW, int n, int V, int D)
{
    const int i = blockIdx.x;
    const int d = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= n || d >= D || blockIdx.y == gridDim.y - 1)
        return;
    const int row = __ldg(idx + i);
    const float g = __half2float(__ldg(gout + (size_t)i * D + d));
    unsigned short *slot = (unsigned short *)(gW + (size_t)row * D + d);
    unsigned short old = *(volatile unsigned short *)slot, assumed;
    do {
        assumed = old;
        const float sum = __half2float(__ushort_as_half(assumed)) + g;
        old = tp_atomic_cas_u16(slot, assumed, __half_as_ushort(__float2half(sum)));
    } while (old != assumed);
    (void)V;
}
