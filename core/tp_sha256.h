/* SHA-256 fingerprints (of kernel sources, outputs, input files and
 * bundle files), through OpenSSL. */
#ifndef TP_SHA256_H
#define TP_SHA256_H
#include <stddef.h>

/* Hex SHA-256 (65 bytes with the terminator) of a buffer or a file;
 * tp_sha256_file gives 0, or -1 when the file cannot be read. */
void tp_sha256_hex(const void *data, size_t len, char out[65]);
int tp_sha256_file(const char *path, char out[65]);
/* Of the two buffers one after the other (a .npy header and its data). */
void tp_sha256_hex2(const void *a, size_t alen, const void *b, size_t blen, char out[65]);
#endif
