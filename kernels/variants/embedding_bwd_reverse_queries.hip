/* variant: embedding_bwd_reverse_queries
 * contract: embedding_bwd
 * expect: correct
 * entry: embedding_bwd_reverse_queries
 * cases: zipf_4096x256 all_same_2048x256 all_same_positive_1024x256 wide_4096x128 special_1024x256 ragged_999x300 refused_out_of_range
 * what: block x takes query n-1-x: the queries reach each row in another order (the CAS loop per add unchanged)
 */
/* The base kernel with the queries mapped in reverse (block x takes query
 * n - 1 - x), so the adds into a shared row are issued in another order.
 * Every add is still the CAS loop's RN16(RN32(a + g)); the contract's
 * order = "any" admits every order. */
#include "tp_hip.h"

__global__ void embedding_bwd_reverse_queries(const int *idx, const __half *gout, __half *gW, int n, int V, int D)
{
    const int i = n - 1 - (int)blockIdx.x;
    const int d = blockIdx.y * blockDim.x + threadIdx.x;
    if (i < 0 || d >= D)
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
