/* See cli/tp_device_provider.h. */
#include "cli/tp_device_provider.h"

#include "oracles/gemm/gemm_exact_provider.h"

#include "core/tp_timings.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const tp_gemm_exact_provider *(*open_fn)(char *err, size_t errlen);

int tp_device_provider_load(const char *argv0, char *err, size_t errlen)
{
    char path[4200];
    const char *env = getenv("TP_GEMM_CUDA_LIB");
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    if (env && *env)
        snprintf(path, sizeof path, "%s", env);
    else if (slash)
        snprintf(path, sizeof path, "%.*s/libtp_gemm_cuda.so", (int)(slash - argv0), argv0);
    else
        snprintf(path, sizeof path, "./libtp_gemm_cuda.so");
    return tp_device_provider_load_path(path, err, errlen);
}

int tp_device_provider_load_path(const char *path, char *err, size_t errlen)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(err, errlen,
                 "--device: cannot load the GPU exact provider %s (%s); it is built by nvcc (`ninja "
                 "build/libtp_gemm_cuda.so` where nvcc is installed), or name it with TP_GEMM_CUDA_LIB",
                 path, why ? why : "dlopen failed");
        return -1;
    }
    open_fn open = (open_fn)dlsym(lib, "tp_gemm_exact_cuda_open");
    if (!open) {
        snprintf(err, errlen, "--device: %s has no tp_gemm_exact_cuda_open: not the GPU exact provider", path);
        dlclose(lib);
        return -1;
    }
    char inner[600] = "";
    const tp_gemm_exact_provider *p = open(inner, sizeof inner);
    if (!p) {
        snprintf(err, errlen, "--device: %s (the GPU exact provider %s)", inner, path);
        dlclose(lib);
        return -1;
    }
    /* its own phases under --timings (a library without the hook has none) */
    void (*timings)(int) = (void (*)(int))dlsym(lib, "tp_gemm_exact_cuda_timings");
    if (timings)
        timings(tp_timings_on());
    tp_gemm_exact_provider_set(p); /* the library stays loaded for the process */
    return 0;
}
