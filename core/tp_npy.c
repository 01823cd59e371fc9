#define _POSIX_C_SOURCE 200809L /* fileno */
#include "core/tp_npy.h"
#include "core/tp_big_alloc.h"

#include "core/tp_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *tp_npy_descr(tp_dtype t) { return tp_dtype_get(t)->npy_descr; }

size_t tp_npy_header_bytes(tp_dtype dtype, int rank, const int64_t *shape, char *out, size_t len)
{
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", tp_dtype_get(dtype)->npy_descr);
    for (int d = 0; d < rank; d++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)shape[d], d + 1 < rank ? " " : "");
    if (rank > 1) /* a 1-tuple needs its trailing comma, longer ones read better without */
        n--;
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* pad with spaces so that magic + len + header is a multiple of 64 */
    int pad = (64 - (10 + n + 1) % 64) % 64;
    size_t total = (size_t)(10 + n + pad + 1);
    if (total > len)
        return 0;
    unsigned hlen = (unsigned)(n + pad + 1);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)(hlen & 0xff);
    out[9] = (char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', (size_t)pad);
    out[total - 1] = '\n';
    return total;
}

struct npy_body {
    const char *header;
    size_t hlen, bytes;
    const void *data;
};

static int fill_npy(FILE *f, const void *ctx)
{
    const struct npy_body *b = ctx;
    int ok = fwrite(b->header, 1, b->hlen, f) == b->hlen;
    ok = ok && (b->bytes == 0 || fwrite(b->data, 1, b->bytes, f) == b->bytes);
    return ok ? 0 : -1;
}

int tp_npy_write(const char *path, tp_dtype dtype, int rank, const int64_t *shape, const void *data)
{
    char header[320];
    int64_t numel = 1;
    for (int d = 0; d < rank; d++)
        numel *= shape[d];
    struct npy_body b = {header, tp_npy_header_bytes(dtype, rank, shape, header, sizeof header),
                         (size_t)numel * tp_dtype_size(dtype), data};
    /* a run killed while writing leaves PATH.tmp.PID, never a truncated PATH */
    return tp_write_atomic(path, fill_npy, &b);
}

/* The dtype of a parsed header, or -1 with err saying what the file holds
 * instead, spelled as NumPy spells it so that the user sees which
 * conversion is missing (float64, big-endian, object, ...). */
static int descr_dtype(const char *d, int not_string, const char *what, char *err, size_t errlen)
{
    char known[64];
    tp_dtype_list(1, known, sizeof known);
    for (int i = 0; !not_string && i < TP_NDTYPES; i++)
        /* NumPy itself saves a bfloat16 array it loaded as '|V2' */
        if (strcmp(d, tp_dtype_get((tp_dtype)i)->npy_descr) == 0 || (i == TP_BF16 && strcmp(d, "|V2") == 0))
            return i;
    snprintf(err, errlen, "%s: dtype '%s' is not supported: expected %s%s", what, d, known,
             not_string || d[0] == '[' ? " (this file holds a structured array)"
             : d[0] == '>'             ? " (little-endian; this file is big-endian)"
             : d[0] == '|' && d[1] == 'O' ? " (this file holds Python objects, not numbers)"
                                          : "");
    return -1;
}

int tp_npy_descr_dtype(const char *descr, const char *what, char *err, size_t errlen)
{
    return descr_dtype(descr, 0, what, err, errlen);
}

/* The dtype of a parsed header, or -1 with err saying what the file holds
 * instead, spelled as NumPy spells it so that the user sees which
 * conversion is missing (float64, big-endian, object, ...). */
static int header_dtype(const tp_npy_header *h, const char *path, char *err, size_t errlen)
{
    if (!h->have_descr) {
        char known[64];
        tp_dtype_list(1, known, sizeof known);
        snprintf(err, errlen, "%s: the header has no 'descr' (expected %s)", path, known);
        return -1;
    }
    return descr_dtype(h->descr, h->descr_not_string, path, err, errlen);
}

static void shape_text(char *out, size_t len, int rank, const int64_t *shape)
{
    size_t n = (size_t)snprintf(out, len, "(");
    for (int d = 0; d < rank && n < len; d++)
        n += (size_t)snprintf(out + n, len - n, "%lld%s", (long long)shape[d], rank == 1 ? "," : d + 1 < rank ? ", " : "");
    if (n < len)
        snprintf(out + n, len - n, ")");
}

/* The data of a pipe or device, which has no size to check first: read in
 * growing pieces, so that memory follows what really arrives. */
static void *read_stream(FILE *f, size_t bytes, size_t *got)
{
    size_t cap = bytes < (1u << 20) ? bytes : (1u << 20);
    unsigned char *buf = malloc(cap ? cap : 1);
    *got = 0;
    while (buf && *got < bytes) {
        if (*got == cap) {
            size_t ncap = cap * 2 < bytes ? cap * 2 : bytes;
            unsigned char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t n = fread(buf + *got, 1, cap - *got, f);
        if (n == 0)
            break;
        *got += n;
    }
    return buf;
}

int tp_npy_read(const char *path, tp_dtype *dtype, int *rank, int64_t shape[4], void **data,
                char *err, size_t errlen)
{
    *data = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    return tp_npy_read_stream(f, path, dtype, rank, shape, data, err, errlen);
}

int tp_npy_read_stream(FILE *f, const char *path, tp_dtype *dtype, int *rank, int64_t shape[4], void **data,
                       char *err, size_t errlen)
{
    *data = NULL;
    struct stat st;
    int have_st = fstat(fileno(f), &st) == 0, regular = have_st && S_ISREG(st.st_mode);
    if (have_st && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a .npy file", path);
        fclose(f);
        return -1;
    }
    unsigned char pre[12];
    char *h = NULL;
    int rc = -1;
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        snprintf(err, errlen, "%s: not a .npy file (expected the magic \\x93NUMPY)", path);
        goto out;
    }
    size_t hlen, prefix;
    if (pre[6] == 1) {
        if (fread(pre + 8, 1, 2, f) != 2)
            goto truncated;
        hlen = pre[8] | (size_t)pre[9] << 8;
        prefix = 10;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 8, 1, 4, f) != 4)
            goto truncated;
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
        prefix = 12;
        if (hlen > (1u << 20)) {
            snprintf(err, errlen, "%s: header length %zu (expected under 1 MiB)", path, hlen);
            goto out;
        }
    } else {
        snprintf(err, errlen, "%s: format version %d.%d (expected 1.0, 2.0 or 3.0)", path, pre[6], pre[7]);
        goto out;
    }
    if (regular && (uint64_t)st.st_size < prefix + hlen) {
        snprintf(err, errlen, "%s: truncated: the header declares %zu bytes, the file has %lld after the magic", path,
                 hlen, (long long)st.st_size - (long long)prefix);
        goto out;
    }
    h = malloc(hlen ? hlen : 1);
    if (!h) {
        snprintf(err, errlen, "%s: cannot allocate %zu bytes for the header", path, hlen);
        goto out;
    }
    if (fread(h, 1, hlen, f) != hlen)
        goto truncated;
    tp_npy_header hd;
    char inner[200];
    if (tp_npy_header_parse(h, hlen, &hd, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "%s: %s", path, inner);
        goto out;
    }
    int found = header_dtype(&hd, path, err, errlen);
    if (found < 0)
        goto out;
    *dtype = (tp_dtype)found;
    if (!hd.have_fortran_order || hd.fortran_order) {
        snprintf(err, errlen, "%s: fortran_order is %s: only C order is supported (write np.ascontiguousarray(a))",
                 path, hd.have_fortran_order ? "True" : "missing");
        goto out;
    }
    if (!hd.have_shape) {
        snprintf(err, errlen, "%s: no shape tuple in the header", path);
        goto out;
    }
    *rank = hd.rank;
    int64_t numel = 1;
    for (int d = 0; d < hd.rank; d++) {
        shape[d] = hd.shape[d];
        numel *= hd.shape[d]; /* at most 2^40: the header parser checked */
    }
    size_t bytes = (size_t)numel * tp_dtype_size(*dtype);
    char st_text[120];
    shape_text(st_text, sizeof st_text, hd.rank, hd.shape);
    if (regular) {
        uint64_t have = (uint64_t)st.st_size - prefix - hlen;
        if (have < bytes) {
            snprintf(err, errlen, "%s: truncated: shape %s of %s needs %zu data bytes, the file has %llu", path, st_text,
                     hd.descr, bytes, (unsigned long long)have);
            goto out;
        }
        if (have > bytes) {
            snprintf(err, errlen, "%s: trailing bytes: %zu data bytes expected for the shape %s, the file has more (%llu)",
                     path, bytes, st_text, (unsigned long long)have);
            goto out;
        }
        *data = tp_big_alloc(bytes); /* huge pages for a large tensor: fewer faults */
        if (!*data) {
            snprintf(err, errlen, "%s: cannot allocate %zu bytes for shape %s", path, bytes, st_text);
            goto out;
        }
        if (bytes && fread(*data, 1, bytes, f) != bytes)
            goto truncated;
    } else {
        size_t got;
        *data = read_stream(f, bytes, &got);
        if (!*data) {
            snprintf(err, errlen, "%s: cannot allocate memory for shape %s", path, st_text);
            goto out;
        }
        if (got < bytes) {
            snprintf(err, errlen, "%s: truncated: shape %s of %s needs %zu data bytes, the stream had %zu", path,
                     st_text, hd.descr, bytes, got);
            goto out;
        }
    }
    if (fgetc(f) != EOF) {
        snprintf(err, errlen, "%s: trailing bytes: %zu data bytes expected for the shape %s, the file has more", path,
                 bytes, st_text);
        goto out;
    }
    rc = 0;
    goto out;
truncated:
    snprintf(err, errlen, "%s: truncated (the header or the data ends early)", path);
out:
    if (rc != 0) {
        free(*data);
        *data = NULL;
    }
    free(h);
    fclose(f);
    return rc;
}
