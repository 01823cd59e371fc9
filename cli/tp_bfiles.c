#define _POSIX_C_SOURCE 200809L
#include "cli/tp_bfiles.h"

#include <stdlib.h>
#include <string.h>

void tp_bfiles_add(tp_bfiles *fs, const char *path, char *data, size_t len)
{
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 16;
        fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
    }
    fs->v[fs->n].path = strdup(path);
    fs->v[fs->n].data = data;
    fs->v[fs->n].len = len;
    fs->n++;
}

void tp_bfiles_free(tp_bfiles *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->v[i].path);
        free(fs->v[i].data);
    }
    free(fs->v);
    fs->v = NULL;
    fs->n = fs->cap = 0;
}
