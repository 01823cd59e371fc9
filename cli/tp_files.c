#define _POSIX_C_SOURCE 200809L
#include "cli/tp_files.h"

#include "harness/tp_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tp_path_of(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

char *tp_read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

int tp_write_all(const char *path, const void *data, size_t len)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
        if (tp_mkdirs(dir) != 0)
            return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(data, 1, len, f) != len;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

int tp_copy_file(const char *from, const char *to)
{
    size_t len;
    char *data = tp_read_all(from, &len);
    if (!data)
        return -1;
    int rc = tp_write_all(to, data, len);
    free(data);
    return rc;
}

int tp_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int tp_by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int list_into(const char *root, const char *rel, json_t *out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s%s%s", root, rel[0] ? "/" : "", rel);
    struct dirent **ents;
    int n = scandir(path, &ents, NULL, tp_by_name);
    if (n < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && rc == 0) {
            char sub[4200], full[4200];
            struct stat st;
            if (tp_path_of(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", name) != 0 ||
                tp_path_of(full, sizeof full, "%s/%s", root, sub) != 0 || lstat(full, &st) != 0)
                rc = -1;
            else if (S_ISDIR(st.st_mode))
                rc = list_into(root, sub, out);
            else
                json_array_append_new(out, json_string(sub)); /* links and others too: the audit refuses them */
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

json_t *tp_list_files(const char *root)
{
    json_t *out = json_array();
    if (list_into(root, "", out) != 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}
