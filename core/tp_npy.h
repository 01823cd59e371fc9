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
 * in err what is wrong with the file (which part, what was expected). The
 * data size the header declares is checked against the file's size before
 * anything is allocated, so a 74-byte file cannot ask for 2 TiB. */
int tp_npy_read(const char *path, tp_dtype *dtype, int *rank, int64_t shape[4], void **data,
                char *err, size_t errlen);

/* The header dict, as tp_npy_header_parse reads it. */
#define TP_NPY_MAX_RANK 4
typedef struct {
    int have_descr, have_fortran_order, have_shape;
    char descr[24];       /* the dtype as written ('<f2'), cut to fit */
    int descr_not_string; /* a structured dtype's list of fields */
    int fortran_order;
    int rank;
    int64_t shape[TP_NPY_MAX_RANK];
} tp_npy_header;

/* Parses the n bytes of a header (core/tp_npy_header.c): a Python dict
 * literal with the keys 'descr', 'fortran_order' and 'shape', each at most
 * once, then padding. 0, or -1 with what is wrong in err. It does not
 * judge the values (tp_npy_read does): a missing key is left unset. */
int tp_npy_header_parse(const char *h, size_t n, tp_npy_header *out, char *err, size_t errlen);

/* The bytes before the data of the format 1.0 file tp_npy_write writes
 * (magic, length, header dict padded to 64 bytes: what np.save writes);
 * their count, or 0 when len is too small (256 bytes always suffice). */
size_t tp_npy_header_bytes(tp_dtype dtype, int rank, const int64_t *shape, char *out, size_t len);

/* The dtype a NumPy dtype string names ('<f2', ...), or -1 with err saying,
 * after "WHAT: ", that it is not supported and what is: the words a file's
 * header gets, for a tensor given in memory. */
int tp_npy_descr_dtype(const char *descr, const char *what, char *err, size_t errlen);

/* The .npy descr written for a dtype (core/tp_dtype.c says why bf16 is "<V2"). */
const char *tp_npy_descr(tp_dtype t);
#endif
