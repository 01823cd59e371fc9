/* TP_HD marks a function that both the host compiler and nvcc compile:
 * __host__ __device__ under nvcc, nothing in C. The GPU element check of
 * `tolproof check --device` (oracles/gemm/gemm_check_cuda.cuh) runs the
 * same source as the CPU check this way, so that both give the same bits
 * (IEEE binary64 operations round to nearest on both; the provider is
 * built with -fmad=false, so no multiply-add is fused that C keeps apart). */
#ifndef TP_HD_H
#define TP_HD_H
#ifdef __CUDACC__
#define TP_HD __host__ __device__
#else
#define TP_HD
#endif
#endif
