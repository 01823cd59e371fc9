/* variant: attention_fwd_stale_max
 * contract: attention_fwd
 * expect: wrong
 * entry: attention_fwd_stale_max
 * cases: normal_d128_2x4x256x128 large_logits_1x4x256x128 cancelling_v_1x4x256x64 ragged_1x2x100x64
 * what: p = expf(s - m_old): the probabilities use the running maximum before this tile's update
 */
/* Once the maximum rises, the tile's probabilities are scaled by
 * exp(m_new - m_old) too much (up to overflow), against the rescaled sums. */
#include "tp_hip.h"

#define BM 16
#define BN 64
#define DMAX 128
#define THREADS 128
#define WARPS_MAX (THREADS / 32)
#define ROWS_MAX (BM / 2)        /* rows a warp owns: 4 with 32 lanes, 8 with 64 */
#define KEYS_MAX (BN / 32)       /* keys a lane scores per tile */
#define COLS_MAX (DMAX / 32)     /* output columns a lane owns */

template <bool CAUSAL>
__device__ static void attention_body(const __half *Q, const __half *K, const __half *V, __half *O, float *lse,
                                      int L, int S, int d)
{
    __shared__ __half Ks[BN][DMAX + 2];
    __shared__ __half Vs[BN][DMAX];
    __shared__ float Qs[BM][DMAX];
    __shared__ __half Ps[WARPS_MAX][BN];
    const int bh = blockIdx.y, q0 = blockIdx.x * BM;
    const int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
    const int rows = BM / (THREADS / warpSize), keys = BN / warpSize, cols = d / warpSize;
    const size_t qoff = (size_t)bh * L * d, koff = (size_t)bh * S * d;
    const float scale = 1.0f / sqrtf((float)d);
    for (int e = threadIdx.x; e < BM * d; e += blockDim.x) {
        const int r = e / d, c = e % d;
        Qs[r][c] = q0 + r < L ? __half2float(Q[qoff + (size_t)(q0 + r) * d + c]) : 0.0f;
    }
    float m[ROWS_MAX], l[ROWS_MAX], acc[ROWS_MAX][COLS_MAX];
    for (int r = 0; r < ROWS_MAX; r++) {
        m[r] = -INFINITY, l[r] = 0.0f;
        for (int c = 0; c < COLS_MAX; c++)
            acc[r][c] = 0.0f;
    }
    const int end = CAUSAL ? min(S, q0 + BM) : S; /* keys any row of this block sees */
    for (int k0 = 0; k0 < end; k0 += BN) {
        __syncthreads();
        for (int e = threadIdx.x; e < BN * d; e += blockDim.x) {
            const int j = e / d, c = e % d;
            const bool in = k0 + j < S;
            Ks[j][c] = in ? K[koff + (size_t)(k0 + j) * d + c] : __float2half(0.0f);
            Vs[j][c] = in ? V[koff + (size_t)(k0 + j) * d + c] : __float2half(0.0f);
        }
        __syncthreads();
        for (int r = 0; r < rows; r++) {
            const int row = warp * rows + r, qi = q0 + row;
            if (qi >= L)
                continue; /* the same for the whole warp */
            float s[KEYS_MAX];
            float mt = -INFINITY;
            for (int t = 0; t < keys; t++) {
                const int j = lane + t * warpSize, key = k0 + j;
                float dot = 0.0f;
                for (int c = 0; c < d; c++)
                    dot = fmaf(Qs[row][c], __half2float(Ks[j][c]), dot);
                const bool visible = key < S && (!CAUSAL || key <= qi);
                s[t] = visible ? dot * scale : -INFINITY;
                mt = fmaxf(mt, s[t]);
            }
            for (int off = warpSize / 2; off > 0; off /= 2)
                mt = fmaxf(mt, __shfl_xor(mt, off));
            const float m_new = fmaxf(m[r], mt);
            float ps = 0.0f;
            for (int t = 0; t < keys; t++) {
                const float p = expf(s[t] - (m[r] == -INFINITY ? m_new : m[r]));
                ps += p;
                Ps[warp][lane + t * warpSize] = __float2half(p);
            }
            for (int off = warpSize / 2; off > 0; off /= 2)
                ps += __shfl_xor(ps, off);
            const float alpha = expf(m[r] - m_new);
            l[r] = alpha * l[r] + ps;
            m[r] = m_new;
            tp_syncwarp();
            for (int c = 0; c < cols; c++) {
                const int col = lane + c * warpSize;
                float a = alpha * acc[r][c];
                for (int j = 0; j < BN; j++)
                    a = fmaf(__half2float(Ps[warp][j]), __half2float(Vs[j][col]), a);
                acc[r][c] = a;
            }
            tp_syncwarp();
        }
    }
    for (int r = 0; r < rows; r++) {
        const int qi = q0 + warp * rows + r;
        if (qi >= L)
            continue;
        for (int c = 0; c < cols; c++)
            O[qoff + (size_t)qi * d + lane + c * warpSize] = __float2half(acc[r][c] / l[r]);
        if (lane == 0)
            lse[(size_t)bh * L + qi] = m[r] + logf(l[r]);
    }
}

__global__ void attention_fwd_stale_max(const __half *Q, const __half *K, const __half *V, __half *O, float *lse, int L, int S,
                              int d)
{
    attention_body<false>(Q, K, V, O, lse, L, S, d);
}
