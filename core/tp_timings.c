#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "core/tp_timings.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static int enabled;

void tp_timings_enable(int on) { enabled = on; }
int tp_timings_on(void) { return enabled; }

double tp_timing_start(void)
{
    if (!enabled)
        return 0.0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tp_timing_end(double t0, const char *fmt, ...)
{
    if (!enabled)
        return;
    double s = tp_timing_start() - t0;
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tolproof: timing: %s: %.3f s\n", what, s);
}
