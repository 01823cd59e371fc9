#define _POSIX_C_SOURCE 200809L /* fileno */
#include "core/tp_jsonfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *tp_file_text(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    err[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    memset(&st, 0, sizeof st);
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a file", path);
        fclose(f);
        return NULL;
    }
    /* read to the end in growing pieces: a pipe has no size to ask for
     * first, and a regular file's size may change while it is read */
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
                free(buf);
                buf = NULL;
            }
            break;
        }
        if (cap >= max) {
            snprintf(err, errlen, "%s: larger than %zu MiB", path, max >> 20);
            free(buf);
            buf = NULL;
            break;
        }
        cap = cap * 2 < max ? cap * 2 : max;
        char *nb = realloc(buf, cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            snprintf(err, errlen, "%s: out of memory", path);
        }
        buf = nb;
    }
    fclose(f);
    if (!buf) {
        if (!err[0])
            snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    if (n == 0) {
        snprintf(err, errlen, "%s: is empty%s", path, S_ISREG(st.st_mode) ? "" : " (nothing was read from it)");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

json_t *tp_json_file_load(const char *path, size_t flags, char *err, size_t errlen)
{
    size_t len;
    err[0] = 0;
    char *text = tp_file_text(path, TP_JSON_FILE_MAX, &len, err, errlen);
    if (!text)
        return NULL;
    json_error_t je;
    json_t *j = json_loadb(text, len, flags, &je);
    free(text);
    if (!j)
        snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
    return j;
}
