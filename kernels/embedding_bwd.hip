/* Embedding backward (KERNELS.md row 4): gW[v, :] += gout[i, :] for every
 * query i with idx[i] = v, into a gW the caller has zeroed.
 *
 * Launch: the forward kernel's 2-D grid (n, D/256 + 1) of 256 threads;
 * block (i, c) thread t adds gout[i, c*256 + t] into gW[idx[i], c*256 + t].
 *
 * Precision path (what contracts/embedding_bwd.toml models): every add is a
 * compare-and-swap loop on the 16-bit word of gW (tp_atomic_cas_u16: HIP
 * 5.2 has no 16-bit atomicCAS): read the current fp16 value, widen it to
 * fp32, add the fp16 gradient in fp32 (one rounding to binary32), round to
 * fp16 (__float2half, nearest even) and try to swap it in. So the partial
 * sum is rounded to fp16 at EVERY step, and the order in which the queries
 * that share a row reach it is whatever the hardware schedules. The pilot's
 * comment claimed bit-for-bit agreement with an oracle that accumulates in
 * fp32 and rounds once (contracts/embedding_bwd_pilot.toml states that
 * claim as a contract of the same source).
 *
 * No bounds check on idx: an index outside [0, V) would write outside gW,
 * so both contracts declare values = [0, V) and such a case is refused
 * before launch. */
#include "tp_hip.h"

__global__ void embedding_bwd(const int *idx, const __half *gout, __half *gW, int n, int V, int D)
{
    const int i = blockIdx.x;
    const int d = blockIdx.y * blockDim.x + threadIdx.x;
    if (i >= n || d >= D)
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
