/* Minimal TAP producer for the C tests (run with `prove --exec ''`).
 * Hand-written: libtap is not packaged in Debian, and the protocol needs
 * only a plan line and one ok/not ok line per check. */
#ifndef TP_TAP_H
#define TP_TAP_H
#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n) { printf("1..%d\n", n); }

/* Records a check; returns cond so callers can print details on failure. */
static inline int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!cond)
        tap_failed++;
    fflush(stdout);
    return cond;
}

static inline void tap_diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* Ends a test whose plan was not known in advance. */
static inline int tap_done(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

static inline int tap_exit(void) { return tap_failed ? 1 : 0; }
#endif
