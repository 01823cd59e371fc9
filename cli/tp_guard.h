/* Temporary directories that do not outlive their command. `tolproof
 * bundle` builds a bundle in a temporary sibling of its final place and
 * `tolproof audit` extracts an archive into a temporary directory; a
 * crash, Ctrl-C or a kill must not leave them behind (31 MB each time),
 * nor a half-written bundle under the final name.
 *
 * The work runs in a child process while this one waits: whatever ends
 * the child (its own exit, a crash, a signal) and SIGINT, SIGTERM or SIGHUP
 * sent to this process (passed on to the child and whatever it spawned),
 * this process removes the directory. Only SIGKILL of this process itself
 * cannot be handled; for that case every directory is named with the pid
 * of the process that made it and holds a marker file, and the next run
 * removes those whose process is gone. */
#ifndef TP_GUARD_H
#define TP_GUARD_H
#include <stddef.h>

/* Creates a fresh directory `PARENT/PREFIX.PID.XXXXXX` (mode 0700) with
 * the marker file in it, after removing the stale ones of earlier runs
 * (same parent and prefix, marker present, process gone). Its path is
 * written to out. 0, or -1. */
int tp_guard_mkdtemp(const char *parent, const char *prefix, char *out, size_t outlen);

/* Runs work(ctx) in a child process (its stdout and stderr are this
 * process's, flushed before) and then removes `tmp` (made by
 * tp_guard_mkdtemp) whatever happened. Returns the child's exit status, or
 * minus the signal that ended it (a crash: the caller says so). When this
 * process gets SIGINT, SIGTERM or SIGHUP, it passes the signal on, cleans
 * up and dies of it. */
int tp_guard_run(const char *tmp, int (*work)(void *ctx), void *ctx);
#endif
