/* variant: softmax_fwd_online
 * contract: softmax_fwd
 * expect: correct
 * entry: softmax_fwd_online
 * cases: wide_logits_64x1024 near_max_32x1024 dominant_64x512 special_64x256 single_column
 * what: online softmax: one pass keeps a running max and a running sum rescaled by expf(old - new max), pairs merged in the tree
 */
/* The row max and the row sum in one pass over x (the "online softmax"):
 * each thread keeps (m, s) with s = sum of exp(x - m) over its columns so
 * far; a new maximum rescales s by expf(m_old - m_new); the shared-memory
 * tree merges pairs the same way. The output pass is the base kernel's:
 * e = expf(x - max), rounded to binary16, times RN32(1/sum), rounded again.
 *
 * Only the row sum leaves the base's path: its terms carry extra expf and
 * product roundings (at most ceil(n/256) - 1 + 8 rescales each) besides
 * the additions. The contract's model bounds the fp32 sum by
 * n*2^-24*(1+2^-7)*sum|e| around the exps taken from the final max; the
 * rescaling adds a relative error of a few hundred 2^-24 at most, inside
 * that bound for every n >= 256 of the contract's cases, and n = 1 is
 * exact (a maximum's own term is 1, never expf(0)). */
#include "tp_hip.h"
#define SOFTMAX_THREADS 256

__global__ void softmax_fwd_online(const __half *x, __half *y, int rows, int n)
{
    __shared__ float red_m[SOFTMAX_THREADS], red_s[SOFTMAX_THREADS];
    const int r = blockIdx.x, t = threadIdx.x;
    if (r >= rows)
        return; /* whole block: no thread reaches a barrier below */
    const __half *xr = x + (size_t)r * n;
    __half *yr = y + (size_t)r * n;

    float m = -INFINITY, s = 0.0f;
    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float v = __half2float(xr[j]);
        if (v > m) {
            /* the first element has nothing to rescale: -inf - v is -inf,
             * but skip expf there rather than rely on expf(-inf) */
            s = (m == -INFINITY ? 0.0f : s * expf(m - v)) + 1.0f;
            m = v;
        } else {
            s += expf(v - m);
        }
    }
    red_m[t] = m;
    red_s[t] = s;
    __syncthreads();
    for (int w = SOFTMAX_THREADS / 2; w > 0; w /= 2) {
        if (t < w) {
            const float ma = red_m[t], mb = red_m[t + w], sa = red_s[t], sb = red_s[t + w];
            const float mm = fmaxf(ma, mb);
            /* a side already at the max keeps its sum as is; an empty side
             * (-inf, 0) contributes 0 without forming -inf - -inf */
            const float ta = ma == mm ? sa : (sa == 0.0f ? 0.0f : sa * expf(ma - mm));
            const float tb = mb == mm ? sb : (sb == 0.0f ? 0.0f : sb * expf(mb - mm));
            red_m[t] = mm;
            red_s[t] = ta + tb;
        }
        __syncthreads();
    }
    const float mx = red_m[0], inv = 1.0f / red_s[0];

    for (int j = t; j < n; j += SOFTMAX_THREADS) {
        const float e = expf(__half2float(xr[j]) - mx);
        yr[j] = __float2half(__half2float(__float2half(e)) * inv);
    }
}
