/* main of every harness (tp_harness_main) and the device it runs on.
 *
 * Why a table of function pointers: the runtime is C, built by gcc into
 * libtolproof.a, while GPU calls (hipMalloc, events, device properties,
 * the launch) must be compiled by nvcc or hipcc for the harness's backend.
 * The runtime therefore owns the whole case loop (launch shape from the
 * plan, the device's limits, buffers, warm-up and timed launches, the
 * median, the copy back) and reaches the GPU only through tp_device:
 * harness/tp_gpu.h fills it for CUDA or HIP in the harness's own
 * translation unit, tests/tool_emulate.c with host memory and CPU
 * emulations of the kernels. Each operation returns 0, or -1 with one
 * line in err naming the call that failed. */
#ifndef TP_DEVICE_H
#define TP_DEVICE_H
#include "harness/tp_harness.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the runtime records about the device and checks a launch against. */
typedef struct {
    char name[256];
    char arch[256]; /* e.g. "sm_90", "gfx90a:sramecc+:xnack-" */
    int driver_version, runtime_version;
    int max_threads_per_block;
    int max_threads_dim[3];
    int max_grid_size[3];
    uint64_t shared_bytes_per_block;
} tp_device_props;

/* A launch shape, evaluated from the plan's expressions for one case
 * (extents that the contract leaves out are 1). */
typedef struct {
    int64_t block[3], grid[3];
    int64_t shared_bytes;
} tp_launch_shape;

typedef struct {
    /* The device to run on: its properties, or -1 when there is none (the
     * harness exits 3, "no GPU: " followed by err). */
    int (*open)(tp_device_props *props, char *err, size_t errlen);
    int (*alloc)(void **buffer, size_t bytes, char *err, size_t errlen);
    void (*release)(void *buffer);
    int (*to_device)(void *buffer, const void *host, size_t bytes, char *err, size_t errlen);
    int (*to_host)(void *host, const void *buffer, size_t bytes, char *err, size_t errlen);
    int (*synchronize)(char *err, size_t errlen);
    /* A timer brackets one launch (events on a GPU): start before it,
     * stop after it gives the milliseconds between the two. */
    int (*timer_create)(void **timer, char *err, size_t errlen);
    void (*timer_release)(void *timer);
    int (*timer_start)(void *timer, char *err, size_t errlen);
    int (*timer_stop)(void *timer, float *ms, char *err, size_t errlen);
    /* The contract's kernel on the case's dims with buffers[t] the device
     * copy of tensor t of the plan; -1 when the launch itself fails. */
    int (*launch)(const tp_case *c, void *const *buffers, const tp_launch_shape *shape, char *err, size_t errlen);
    /* After an operation failed: 1 when the device context is lost (a
     * sticky error, such as an illegal address, that every later call
     * would return again), 0 when later cases can still run here. A lost
     * context ends the case's process and the case is recorded "by":
     * "fault" (harness/tp_supervise.h). */
    int (*context_lost)(void);
} tp_device;

/* The whole harness: arguments (tp_run_open), the device (exit 3 when
 * there is none), then every selected case: built from the plan, launched
 * once to warm up and --reps times timed, its outputs checked; then the
 * results. The cases run in a child process under a watchdog, so that a
 * kernel that faults or hangs is recorded as its case's outcome and the
 * other cases still run (harness/tp_supervise.c). Returns the exit status
 * (harness/tp_expect.h): 0 every case has its expected outcome (a case may
 * expect a refusal or a violation), 1 a verdict other than the expected
 * one, 2 a refusal or error against its expectation (bad arguments and
 * unwritable results included), 3 no GPU; 0 after --help and --list. */
int tp_harness_main(int argc, char **argv, const tp_harness_info *info, const tp_device *device);

/* One case on the device (tp_main.c): launch shape and limits, buffers,
 * warm-up and timed launches, outputs back, then the checker; the outcome
 * is recorded in run. */
void tp_harness_run_case(tp_run *run, int i, tp_case *c, const tp_device *dev, const tp_device_props *props);

#ifdef __cplusplus
}
#endif
#endif
