/* build/tests/libtp_gemm_emulated.so: a stand-in for build/libtp_gemm_cuda.so
 * with the same entry point, tp_gemm_exact_cuda_open, returning the GPU's
 * fixed-point arithmetic run on the host (tests/fixed_provider.h), so that
 * `tolproof check --device` can be tested end to end without a GPU
 * (TP_GEMM_CUDA_LIB names it). TP_EMULATED_WRONG_AT=I makes element I of
 * every output wrong by 2^-48. */
#include "tests/fixed_provider.h"

#include <stdlib.h>

const tp_gemm_exact_provider *tp_gemm_exact_cuda_open(char *err, size_t errlen);

const tp_gemm_exact_provider *tp_gemm_exact_cuda_open(char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const char *w = getenv("TP_EMULATED_WRONG_AT");
    fixed_provider_wrong_at = w && *w ? atol(w) : -1;
    return &fixed_provider;
}
