/* Reading a bundle's .tar.gz without trusting it. The archive is read
 * here, member by member, rather than handed to tar: tar would create
 * whatever the archive holds (links out of the directory, FIFOs and, run
 * as root, devices) and expand it whole before anything could be checked.
 * This reader writes only regular files and directories, refuses every
 * other member by name before writing anything of it, and stops at the
 * limits of tp_tree.h at the member that crosses them. zlib reads the
 * gzip layer; the tar layer is the ustar/GNU/pax subset that `tolproof
 * bundle` and common tar programs write (regular files, directories, GNU
 * long names, pax "path" records), small enough to check completely, and
 * not worth a new dependency (libarchive) for. */
#ifndef TP_UNTAR_H
#define TP_UNTAR_H
#include "cli/tp_tree.h"

#include <stddef.h>

/* Extracts archive (a gzip-compressed tar file) into `into`, an empty
 * directory. Every member must lie under one top-level directory, whose
 * name is returned in top (at most toplen bytes); names with "..", an
 * absolute path, a member given twice, or anything but a regular file or
 * directory are refused. 0, or -1 with a one-line reason in err (what was
 * written so far stays in `into`, for the caller to remove). */
int tp_untar(const char *archive, const char *into, const tp_limits *lim, char *top, size_t toplen, char *err,
             size_t errlen);

/* 1 when archive reads as an archive of one directory named `base`
 * holding base/manifest.json (what `tolproof bundle` writes next to a
 * bundle base/), 0 otherwise; writes nothing. */
int tp_untar_is_bundle_archive(const char *archive, const char *base, const tp_limits *lim);
#endif
