#include "core/tp_npy.h"

#include "core/tp_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tp_npy_descr(tp_dtype t) { return tp_dtype_get(t)->npy_descr; }

struct npy_body {
    const char *dict;
    int n, pad;
    size_t bytes;
    const void *data;
};

static int fill_npy(FILE *f, const void *ctx)
{
    const struct npy_body *b = ctx;
    unsigned hlen = (unsigned)(b->n + b->pad + 1);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(b->dict, 1, (size_t)b->n, f) == (size_t)b->n;
    for (int i = 0; ok && i < b->pad; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF;
    ok = ok && (b->bytes == 0 || fwrite(b->data, 1, b->bytes, f) == b->bytes);
    return ok ? 0 : -1;
}

int tp_npy_write(const char *path, tp_dtype dtype, int rank, const int64_t *shape, const void *data)
{
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", tp_dtype_get(dtype)->npy_descr);
    int64_t numel = 1;
    for (int d = 0; d < rank; d++) {
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)shape[d],
                      d + 1 < rank ? " " : "");
        numel *= shape[d];
    }
    if (rank > 1) /* a 1-tuple needs its trailing comma, longer ones read better without */
        n--;
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* pad with spaces so that magic + len + header is a multiple of 64 */
    int total = 10 + n + 1;
    struct npy_body b = {dict, n, (64 - total % 64) % 64, (size_t)numel * tp_dtype_size(dtype), data};
    /* a run killed while writing leaves PATH.tmp.PID, never a truncated PATH */
    return tp_write_atomic(path, fill_npy, &b);
}

/* Finds 'key': in the header dict and returns a pointer after the colon. */
static const char *dict_value(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    while (isspace((unsigned char)*p))
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (isspace((unsigned char)*p))
        p++;
    return p;
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
    unsigned char pre[12];
    char *h = NULL;
    int rc = -1;
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        snprintf(err, errlen, "%s: not a .npy file (expected the magic \\x93NUMPY)", path);
        goto out;
    }
    size_t hlen;
    if (pre[6] == 1) {
        if (fread(pre + 8, 1, 2, f) != 2)
            goto truncated;
        hlen = pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 8, 1, 4, f) != 4)
            goto truncated;
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
        if (hlen > (1u << 20)) {
            snprintf(err, errlen, "%s: header length %zu (expected under 1 MiB)", path, hlen);
            goto out;
        }
    } else {
        snprintf(err, errlen, "%s: format version %d.%d (expected 1.0, 2.0 or 3.0)", path, pre[6], pre[7]);
        goto out;
    }
    h = malloc(hlen + 1);
    if (fread(h, 1, hlen, f) != hlen)
        goto truncated;
    h[hlen] = 0;
    const char *v = dict_value(h, "descr");
    int found = -1;
    for (int i = 0; v && i < TP_NDTYPES; i++)
        /* NumPy itself saves a bfloat16 array it loaded as '|V2' */
        if ((strncmp(v + 1, tp_dtype_get((tp_dtype)i)->npy_descr, 3) == 0 ||
             (i == TP_BF16 && strncmp(v + 1, "|V2", 3) == 0)) &&
            (v[0] == '\'' || v[0] == '"') && v[4] == v[0])
            found = i;
    if (found < 0) {
        /* name the dtype as NumPy spells it, so that the user sees which
         * conversion is missing (float64, big-endian, object, ...) */
        char d[24] = "";
        if (v && (*v == '\'' || *v == '"')) {
            const char *e = strchr(v + 1, *v);
            size_t len = e ? (size_t)(e - v - 1) : 0;
            snprintf(d, sizeof d, "%.*s", (int)(len < sizeof d - 1 ? len : sizeof d - 1), v + 1);
        } else if (v)
            snprintf(d, sizeof d, "%.*s", (int)strcspn(v, ",}"), v);
        char known[64];
        tp_dtype_list(1, known, sizeof known);
        if (!v)
            snprintf(err, errlen, "%s: the header has no 'descr' (expected %s)", path, known);
        else
            snprintf(err, errlen, "%s: dtype '%s' is not supported: expected %s%s", path, d, known,
                     d[0] == '>' ? " (little-endian; this file is big-endian)"
                     : d[0] == '|' && d[1] == 'O' ? " (this file holds Python objects, not numbers)"
                     : d[0] == '['              ? " (this file holds a structured array)"
                                                : "");
        goto out;
    }
    *dtype = (tp_dtype)found;
    v = dict_value(h, "fortran_order");
    if (!v || strncmp(v, "False", 5) != 0) {
        snprintf(err, errlen, "%s: fortran_order is %s: only C order is supported (write np.ascontiguousarray(a))",
                 path, v && strncmp(v, "True", 4) == 0 ? "True" : "missing");
        goto out;
    }
    v = dict_value(h, "shape");
    if (!v || *v != '(') {
        snprintf(err, errlen, "%s: no shape tuple in the header", path);
        goto out;
    }
    v++;
    int r = 0;
    int64_t numel = 1;
    for (;;) {
        while (isspace((unsigned char)*v) || *v == ',')
            v++;
        if (*v == ')')
            break;
        char *end;
        long long d = strtoll(v, &end, 10);
        if (end == v || d < 0 || r == 4) {
            snprintf(err, errlen, "%s: shape must be up to 4 non-negative integers", path);
            goto out;
        }
        /* 2^40 elements is far beyond any tensor here and keeps the byte
         * count from wrapping around */
        if (d > ((long long)1 << 40) || (d > 0 && numel > (((int64_t)1) << 40) / d)) {
            snprintf(err, errlen, "%s: shape has more than 2^40 elements", path);
            goto out;
        }
        shape[r++] = d;
        numel *= d;
        v = end;
    }
    *rank = r;
    size_t bytes = (size_t)numel * tp_dtype_size(*dtype);
    *data = malloc(bytes ? bytes : 1);
    if (bytes && fread(*data, 1, bytes, f) != bytes)
        goto truncated;
    if (fgetc(f) != EOF) {
        snprintf(err, errlen, "%s: trailing bytes: %zu data bytes expected for the shape, the file has more", path,
                 bytes);
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
