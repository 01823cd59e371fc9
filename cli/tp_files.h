/* Whole files and sorted directory listings, as the bundle writer and the
 * audit need them: a file is read or written in one piece (the bundle
 * hashes and compares whole files), and listings are sorted by byte value,
 * not locale, so they agree on every machine. */
#ifndef TP_FILES_H
#define TP_FILES_H
#include <dirent.h>
#include <jansson.h>
#include <stddef.h>

/* The whole file, NUL-terminated, its length in *len. NULL when it cannot
 * be read. */
char *tp_read_all(const char *path, size_t *len);
/* Writes data to path, creating its parent folders. 0 or -1. */
int tp_write_all(const char *path, const void *data, size_t len);
/* Copies a file byte for byte, creating the parent folders of `to`. 0 or -1. */
int tp_copy_file(const char *from, const char *to);
/* 1 when path is a directory (after links). */
int tp_is_dir(const char *path);
/* A path from its parts into out: -1 when it does not fit, since a path
 * cut short would name another file. */
int tp_path_of(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* scandir's comparator by byte value. */
int tp_by_name(const struct dirent **a, const struct dirent **b);
/* Every file under root that is not a directory (links and others too, so
 * the audit can refuse them), as sorted relative paths; NULL on error. */
json_t *tp_list_files(const char *root);
#endif
