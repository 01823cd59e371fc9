/* Writing a file whole or not at all. */
#ifndef TP_FILE_H
#define TP_FILE_H
#include <stdio.h>

/* Writes path atomically: fill writes a temporary file in the same
 * directory (PATH.tmp.PID), which is flushed, fsync'd and renamed over
 * path, so that a reader, or a run killed meanwhile, sees the old file or
 * the whole new one, never part of it (a kill leaves at most the clearly
 * named temporary). fill returns 0 or -1; so does tp_write_atomic. */
int tp_write_atomic(const char *path, int (*fill)(FILE *f, const void *ctx), const void *ctx);
#endif
