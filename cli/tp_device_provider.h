/* `tolproof check --device`: the GPU exact provider of op "gemm", loaded
 * from build/libtp_gemm_cuda.so (built by nvcc with the CUDA runtime
 * inside; oracles/gemm/gemm_exact_cuda.cu). tolproof itself is built by
 * gcc without CUDA, so the library is opened with dlopen() only when
 * --device is given. */
#ifndef TP_DEVICE_PROVIDER_H
#define TP_DEVICE_PROVIDER_H

#include <stddef.h>

/* The library: $TP_GEMM_CUDA_LIB when set, else libtp_gemm_cuda.so next
 * to the running binary (argv0's folder). On success the provider is set
 * for op gemm (tp_gemm_exact_provider_set) and 0 returned; else -1 and one
 * line in err: the library missing or unloadable, or no GPU. */
int tp_device_provider_load(const char *argv0, char *err, size_t errlen);

/* The same for the library at path (no lookup). */
int tp_device_provider_load_path(const char *path, char *err, size_t errlen);
#endif
