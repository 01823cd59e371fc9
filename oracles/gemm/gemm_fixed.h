/* Exact sums of binary16 products in 128-bit fixed point: the arithmetic
 * of the GPU exact reference (oracles/gemm/gemm_exact_cuda.cu), written
 * once for the device and the host, so that the host unit test
 * (tests/test_gemm_fixed.c) runs the very code the GPU runs.
 *
 * An algorithm of its own, sharing nothing with the CPU path
 * (oracles/gemm/proven/gemm.c splits double products) nor with any kernel
 * under audit (fp32 accumulation): integers only.
 *
 * Why it is exact:
 *  - a binary16 value v (widened to float, exactly) is m * 2^(e - 24) with
 *    m an integer, |m| < 2^11, and 0 <= e <= 29 (subnormals: e = 0; the
 *    largest value 65504 = 2047 * 2^5: e = 29).
 *  - a product of two is pm * 2^(s - 48) with pm = ma*mb, |pm| < 2^22, and
 *    s = ea + eb in [0, 58]: in units of 2^-48 it is the integer pm * 2^s,
 *    |pm * 2^s| < 2^80.
 *  - K <= 2^16 such integers sum to less than 2^96 in magnitude: a signed
 *    128-bit two's complement integer (two 64-bit limbs, carry by hand)
 *    holds every partial sum exactly, in any order.
 *  - the sum S (a multiple of 2^-48, |S| < 2^48) leaves as the normalized
 *    double-double hi = RN(S) (round to nearest, ties to even), lo = S - hi.
 *    lo is exact: when S has at most 53 significant bits, hi = S, lo = 0;
 *    otherwise ulp(hi) = 2^(n - 53 - 48) for the bit length n <= 96 of
 *    |S| / 2^-48, |lo| <= ulp(hi) / 2 and lo is a multiple of 2^-48, so
 *    |lo| / 2^-48 <= 2^(n - 54) <= 2^42 < 2^53: a double holds it.
 *    The pair is unique, so any exact method that normalizes gives the
 *    same two doubles (oracles/gemm/gemm_exact_provider.c normalizes the
 *    CPU path's pair to compare).
 *  - the sum of magnitudes A = sum |a b| (what the admitted interval's
 *    bound takes) goes the same way in a second accumulator, in the same
 *    pass: its terms |pm| * 2^s are integers below 2^80 too, so A < 2^96
 *    is exact, and it leaves as its own normalized double-double. */
#ifndef TP_GEMM_FIXED_H
#define TP_GEMM_FIXED_H

#include <stdint.h>
#include <string.h>

#include <math.h>
#ifdef __CUDACC__
#define TP_FX static __host__ __device__ __forceinline__
#else
#define TP_FX static inline
#endif

/* The largest K the 128-bit accumulator and the double-double conversion
 * are argued for above. */
#define TP_FX_K_MAX 65536

/* value = hi * 2^64 + lo, two's complement, in units of 2^-48 */
typedef struct {
    uint64_t lo;
    int64_t hi;
} tp_fx128;

TP_FX uint32_t tp_fx_float_bits(float x)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

/* A binary16 value widened to float, as m * 2^(e - 24) packed into one
 * int32: m * 256 + e (e in the low byte, m in the rest, arithmetic shift
 * back). Zero packs to 0. Only values of binary16 are meaningful here: a
 * float with more significant bits is not one (its low bits are dropped,
 * which the cross-check against the CPU path would show). */
TP_FX int32_t tp_fx_pack(float x)
{
    uint32_t u = tp_fx_float_bits(x);
    int E = (int)((u >> 23) & 0xff);
    if (E == 0) /* zero (binary16 values are never float subnormals) */
        return 0;
    int32_t m = (int32_t)(((u & 0x7fffffu) | 0x800000u) >> 13); /* 11 bits */
    int e = E - 113;                                           /* value = m * 2^(E - 127 - 10) */
    if (e < 0) {                                               /* a binary16 subnormal: a multiple of 2^-24 */
        m >>= -e;
        e = 0;
    }
    return (int32_t)((u >> 31) ? -m : m) * 256 + e;
}

TP_FX int32_t tp_fx_mant(int32_t packed) { return packed >> 8; }
TP_FX int tp_fx_exp(int32_t packed) { return packed & 0xff; }

/* acc += pm * 2^s (units of 2^-48), |pm| < 2^22, 0 <= s <= 58. The high
 * limb of the sign-extended pm * 2^s is floor(pm / 2^(64 - s)): a 32-bit
 * arithmetic shift, by 31 at most (|pm| < 2^31, so any shift from 31 up
 * gives the sign alone), which the GPU does in one instruction. */
TP_FX void tp_fx_add(tp_fx128 *acc, int32_t pm, int s)
{
    int64_t p = pm;
    uint64_t lo = (uint64_t)p << s;
    int down = 64 - s < 31 ? 64 - s : 31;
    int64_t hi = (int64_t)(pm >> down);
    uint64_t sum = acc->lo + lo;
    acc->hi += hi + (int64_t)(sum < lo);
    acc->lo = sum;
}

/* One multiply-accumulate of two binary16 values, given unpacked (mant,
 * exp of tp_fx_pack): the product into the exact sum acc and its
 * magnitude into the exact sum of magnitudes aacc. */
TP_FX void tp_fx_mac(tp_fx128 *acc, tp_fx128 *aacc, int32_t ma, int ea, int32_t mb, int eb)
{
    int32_t pm = ma * mb;
    int s = ea + eb;
    tp_fx_add(acc, pm, s);
    tp_fx_add(aacc, pm < 0 ? -pm : pm, s);
}

TP_FX int tp_fx_clz64(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return __clzll((long long)x);
#else
    return x ? __builtin_clzll(x) : 64;
#endif
}

/* The normalized double-double of S = acc * 2^-48: hi = RN(S) (ties to
 * even), lo = S - hi, both exact while |S| / 2^-48 has at most 107 bits
 * (|lo| / 2^-48 <= 2^53; K <= TP_FX_K_MAX keeps it within 96). Returns -1
 * beyond that range. */
TP_FX int tp_fx_to_dd(tp_fx128 acc, double *hi, double *lo)
{
    int neg = acc.hi < 0;
    uint64_t xl = acc.lo, xh = (uint64_t)acc.hi;
    if (neg) { /* two's complement negation of the 128-bit value */
        xl = ~xl + 1;
        xh = ~xh + (xl == 0);
    }
    int n = xh ? 128 - tp_fx_clz64(xh) : 64 - tp_fx_clz64(xl);
    if (n > 107)
        return -1;
    double h, l;
    if (n <= 53) { /* exact as it is */
        h = ldexp((double)xl, -48);
        l = 0.0;
    } else {
        int sh = n - 53; /* 1 .. 54 */
        uint64_t q = (xh << (64 - sh)) | (xl >> sh), r = xl & ((UINT64_C(1) << sh) - 1),
                 half = UINT64_C(1) << (sh - 1);
        int64_t rest = (int64_t)r; /* r < 2^63 */
        if (r > half || (r == half && (q & 1))) {
            q++; /* may reach 2^53: still exact */
            rest = (int64_t)r - (int64_t)(UINT64_C(1) << sh);
        }
        h = ldexp((double)q, sh - 48);
        l = ldexp((double)rest, -48); /* |rest| <= 2^(sh - 1) <= 2^53: exact */
    }
    *hi = neg ? -h : h;
    *lo = neg ? -l : l;
    return 0;
}

#endif
