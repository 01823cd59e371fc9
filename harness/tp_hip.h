/* Portability header: lets one HIP source (kernels/ and the generated
 * harnesses) build with hipcc for AMD and with nvcc for NVIDIA.
 *
 * Why it exists: the HIP-on-NVIDIA headers shipped with Debian's ROCm 5.2
 * do not compile against CUDA 13, so on NVIDIA we map the hip* names used
 * by this project onto the CUDA runtime ourselves. Only the names the
 * harnesses and kernels actually use are mapped; add one here when a
 * kernel needs it, never in a kernel.
 *
 * Portability facts this header settles (checked with Debian's hipcc 5.2 for
 * gfx90a and nvcc 13 for sm_90):
 *   - HIP 5.2 has no __shfl_down_sync: kernels call __shfl_down(v, d),
 *     which on NVIDIA becomes __shfl_down_sync(full mask, v, d).
 *   - HIP 5.2 has no 16-bit atomicCAS: use tp_atomic_cas_u16 below, which
 *     works on the aligned 32-bit word that contains the 16-bit word.
 *   - Wavefronts are 64 lanes on AMD CDNA (gfx90a, gfx942), 32 on RDNA and
 *     NVIDIA: reductions must use warpSize, never a literal 32.
 *   - bfloat16 is a different type on each side (HIP 5.2's hip_bfloat16
 *     struct, CUDA's __nv_bfloat16): kernels and harnesses say tp_bf16 and
 *     convert with tp_bf162float (exact) and tp_float2bf16 (round to
 *     nearest even, as both vendors' conversions do).
 *
 * Also defines TP_BACKEND ("cuda" or "hip") and the integer helpers that
 * launch expressions of contracts use (tp_ceil_div, tp_min, tp_max,
 * tp_next_pow2), as static inline host/device functions over int64_t.
 */
#ifndef TP_HIP_H
#define TP_HIP_H

#include <stdint.h>

#if defined(__HIP__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || \
    defined(__HIP_PLATFORM_HCC__)
/* ---------------------------------------------------------------- AMD */
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>
#define TP_BACKEND "hip"
#define TP_BACKEND_HIP 1

typedef hip_bfloat16 tp_bf16;
static __host__ __device__ inline float tp_bf162float(tp_bf16 h) { return (float)h; }
/* hip_bfloat16(float) rounds to nearest even (float_to_bfloat16). */
static __host__ __device__ inline tp_bf16 tp_float2bf16(float f) { return tp_bf16(f); }

/* A wavefront runs in lockstep: only the compiler must not move shared
 * memory accesses across this point. */
#define tp_syncwarp() __builtin_amdgcn_wave_barrier()

/* Device architecture name, e.g. "gfx90a:sramecc+:xnack-". */
static inline void tp_device_arch(const hipDeviceProp_t *p, char *out, size_t n)
{
    size_t i = 0;
    for (; i + 1 < n && p->gcnArchName[i]; i++)
        out[i] = p->gcnArchName[i];
    if (n)
        out[i] = 0;
}

#elif defined(__CUDACC__)
/* ------------------------------------------------------------- NVIDIA */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdio.h>
#define TP_BACKEND "cuda"
#define TP_BACKEND_CUDA 1

typedef __nv_bfloat16 tp_bf16;
static __host__ __device__ inline float tp_bf162float(tp_bf16 h) { return __bfloat162float(h); }
/* __float2bfloat16 rounds to nearest even (cvt.rn.bf16.f32 on the device). */
static __host__ __device__ inline tp_bf16 tp_float2bf16(float f) { return __float2bfloat16(f); }

typedef cudaError_t hipError_t;
typedef cudaDeviceProp hipDeviceProp_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaStream_t hipStream_t;

#define hipSuccess cudaSuccess
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice

#define hipGetDeviceCount cudaGetDeviceCount
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemset cudaMemset
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime

/* hipLaunchKernelGGL(kernel, grid, block, shared_bytes, stream, args...) */
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
    kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)

/* HIP's warp intrinsics without masks: all lanes take part. */
#define __shfl_down(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define __shfl_up(v, d) __shfl_up_sync(0xffffffffu, (v), (d))
#define __shfl_xor(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))
#define __shfl(v, l) __shfl_sync(0xffffffffu, (v), (l))
/* The lanes of a warp may diverge (Volta and later): a barrier among them
 * before one reads what another wrote to shared memory. */
#define tp_syncwarp() __syncwarp()

/* Device architecture name, e.g. "sm_90". */
static inline void tp_device_arch(const hipDeviceProp_t *p, char *out, size_t n)
{
    snprintf(out, n, "sm_%d%d", p->major, p->minor);
}

#else
#error "tp_hip.h: compile with hipcc (AMD) or nvcc (NVIDIA)"
#endif

/* --------------------------------------------------------------- both */

/* 16-bit compare-and-swap on the aligned 32-bit word containing *addr
 * (HIP 5.2 has no 16-bit atomicCAS). Returns the old 16-bit value. */
static __device__ inline unsigned short tp_atomic_cas_u16(unsigned short *addr,
                                                          unsigned short compare,
                                                          unsigned short val)
{
    unsigned int *word = (unsigned int *)((uintptr_t)addr & ~(uintptr_t)3);
    const unsigned int shift = ((uintptr_t)addr & 2) ? 16u : 0u;
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        const unsigned short cur = (unsigned short)((assumed >> shift) & 0xffffu);
        if (cur != compare)
            return cur;
        const unsigned int next = (assumed & ~(0xffffu << shift)) | ((unsigned int)val << shift);
        old = atomicCAS(word, assumed, next);
    } while (old != assumed);
    return (unsigned short)((old >> shift) & 0xffffu);
}

/* Integer helpers of contract expressions (gen/contract.py renders
 * ceil_div/min/max/next_pow2 as these). */
static __host__ __device__ inline int64_t tp_ceil_div(int64_t a, int64_t b)
{
    return b == 0 ? 0 : (a + b - 1) / b;
}
static __host__ __device__ inline int64_t tp_min(int64_t a, int64_t b) { return a < b ? a : b; }
static __host__ __device__ inline int64_t tp_max(int64_t a, int64_t b) { return a > b ? a : b; }
/* Smallest power of two >= a (1 for a <= 1). */
static __host__ __device__ inline int64_t tp_next_pow2(int64_t a)
{
    int64_t p = 1;
    while (p < a && p < ((int64_t)1 << 62))
        p <<= 1;
    return p;
}

#endif
