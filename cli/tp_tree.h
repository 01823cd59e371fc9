/* Directory trees that tolproof did not write, or writes and removes:
 * a stranger's bundle is checked before any byte of it is read (only
 * regular files and directories, within the limits below: a FIFO, a device
 * or a link to /dev/zero would hang the audit or exhaust memory, a link
 * out of the bundle would audit something else), and tolproof removes
 * only trees it made itself, without following links. */
#ifndef TP_TREE_H
#define TP_TREE_H
#include <stddef.h>

/* What a bundle may hold, in a directory or an archive. The recorded runs
 * of this repository bundle to about 350 files and 31 MB, their largest
 * file under 4 MB; the limits leave room for bundles thirty times that
 * size (and tensors of 64M fp32 elements) and stop an archive that
 * expands without end at the member that crosses them, before it is
 * written. */
typedef struct {
    long long max_entries;    /* files and directories */
    long long max_file_bytes; /* one file */
    long long max_total_bytes;
    int max_depth;       /* directory levels below the root */
    size_t max_path_len; /* bytes of a path relative to the root */
} tp_limits;

#define TP_BUNDLE_MAX_ENTRIES 20000
#define TP_BUNDLE_MAX_FILE_BYTES (256LL << 20)
#define TP_BUNDLE_MAX_TOTAL_BYTES (1LL << 30)
#define TP_BUNDLE_MAX_DEPTH 16
#define TP_BUNDLE_MAX_PATH 1024

/* The limits above. */
tp_limits tp_bundle_limits(void);

/* Walks root without following links: 0 when everything below it is a
 * regular file or a directory and within the limits; -1 with the first
 * offending path (relative to root) and what is wrong in err. Nothing is
 * opened but directories. */
int tp_tree_check(const char *root, const tp_limits *lim, char *err, size_t errlen);

/* Removes path and everything below it without following links (a link
 * is removed, not its target). 0, or -1 when something could not be
 * removed. */
int tp_remove_tree(const char *path);
#endif
