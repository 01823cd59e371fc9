/* One case on the device its generated source (or an emulator) provides
 * (tp_harness_run_case, tp_device.h); the case loop and the process that
 * runs it are in tp_supervise.c. */
#include "harness/tp_device.h"
#include "harness/tp_supervise.h"

#include "core/tp_expr.h"
#include "core/tp_npy.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The launch shape of the case from the plan's expressions. */
static int launch_shape(const tp_plan *plan, const tp_case *c, tp_launch_shape *s, char *err, size_t errlen)
{
    const char *what[7];
    int64_t *where[7];
    int n = 0;
    for (int a = 0; a < 3; a++)
        s->block[a] = s->grid[a] = 1;
    for (int a = 0; a < plan->launch.nblock; a++, n++) {
        what[n] = plan->launch.block[a];
        where[n] = &s->block[a];
    }
    for (int a = 0; a < plan->launch.ngrid; a++, n++) {
        what[n] = plan->launch.grid[a];
        where[n] = &s->grid[a];
    }
    what[n] = plan->launch.shared_bytes;
    where[n++] = &s->shared_bytes;
    for (int k = 0; k < n; k++) {
        char inner[300];
        if (tp_expr_eval(what[k], c->ndims, c->dim_names, c->dims, where[k], inner, sizeof inner) != 0) {
            snprintf(err, errlen, "launch shape \"%s\" cannot be evaluated: %s", what[k], inner);
            return -1;
        }
    }
    return 0;
}

/* The case's dims (passed to the kernel as int) and the launch shape
 * against the device's limits; -1 with the refusal in err. */
static int fits(const tp_case *c, const tp_device_props *p, const tp_launch_shape *s, char *err, size_t errlen)
{
    for (int d = 0; d < c->ndims; d++)
        if (c->dims[d] < 0 || c->dims[d] > INT_MAX) {
            snprintf(err, errlen, "dim %d = %lld does not fit the kernel's int parameters", d, (long long)c->dims[d]);
            return -1;
        }
    const int64_t *b = s->block, *g = s->grid;
    if (b[0] * b[1] * b[2] > p->max_threads_per_block) {
        snprintf(err, errlen, "block %lldx%lldx%lld has %lld threads; the device allows %d", (long long)b[0],
                 (long long)b[1], (long long)b[2], (long long)(b[0] * b[1] * b[2]), p->max_threads_per_block);
        return -1;
    }
    for (int a = 0; a < 3; a++) {
        if (b[a] < 1 || b[a] > p->max_threads_dim[a]) {
            snprintf(err, errlen, "block dimension %d is %lld; the device allows 1..%d", a, (long long)b[a],
                     p->max_threads_dim[a]);
            return -1;
        }
        if (g[a] < 1 || g[a] > p->max_grid_size[a]) {
            snprintf(err, errlen, "grid dimension %d is %lld; the device allows 1..%d", a, (long long)g[a],
                     p->max_grid_size[a]);
            return -1;
        }
    }
    if (s->shared_bytes < 0 || (uint64_t)s->shared_bytes > p->shared_bytes_per_block) {
        snprintf(err, errlen, "%lld bytes of dynamic shared memory; the device allows %llu", (long long)s->shared_bytes,
                 (unsigned long long)p->shared_bytes_per_block);
        return -1;
    }
    return 0;
}

static size_t bytes_of(const tp_tensor *t) { return (size_t)t->numel * tp_dtype_size(t->dtype); }

/* Every output on the device back to its contents before the launch, so
 * a kernel that accumulates into its output sees the same start each time. */
static int reset_outputs(const tp_device *dev, const tp_plan *plan, const tp_case *c, void *const *buf, char *err,
                         size_t errlen)
{
    for (int t = 0; t < c->ntensors; t++)
        if (plan->tensors[t].role == TP_ROLE_OUTPUT &&
            dev->to_device(buf[t], c->tensors[t].data, bytes_of(&c->tensors[t]), err, errlen) != 0)
            return -1;
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* One warm-up launch, then `reps` launches each bracketed by the timer
 * with the outputs reset before it; the median of the timed ones. */
static int launch_timed(const tp_device *dev, const tp_plan *plan, const tp_case *c, void *const *buf,
                        const tp_launch_shape *shape, int reps, float *median, char *err, size_t errlen)
{
    float *times = calloc((size_t)reps, sizeof *times);
    void *timer = NULL;
    int rc = -1;
    if (!times) {
        snprintf(err, errlen, "out of host memory for %d timings", reps);
        return -1;
    }
    if (dev->timer_create(&timer, err, errlen) != 0 || reset_outputs(dev, plan, c, buf, err, errlen) != 0 ||
        dev->launch(c, buf, shape, err, errlen) != 0 || dev->synchronize(err, errlen) != 0)
        goto done;
    for (int r = 0; r < reps; r++)
        if (reset_outputs(dev, plan, c, buf, err, errlen) != 0 || dev->synchronize(err, errlen) != 0 ||
            dev->timer_start(timer, err, errlen) != 0 || dev->launch(c, buf, shape, err, errlen) != 0 ||
            dev->timer_stop(timer, &times[r], err, errlen) != 0)
            goto done;
    qsort(times, (size_t)reps, sizeof *times, cmp_float);
    *median = (reps % 2) ? times[reps / 2] : 0.5f * (times[reps / 2 - 1] + times[reps / 2]);
    rc = 0;
done:
    if (timer)
        dev->timer_release(timer);
    free(times);
    return rc;
}

/* One case: launch shape and limits (a refusal), device buffers with the
 * inputs copied in once (the kernel does not write them), the launches,
 * the outputs of the last one back into the case; then the checker. */
void tp_harness_run_case(tp_run *run, int i, tp_case *c, const tp_device *dev, const tp_device_props *props)
{
    const tp_plan *plan = tp_run_plan(run);
    char err[512] = "", inner[400];
    tp_launch_shape shape;
    if (launch_shape(plan, c, &shape, err, sizeof err) != 0 || fits(c, props, &shape, err, sizeof err) != 0) {
        tp_run_case_refuse(run, i, err);
        return;
    }
    int reps = tp_run_reps(run);
    if (reps < 1)
        reps = 1;
    void *buf[TP_MAX_TENSORS] = {0};
    float median = 0.0f;
    int t = 0;
    tp_supervise_phase(i, TP_PHASE_DEVICE); /* the watchdog runs from here */
    for (; t < c->ntensors; t++) {
        const tp_tensor *tt = &c->tensors[t];
        if (dev->alloc(&buf[t], bytes_of(tt), inner, sizeof inner) != 0 ||
            (plan->tensors[t].role == TP_ROLE_INPUT &&
             dev->to_device(buf[t], tt->data, bytes_of(tt), inner, sizeof inner) != 0)) {
            snprintf(err, sizeof err, "tensor %s: %s", tt->name, inner);
            break;
        }
    }
    if (!err[0])
        launch_timed(dev, plan, c, buf, &shape, reps, &median, err, sizeof err);
    for (t = 0; !err[0] && t < c->ntensors; t++) {
        const tp_tensor *tt = &c->tensors[t];
        if (plan->tensors[t].role == TP_ROLE_OUTPUT &&
            dev->to_host(tt->data, buf[t], bytes_of(tt), inner, sizeof inner) != 0)
            snprintf(err, sizeof err, "tensor %s: %s", tt->name, inner);
    }
    for (t = 0; t < c->ntensors; t++)
        if (buf[t])
            dev->release(buf[t]);
    tp_supervise_phase(i, TP_PHASE_HOST); /* to here: the checker is not the kernel */
    if (err[0])
        tp_run_case_error(run, i, err);
    else
        tp_run_case_end(run, i, (double)median, reps); /* frees c */
}
