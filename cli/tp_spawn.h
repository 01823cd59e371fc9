/* Running a tool (tar, gzip, git, a prover's --version) without a shell,
 * so no argument is ever re-parsed. */
#ifndef TP_SPAWN_H
#define TP_SPAWN_H
#include <stddef.h>

/* Runs argv[0] (found on PATH) with stdout to out_path (NULL: inherited).
 * The exit status, or -1 when it could not run or did not exit. */
int tp_spawn(char *const argv[], const char *out_path);
/* The same with stdout and stderr captured into capture (NUL-terminated,
 * truncated to caplen - 1 bytes; the rest is read and dropped). */
int tp_spawn_capture(char *const argv[], char *capture, size_t caplen);
#endif
