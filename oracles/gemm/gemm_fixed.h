/* 128-bit fixed point for exact GEMM sums beyond one split-double chunk:
 * the GPU exact reference (oracles/gemm/gemm_exact_cuda.cu) adds each
 * chunk's split-double sums (oracles/gemm/gemm_split.h) into one signed
 * 128-bit integer per sum, in units of 2^-48, and converts the total to
 * the normalized double-double the bound code takes. Written once for the
 * device and the host (tests/test_gemm_fixed.c runs it against __int128
 * and MPFR).
 *
 * Why it is exact:
 *  - every chunk part is a multiple of 2^-48 below 2^46 in magnitude
 *    (gemm_split.h), so x * 2^48 is an integer below 2^94: its 53-bit
 *    significand shifted into place (tp_fx_add_double, which refuses
 *    anything off that grid or of 2^75 or more);
 *  - the sums of products and of |products| over K <= TP_FX_K_MAX = 2^16
 *    are below 2^16 * 2^32 = 2^48, i.e. 2^96 units, and each of the at
 *    most 2 * 8 parts added is below 2^94 units, so every partial sum fits
 *    a signed 128-bit two's complement integer (two 64-bit limbs, carry by
 *    hand);
 *  - the sum S (a multiple of 2^-48, |S| < 2^48) leaves as the normalized
 *    double-double hi = RN(S) (round to nearest, ties to even), lo = S - hi.
 *    lo is exact: when S has at most 53 significant bits, hi = S, lo = 0;
 *    otherwise ulp(hi) = 2^(n - 53 - 48) for the bit length n <= 96 of
 *    |S| / 2^-48, |lo| <= ulp(hi) / 2 and lo is a multiple of 2^-48, so
 *    |lo| / 2^-48 <= 2^(n - 54) <= 2^42 < 2^53: a double holds it.
 *    The pair is unique, so any exact method that normalizes gives the
 *    same two doubles (oracles/gemm/gemm_exact_provider.c normalizes the
 *    CPU path's pair to compare). */
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

TP_FX uint64_t tp_fx_double_bits(double x)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

/* acc += x * 2^48 for x a multiple of 2^-48 with |x| < 2^75 (so x * 2^48
 * is an integer below 2^123). 0, or -1 with acc unchanged when x is not
 * such a value (off the grid, too large, or not finite). */
TP_FX int tp_fx_add_double(tp_fx128 *acc, double x)
{
    uint64_t u = tp_fx_double_bits(x);
    int E = (int)((u >> 52) & 0x7ff);
    if (E == 0 && (u << 1) == 0) /* +-0 */
        return 0;
    /* |x| * 2^48 = m * 2^sh: a subnormal x is never on the grid (sh < -1000) */
    uint64_t m = (u & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    int sh = E - 1075 + 48;
    if (E == 0 || E == 0x7ff || sh > 70 || (sh < 0 && (sh < -52 || (m & ((UINT64_C(1) << -sh) - 1)) != 0)))
        return -1;
    uint64_t lo, hi;
    if (sh < 0) {
        lo = m >> -sh;
        hi = 0;
    } else if (sh == 0) {
        lo = m;
        hi = 0;
    } else if (sh < 64) {
        lo = m << sh;
        hi = m >> (64 - sh);
    } else {
        lo = 0;
        hi = m << (sh - 64);
    }
    if (u >> 63) { /* two's complement negation */
        lo = ~lo + 1;
        hi = ~hi + (lo == 0);
    }
    uint64_t sum = acc->lo + lo;
    acc->hi = (int64_t)((uint64_t)acc->hi + hi + (sum < lo));
    acc->lo = sum;
    return 0;
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
