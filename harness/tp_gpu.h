/* The GPU layer of a harness: tp_device (harness/tp_device.h) over the
 * CUDA or HIP runtime, through the hip* names of tp_hip.h.
 *
 * A header, not part of libtolproof: its calls must be compiled by nvcc
 * or hipcc for the harness's backend, and the runtime library is C built
 * by gcc. A generated harness includes it, defines the launch of its
 * kernel and hands both to the runtime:
 *
 *   static void tp_launch(void *const *buf, const int64_t *dim, dim3 grid, dim3 block, size_t shared_bytes)
 *   { hipLaunchKernelGGL(entry, grid, block, shared_bytes, 0, (const __half *)buf[0], ..., (int)dim[0], ...); }
 *   int main(int argc, char **argv) { return tp_gpu_main(argc, argv, &TP_HARNESS_INFO, tp_launch); }
 */
#ifndef TP_GPU_H
#define TP_GPU_H
#include "harness/tp_hip.h"

#include "harness/tp_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generated launch: buffers in the plan's tensor order, dims in the
 * plan's dim order, the shape the runtime evaluated and checked. */
typedef void (*tp_gpu_launch_fn)(void *const *buffers, const int64_t *dims, dim3 grid, dim3 block,
                                 size_t shared_bytes);

/* One harness, one kernel: set by tp_gpu_main before any launch. */
static tp_gpu_launch_fn tp_gpu_kernel;

static int tp_gpu_check(hipError_t e, const char *call, char *err, size_t errlen)
{
    if (e == hipSuccess)
        return 0;
    snprintf(err, errlen, "%s: %s", call, hipGetErrorString(e));
    return -1;
}

static int tp_gpu_open(tp_device_props *p, char *err, size_t errlen)
{
    int ndev = 0;
    hipError_t e = hipGetDeviceCount(&ndev);
    if (e != hipSuccess) {
        snprintf(err, errlen, "%s", hipGetErrorString(e));
        return -1;
    }
    if (ndev < 1) {
        snprintf(err, errlen, "the %s runtime reports no device", TP_BACKEND);
        return -1;
    }
    int dev = 0;
    hipDeviceProp_t prop;
    memset(&prop, 0, sizeof prop);
    if ((e = hipGetDevice(&dev)) != hipSuccess || (e = hipGetDeviceProperties(&prop, dev)) != hipSuccess ||
        (e = hipDriverGetVersion(&p->driver_version)) != hipSuccess ||
        (e = hipRuntimeGetVersion(&p->runtime_version)) != hipSuccess) {
        snprintf(err, errlen, "%s", hipGetErrorString(e));
        return -1;
    }
    snprintf(p->name, sizeof p->name, "%s", prop.name);
    tp_device_arch(&prop, p->arch, sizeof p->arch);
    p->max_threads_per_block = prop.maxThreadsPerBlock;
    for (int a = 0; a < 3; a++) {
        p->max_threads_dim[a] = prop.maxThreadsDim[a];
        p->max_grid_size[a] = prop.maxGridSize[a];
    }
    p->shared_bytes_per_block = (uint64_t)prop.sharedMemPerBlock;
    return 0;
}

static int tp_gpu_alloc(void **buffer, size_t bytes, char *err, size_t errlen)
{
    return tp_gpu_check(hipMalloc(buffer, bytes), "hipMalloc", err, errlen);
}

static void tp_gpu_release(void *buffer) { (void)hipFree(buffer); }

static int tp_gpu_to_device(void *buffer, const void *host, size_t bytes, char *err, size_t errlen)
{
    return tp_gpu_check(hipMemcpy(buffer, host, bytes, hipMemcpyHostToDevice), "hipMemcpy to the device", err,
                        errlen);
}

static int tp_gpu_to_host(void *host, const void *buffer, size_t bytes, char *err, size_t errlen)
{
    return tp_gpu_check(hipMemcpy(host, buffer, bytes, hipMemcpyDeviceToHost), "hipMemcpy to the host", err, errlen);
}

static int tp_gpu_synchronize(char *err, size_t errlen)
{
    return tp_gpu_check(hipDeviceSynchronize(), "hipDeviceSynchronize", err, errlen);
}

typedef struct {
    hipEvent_t start, stop;
} tp_gpu_timer;

static void tp_gpu_timer_release(void *timer)
{
    tp_gpu_timer *t = (tp_gpu_timer *)timer;
    if (t->start)
        (void)hipEventDestroy(t->start);
    if (t->stop)
        (void)hipEventDestroy(t->stop);
    free(t);
}

static int tp_gpu_timer_create(void **timer, char *err, size_t errlen)
{
    tp_gpu_timer *t = (tp_gpu_timer *)calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of host memory for the timing events");
        return -1;
    }
    if (tp_gpu_check(hipEventCreate(&t->start), "hipEventCreate", err, errlen) != 0 ||
        tp_gpu_check(hipEventCreate(&t->stop), "hipEventCreate", err, errlen) != 0) {
        tp_gpu_timer_release(t);
        return -1;
    }
    *timer = t;
    return 0;
}

static int tp_gpu_timer_start(void *timer, char *err, size_t errlen)
{
    return tp_gpu_check(hipEventRecord(((tp_gpu_timer *)timer)->start, 0), "hipEventRecord", err, errlen);
}

static int tp_gpu_timer_stop(void *timer, float *ms, char *err, size_t errlen)
{
    tp_gpu_timer *t = (tp_gpu_timer *)timer;
    return tp_gpu_check(hipEventRecord(t->stop, 0), "hipEventRecord", err, errlen) ||
                   tp_gpu_check(hipEventSynchronize(t->stop), "hipEventSynchronize", err, errlen) ||
                   tp_gpu_check(hipEventElapsedTime(ms, t->start, t->stop), "hipEventElapsedTime", err, errlen)
               ? -1
               : 0;
}

static int tp_gpu_launch(const tp_case *c, void *const *buffers, const tp_launch_shape *s, char *err, size_t errlen)
{
    tp_gpu_kernel(buffers, c->dims, dim3((unsigned)s->grid[0], (unsigned)s->grid[1], (unsigned)s->grid[2]),
                  dim3((unsigned)s->block[0], (unsigned)s->block[1], (unsigned)s->block[2]), (size_t)s->shared_bytes);
    return tp_gpu_check(hipGetLastError(), "kernel launch", err, errlen);
}

/* A sticky error (an illegal address, a trap) is returned again by every
 * later call, while an ordinary one (a bad launch configuration) is
 * cleared by hipGetLastError: so the context is lost when a fresh
 * synchronize still fails. */
static int tp_gpu_context_lost(void)
{
    (void)hipGetLastError();
    return hipDeviceSynchronize() != hipSuccess;
}

#ifdef TP_BACKEND_CUDA
/* The exact GEMM sums on this GPU (oracles/gemm/gemm_exact_provider.h):
 * the CUDA provider, compiled into the harness. */
#include "oracles/gemm/gemm_exact_cuda.cu"
#endif

/* main of a generated harness. */
static int tp_gpu_main(int argc, char **argv, const tp_harness_info *info, tp_gpu_launch_fn launch)
{
#ifdef TP_BACKEND_CUDA
    /* op gemm's exact sums on the GPU, each case's sample cross-checked
     * against the CPU path, unless TP_EXACT_PROVIDER=cpu. Opened at its
     * first use, in the case's process (CUDA does not survive a fork). */
    const char *want = getenv("TP_EXACT_PROVIDER");
    if (!want || strcmp(want, "cpu") != 0)
        tp_gemm_exact_provider_set(tp_gemm_exact_cuda_provider());
#endif
    static const tp_device gpu = {
        tp_gpu_open,         tp_gpu_alloc,        tp_gpu_release,     tp_gpu_to_device,
        tp_gpu_to_host,      tp_gpu_synchronize,  tp_gpu_timer_create, tp_gpu_timer_release,
        tp_gpu_timer_start,  tp_gpu_timer_stop,   tp_gpu_launch,       tp_gpu_context_lost,
    };
    tp_gpu_kernel = launch;
    return tp_harness_main(argc, argv, info, &gpu);
}
#endif
