/* The files a bundle generates (summaries, TAP logs, plots), held in memory
 * so that the bundle writer writes exactly the bytes the audit regenerates
 * and compares against. */
#ifndef TP_BFILES_H
#define TP_BFILES_H
#include <stddef.h>

typedef struct {
    char *path; /* relative to the bundle root */
    char *data;
    size_t len;
} tp_bfile;
typedef struct {
    tp_bfile *v;
    size_t n, cap;
} tp_bfiles;

/* Appends a file; takes ownership of data (malloc'd), copies path. */
void tp_bfiles_add(tp_bfiles *fs, const char *path, char *data, size_t len);
void tp_bfiles_free(tp_bfiles *fs);
#endif
