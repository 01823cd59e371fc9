/* Helpers shared by the libFuzzer targets of tests/fuzz/ (README.md there
 * says how to build and run them). */
#ifndef TP_FUZZ_UTIL_H
#define TP_FUZZ_UTIL_H
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A private directory for files the readers under test take by path;
 * made once per process. */
static const char *fuzz_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/tp_fuzz_XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            abort();
        }
    }
    return dir;
}

/* Writes data to dir/name and returns the path (static storage). */
static const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

/* The input as a NUL-terminated string (free() it). */
static char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* The readers print TAP lines and messages: keep them off the fuzzer's
 * output (libFuzzer's own lines go to stderr). */
static void fuzz_quiet_stdout(void)
{
    if (!freopen("/dev/null", "w", stdout))
        abort();
}
#endif
