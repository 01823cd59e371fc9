/* The parts of a tp_device (harness/tp_device.h) that live in host memory,
 * shared by the test tools that run tp_harness_main without a GPU: an
 * H100/H200's launch limits (so the runtime's launch checks run too),
 * malloc'd buffers, memcpy copies, and timers that read 0 ms. A tool adds
 * its own launch (host_device_with). Header-only: each tool is one
 * translation unit linked on its own (configure: tests/tool_*.c). */
#ifndef TP_TESTS_HOST_DEVICE_H
#define TP_TESTS_HOST_DEVICE_H
#include "harness/tp_device.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device's name as results.json records it ("device"."name"). */
static const char *host_device_name = "cpu-emulation";

static int host_open(tp_device_props *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    snprintf(p->name, sizeof p->name, "%s", host_device_name);
    snprintf(p->arch, sizeof p->arch, "x86_64");
    p->max_threads_per_block = 1024;
    p->max_threads_dim[0] = p->max_threads_dim[1] = 1024;
    p->max_threads_dim[2] = 64;
    p->max_grid_size[0] = INT_MAX;
    p->max_grid_size[1] = p->max_grid_size[2] = 65535;
    p->shared_bytes_per_block = 49152;
    return 0;
}

static int host_alloc(void **buffer, size_t bytes, char *err, size_t errlen)
{
    *buffer = malloc(bytes);
    if (!*buffer)
        snprintf(err, errlen, "malloc(%zu bytes): out of memory", bytes);
    return *buffer ? 0 : -1;
}

static void host_release(void *buffer) { free(buffer); }

static int host_copy(void *to, const void *from, size_t bytes, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    memcpy(to, from, bytes);
    return 0;
}

static int host_synchronize(char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return 0;
}

/* Host launches take no device time: every timing is 0 ms. */
static int host_timer_token;
static int host_timer_create(void **timer, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    *timer = &host_timer_token;
    return 0;
}
static void host_timer_release(void *timer) { (void)timer; }
static int host_timer_start(void *timer, char *err, size_t errlen)
{
    (void)timer, (void)err, (void)errlen;
    return 0;
}
static int host_timer_stop(void *timer, float *ms, char *err, size_t errlen)
{
    (void)timer, (void)err, (void)errlen;
    *ms = 0.0f;
    return 0;
}

/* The host device with `launch` as its kernel. */
static tp_device host_device_with(int (*launch)(const tp_case *, void *const *, const tp_launch_shape *, char *,
                                                size_t))
{
    tp_device d = {host_open,         host_alloc,         host_release,     host_copy,       host_copy, host_synchronize,
                   host_timer_create, host_timer_release, host_timer_start, host_timer_stop, launch,
                   NULL /* context_lost: host memory is never lost */};
    return d;
}
#endif
