/* variant: gemm_bwd_a_warp_shuffle
 * contract: gemm_bwd_a
 * expect: correct
 * entry: gemm_bwd_a_warp_shuffle
 * cases: ragged_n_128x250x64 cancel_128x512x64 wide_256 special_64x32x64 refused_m100
 * what: one warp per output element at a time: lanes take n strided by warpSize with fmaf chains, then a __shfl_down tree adds the lane sums
 */
/* A different summation tree: warpSize interleaved chains over n and a
 * log2(warpSize)-level tree, which the model's order = "any" admits. The
 * block still owns the 16x16 tile gA[m0.., k0..] of the contract's launch
 * shape; its warps take the 256 elements of the tile in turn. Operands are
 * read straight from global memory (no tiles, so no padding to skip): lanes
 * past N add nothing. Written against warpSize, so 64-lane wavefronts sum
 * 64 chains. As the base kernel, M and K must be multiples of 16. */
#include "tp_hip.h"
#define GEMM_TILE 16

__global__ void gemm_bwd_a_warp_shuffle(const __half *gC, const __half *B, __half *gA, int M, int N, int K)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int lane = tid % warpSize, warp = tid / warpSize;
    const int nwarps = (blockDim.x * blockDim.y) / warpSize;
    const int m0 = blockIdx.x * GEMM_TILE, k0 = blockIdx.y * GEMM_TILE;
    (void)M;
    for (int o = warp; o < GEMM_TILE * GEMM_TILE; o += nwarps) {
        const int m = m0 + o / GEMM_TILE, k = k0 + o % GEMM_TILE;
        float acc = 0.0f;
        for (int n = lane; n < N; n += warpSize)
            acc = fmaf(__half2float(gC[(size_t)m * N + n]), __half2float(B[(size_t)k * N + n]), acc);
        for (int d = warpSize / 2; d > 0; d /= 2)
            acc += __shfl_down(acc, d);
        if (lane == 0)
            gA[(size_t)m * K + k] = __float2half(acc);
    }
}
