#define _XOPEN_SOURCE 700 /* nftw */
#include "cli/tp_tree.h"

#include "cli/tp_files.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

tp_limits tp_bundle_limits(void)
{
    return (tp_limits){TP_BUNDLE_MAX_ENTRIES, TP_BUNDLE_MAX_FILE_BYTES, TP_BUNDLE_MAX_TOTAL_BYTES,
                       TP_BUNDLE_MAX_DEPTH, TP_BUNDLE_MAX_PATH};
}

static const char *kind(mode_t m)
{
    return S_ISLNK(m)    ? "a symbolic link"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file or directory";
}

typedef struct {
    const tp_limits *lim;
    long long entries, bytes;
    char *err;
    size_t errlen;
} walk;

static int walk_dir(walk *w, const char *root, const char *rel, int depth)
{
    char path[8192];
    snprintf(path, sizeof path, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d) {
        snprintf(w->err, w->errlen, "%s: cannot be listed", rel[0] ? rel : ".");
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[8192];
        int n = snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        if (n < 0 || (size_t)n > w->lim->max_path_len) {
            snprintf(w->err, w->errlen, "%.200s...: a path longer than %zu bytes", sub, w->lim->max_path_len);
            rc = -1;
            break;
        }
        if (tp_path_of(path, sizeof path, "%s/%s", root, sub) != 0) {
            snprintf(w->err, w->errlen, "%.200s...: a path longer than %zu bytes", sub, sizeof path - 1);
            rc = -1;
            break;
        }
        struct stat st;
        if (lstat(path, &st) != 0) {
            snprintf(w->err, w->errlen, "%s: cannot be examined", sub);
            rc = -1;
        } else if (++w->entries > w->lim->max_entries) {
            snprintf(w->err, w->errlen, "%s: more than %lld files and directories", sub, w->lim->max_entries);
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            if (depth + 1 > w->lim->max_depth) {
                snprintf(w->err, w->errlen, "%s: directories nested deeper than %d levels", sub, w->lim->max_depth);
                rc = -1;
            } else
                rc = walk_dir(w, root, sub, depth + 1);
        } else if (!S_ISREG(st.st_mode)) {
            snprintf(w->err, w->errlen, "%s: %s; a bundle holds regular files and directories only", sub,
                     kind(st.st_mode));
            rc = -1;
        } else if (st.st_size > w->lim->max_file_bytes) {
            snprintf(w->err, w->errlen, "%s: %lld bytes, over the %lld a bundle file may have", sub,
                     (long long)st.st_size, w->lim->max_file_bytes);
            rc = -1;
        } else if ((w->bytes += st.st_size) > w->lim->max_total_bytes) {
            snprintf(w->err, w->errlen, "%s: the files up to here hold more than the %lld bytes a bundle may have", sub,
                     w->lim->max_total_bytes);
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

int tp_tree_check(const char *root, const tp_limits *lim, char *err, size_t errlen)
{
    walk w = {lim, 0, 0, err, errlen};
    err[0] = 0;
    return walk_dir(&w, root, "", 0);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) != 0 ? -1 : 0;
}

int tp_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0; /* nothing there */
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    /* FTW_PHYS: never follow a link; FTW_DEPTH: a directory after its contents */
    return nftw(path, remove_one, 16, FTW_PHYS | FTW_DEPTH);
}
