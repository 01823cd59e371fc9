/* Wall-clock times of the phases of one command (tolproof check
 * --timings), printed to stderr as each phase ends: where a long check
 * spends its time, without a profiler. While off (the default) a phase
 * costs one branch. Any thread may end a phase (a line is one write). */
#ifndef TP_TIMINGS_H
#define TP_TIMINGS_H

void tp_timings_enable(int on);
int tp_timings_on(void);
/* Monotonic seconds when on; 0 when off. */
double tp_timing_start(void);
/* When on: "tolproof: timing: WHAT: S s" to stderr, S since t0. */
void tp_timing_end(double t0, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
