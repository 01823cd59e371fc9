/* NumPy .npy files (format versions 1.0 and 2.0), the tensor format of
 * recorded runs and of `tolproof check`. Hand-written because Debian has
 * no C library for it; the format is a magic string, a Python-dict
 * header and raw little-endian data. Only C order is accepted. */
#ifndef TP_NPY_H
#define TP_NPY_H
#include "core/tp_dtype.h"
#include "core/tp_tensor.h"

#include <stddef.h>
#include <stdint.h>

/* Writes a version 1.0 file. 0, or -1 with errno set. */
int tp_npy_write(const char *path, tp_dtype dtype, int rank, const int64_t *shape, const void *data);

/* Reads a file: allocates *data (free() it). On error returns -1 and says
 * in err what is wrong with the file (which part, what was expected). */
int tp_npy_read(const char *path, tp_dtype *dtype, int *rank, int64_t shape[4], void **data,
                char *err, size_t errlen);

/* The .npy descr written for a dtype (core/tp_dtype.c says why bf16 is "<V2"). */
const char *tp_npy_descr(tp_dtype t);
#endif
