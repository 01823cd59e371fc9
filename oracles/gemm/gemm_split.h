/* Exact sums of binary16 products in split doubles, chunk by chunk: the
 * arithmetic of the GPU exact reference's inner loop
 * (oracles/gemm/gemm_exact_cuda.cu), written once for the device and the
 * host, so that the host unit test (tests/test_gemm_fixed.c) runs the very
 * code the GPU runs. Chunks are combined exactly in 128-bit fixed point
 * (oracles/gemm/gemm_fixed.h).
 *
 * Independent of any kernel under audit (they accumulate in fp32). It is
 * the same method as the CPU path's proven code (oracles/gemm/proven/gemm.c:
 * a fixed split at 1.5 * 2^44), written again for the GPU; the provider's
 * sample cross-check compares the two implementations element by element.
 * The split is done by FMAs here, which the proven C code does not use.
 *
 * Why it is exact, for a and b binary16 values widened to double and a
 * chunk of at most TP_SD_K_CHUNK = 2^13 products:
 *  - p = a b is a multiple of 2^-48 with |p| <= 65504^2 < 2^32: exact as a
 *    double, so fma(a, b, c) = RN(p + c) for every c.
 *  - t = fma(a, b, S) - S with S = 1.5 * 2^44: p + S lies in [2^44, 2^45),
 *    where doubles are the multiples of 2^-8, so RN(p + S) = S + t with t
 *    the multiple of 2^-8 nearest p (|t| <= 2^32); the subtraction of S is
 *    exact (the difference is a double). t has the sign of p, or is 0.
 *  - d = fma(a, b, -t) = RN(p - t) = p - t: a multiple of 2^-48 with
 *    |d| <= 2^-9, so at most 39 significant bits: a double.
 *  - e = fma(|a|, |b|, -|t|) = RN(|p| - |t|) = |p| - |t| = sign(p) d,
 *    exact the same way (|t| has the magnitude of t, the sign of p).
 *  - hi += t: every partial sum is a multiple of 2^-8 of magnitude at most
 *    2^13 * 2^32 = 2^45, i.e. at most 2^53 units of 2^-8: a double, so
 *    every addition is exact. ahi += |t| the same.
 *  - lo += d: partial sums are multiples of 2^-48 of magnitude at most
 *    2^13 * 2^-9 = 2^4, i.e. at most 2^52 units: exact. alo += e the same.
 * Hence after a chunk hi + lo is the chunk's exact sum of products and
 * ahi + alo its exact sum of |products|, whatever the rounding of the
 * additions (none occurs), and all four are multiples of 2^-48 below 2^46
 * in magnitude, which tp_fx_add_double turns into fixed point exactly. */
#ifndef TP_GEMM_SPLIT_H
#define TP_GEMM_SPLIT_H

#include <math.h>

#ifdef __CUDACC__
#define TP_SD static __host__ __device__ __forceinline__
#else
#define TP_SD static inline
#endif

/* The split scale, 1.5 * 2^44, and the longest chunk argued for above. */
#define TP_SD_SPLIT 0x1.8p44
#define TP_SD_K_CHUNK 8192

typedef struct {
    double hi, lo;   /* sum of products: hi + lo */
    double ahi, alo; /* sum of |products|: ahi + alo */
} tp_sd_acc;

/* Round-to-nearest operations that the compiler may not contract or
 * reorder (the device's intrinsics; the host builds with
 * -ffp-contract=off). */
TP_SD double tp_sd_fma(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return fma(a, b, c);
#endif
}

TP_SD double tp_sd_add(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

/* One product a b of two binary16 values (as doubles) into both sums. */
TP_SD void tp_sd_mac(tp_sd_acc *s, double a, double b)
{
    double t = tp_sd_add(tp_sd_fma(a, b, TP_SD_SPLIT), -TP_SD_SPLIT);
    double d = tp_sd_fma(a, b, -t);
    double e = tp_sd_fma(fabs(a), fabs(b), -fabs(t));
    s->hi = tp_sd_add(s->hi, t);
    s->lo = tp_sd_add(s->lo, d);
    s->ahi = tp_sd_add(s->ahi, fabs(t));
    s->alo = tp_sd_add(s->alo, e);
}

#endif
