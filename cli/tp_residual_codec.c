/* The .tpr codec: see cli/tp_residual_codec.h for the format and why it
 * is lossless. zlib, because the project links it already (cli/tp_untar.c)
 * and every Debian has it (zlib1g); recorded/MIGRATIONS.md (0004) gives
 * the measurements against xz (liblzma) that chose it. */
#include "cli/tp_residual_codec.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int64_t tp_residual_ordinal(uint32_t bits, unsigned size)
{
    uint32_t sign = size == 2 ? 0x8000u : 0x80000000u;
    int64_t mag = (int64_t)(bits & (sign - 1));
    return bits & sign ? -1 - mag : mag;
}

uint32_t tp_residual_pattern(int64_t ordinal, unsigned size)
{
    uint32_t sign = size == 2 ? 0x8000u : 0x80000000u;
    return ordinal < 0 ? sign | (uint32_t)(-1 - ordinal) : (uint32_t)ordinal;
}

static uint32_t element(const unsigned char *p, unsigned size)
{
    uint32_t v = 0;
    for (unsigned b = 0; b < size; b++)
        v |= (uint32_t)p[b] << (8 * b);
    return v;
}

static void put_le(unsigned char *p, uint64_t v, unsigned bytes)
{
    for (unsigned b = 0; b < bytes; b++)
        p[b] = (unsigned char)(v >> (8 * b));
}

static uint64_t get_le(const unsigned char *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned b = 0; b < bytes; b++)
        v |= (uint64_t)p[b] << (8 * b);
    return v;
}

/* zlib (level 9) of in[0 .. n-1] into a malloc'd buffer with `room`
 * bytes free before it; NULL on failure. */
static unsigned char *deflate_after(const unsigned char *in, size_t n, size_t room, size_t *clen)
{
    uLongf cap = compressBound((uLong)n);
    unsigned char *buf = malloc(room + cap);
    if (buf && compress2(buf + room, &cap, in, (uLong)n, Z_BEST_COMPRESSION) != Z_OK) {
        free(buf);
        return NULL;
    }
    *clen = cap;
    return buf;
}

int tp_residual_encode(const unsigned char *npy, size_t len, unsigned size, const uint32_t *pred, size_t n,
                       unsigned char **out, size_t *outlen, char *err, size_t errlen)
{
    *out = NULL;
    if (size != 2 && size != 4) {
        snprintf(err, errlen, "element size %u (expected 2 or 4)", size);
        return -1;
    }
    if (len == 0 || n > (len - 1) / size || len - n * size > UINT32_MAX) {
        snprintf(err, errlen, "%zu bytes cannot hold a header and %zu elements of %u bytes", len, n, size);
        return -1;
    }
    size_t hlen = len - n * size, room = TP_RESIDUAL_FIXED + hlen;
    const unsigned char *data = npy + hlen;
    /* zigzag distances as LEB128: 0, +-1, ... one byte each (at most 5) */
    unsigned char *var = malloc(n * 5 + 1);
    if (!var) {
        snprintf(err, errlen, "out of memory for %zu distances", n);
        return -1;
    }
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t r = tp_residual_ordinal(element(data + i * size, size), size) - tp_residual_ordinal(pred[i], size);
        uint64_t u = r >= 0 ? (uint64_t)r << 1 : ((uint64_t)(-r) << 1) - 1;
        do {
            var[v++] = (unsigned char)((u & 0x7f) | (u > 0x7f ? 0x80 : 0));
            u >>= 7;
        } while (u);
    }
    size_t dlen = 0, rlen = 0;
    unsigned char *dist = deflate_after(var, v, room, &dlen);
    free(var);
    unsigned char *plain = dist ? deflate_after(data, n * size, room, &rlen) : NULL;
    if (!dist || !plain) {
        free(dist);
        snprintf(err, errlen, "zlib cannot compress %zu elements (out of memory?)", n);
        return -1;
    }
    int predicted = dlen <= rlen;
    unsigned char *buf = predicted ? dist : plain;
    free(predicted ? plain : dist);
    memcpy(buf, TP_RESIDUAL_MAGIC, 8);
    buf[8] = (unsigned char)size;
    buf[9] = predicted ? TP_RESIDUAL_PREDICT_EXACT : TP_RESIDUAL_PREDICT_NONE;
    buf[10] = buf[11] = 0;
    put_le(buf + 12, hlen, 4);
    put_le(buf + 16, n, 8);
    put_le(buf + 24, predicted ? dlen : rlen, 8);
    SHA256(npy, len, buf + 32);
    memcpy(buf + TP_RESIDUAL_FIXED, npy, hlen);
    *out = buf;
    *outlen = room + (predicted ? dlen : rlen);
    return 0;
}

int tp_residual_parse(const unsigned char *buf, size_t len, tp_residual_file *f, char *err, size_t errlen)
{
    if (len < 8 || memcmp(buf, TP_RESIDUAL_MAGIC, 8) != 0) {
        snprintf(err, errlen, "not a .tpr file (expected the magic TPRES1)");
        return -1;
    }
    if (len < TP_RESIDUAL_FIXED) {
        snprintf(err, errlen, "truncated: %zu bytes, the fixed header alone has %d", len, TP_RESIDUAL_FIXED);
        return -1;
    }
    f->size = buf[8];
    f->predictor = buf[9];
    if (f->size != 2 && f->size != 4) {
        snprintf(err, errlen, "element size %u (expected 2 or 4)", f->size);
        return -1;
    }
    if (f->predictor > TP_RESIDUAL_PREDICT_EXACT || buf[10] || buf[11]) {
        snprintf(err, errlen, "predictor %u, flags %u %u (expected predictor 0 or 1, flags 0: written by a newer tolproof?)",
                 f->predictor, buf[10], buf[11]);
        return -1;
    }
    uint64_t hlen = get_le(buf + 12, 4), count = get_le(buf + 16, 8), plen = get_le(buf + 24, 8);
    if (count > ((uint64_t)1 << 40)) {
        snprintf(err, errlen, "element count %llu (expected at most 2^40)", (unsigned long long)count);
        return -1;
    }
    if (hlen < 10 || hlen > len - TP_RESIDUAL_FIXED || plen != len - TP_RESIDUAL_FIXED - hlen) {
        snprintf(err, errlen,
                 "lengths do not add up: %d + header %llu + payload %llu bytes, the file has %zu (expected equal, "
                 "header at least 10)",
                 TP_RESIDUAL_FIXED, (unsigned long long)hlen, (unsigned long long)plen, len);
        return -1;
    }
    f->header_len = (size_t)hlen;
    f->count = count;
    memcpy(f->sha256, buf + 32, 32);
    f->header = buf + TP_RESIDUAL_FIXED;
    f->payload = f->header + hlen;
    f->payload_len = (size_t)plen;
    return 0;
}

/* One distance of the varint stream, applied to pred: the pattern, or -1
 * when it lies outside the format's patterns. */
static int apply(uint64_t u, uint32_t pred, unsigned size, uint32_t *bits)
{
    int64_t r = u & 1 ? -(int64_t)((u + 1) >> 1) : (int64_t)(u >> 1);
    int64_t half = size == 2 ? 0x8000 : 0x80000000LL;
    int64_t o = tp_residual_ordinal(pred, size) + r;
    if (o < -half || o >= half)
        return -1;
    *bits = tp_residual_pattern(o, size);
    return 0;
}

/* Where the inflated bytes go: the distances (predictor 1) applied to
 * pred, or the data bytes themselves (predictor 0). */
typedef struct {
    const tp_residual_file *f;
    const uint32_t *pred;
    unsigned char *data;
    size_t i;      /* elements written (predictor 1), bytes (predictor 0) */
    uint64_t u;    /* the varint being read */
    unsigned shift;
} sink;

/* NULL, or what is wrong with the bytes. */
static const char *take(sink *s, const unsigned char *p, size_t len)
{
    size_t n = (size_t)s->f->count, size = s->f->size;
    if (s->f->predictor == TP_RESIDUAL_PREDICT_NONE) {
        if (len > n * size - s->i)
            return "more data bytes than the elements hold";
        memcpy(s->data + s->i, p, len);
        s->i += len;
        return NULL;
    }
    for (size_t k = 0; k < len; k++) {
        if (s->shift > 35)
            return "a distance longer than 5 bytes";
        s->u |= (uint64_t)(p[k] & 0x7f) << s->shift;
        s->shift += 7;
        if (p[k] & 0x80)
            continue;
        uint32_t bits;
        if (s->i == n)
            return "more distances than elements";
        if (apply(s->u, s->pred[s->i], (unsigned)size, &bits) != 0)
            return "a distance leads outside the format's bit patterns";
        put_le(s->data + (s->i++) * size, bits, (unsigned)size);
        s->u = 0;
        s->shift = 0;
    }
    return NULL;
}

int tp_residual_decode(const tp_residual_file *f, const uint32_t *pred, unsigned char **npy, size_t *len, char *err,
                       size_t errlen)
{
    size_t n = (size_t)f->count, total = f->header_len + n * f->size;
    unsigned char *out = malloc(total);
    *npy = NULL;
    if (!out) {
        snprintf(err, errlen, "out of memory for %zu elements", n);
        return -1;
    }
    memcpy(out, f->header, f->header_len);
    sink s = {f, pred, out + f->header_len, 0, 0, 0};
    z_stream zs = {0};
    unsigned char chunk[1 << 16];
    int zrc = inflateInit(&zs);
    const char *bad = NULL;
    zs.next_in = (unsigned char *)f->payload;
    size_t left = f->payload_len;
    while (zrc == Z_OK && !bad) {
        if (zs.avail_in == 0 && left) {
            zs.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
            left -= zs.avail_in;
        }
        zs.next_out = chunk;
        zs.avail_out = sizeof chunk;
        zrc = inflate(&zs, Z_NO_FLUSH);
        if (zrc == Z_BUF_ERROR && zs.avail_in == 0 && !left)
            bad = "the compressed stream ends early";
        else if (zrc == Z_OK || zrc == Z_STREAM_END)
            bad = take(&s, chunk, (size_t)(zs.next_out - chunk));
    }
    size_t want = f->predictor == TP_RESIDUAL_PREDICT_NONE ? n * f->size : n;
    if (!bad && zrc != Z_STREAM_END)
        snprintf(err, errlen, "corrupt compressed stream (zlib: %s)", zs.msg ? zs.msg : zError(zrc));
    else if (!bad && (zs.avail_in || left))
        bad = "bytes after the compressed stream";
    else if (!bad && (s.i != want || s.shift))
        bad = "the stream holds fewer elements than the header says";
    inflateEnd(&zs);
    if (bad)
        snprintf(err, errlen, "corrupt payload: %s (%s %zu of %zu)", bad,
                 f->predictor == TP_RESIDUAL_PREDICT_NONE ? "byte" : "element", s.i, want);
    if (bad || zrc != Z_STREAM_END) {
        free(out);
        return -1;
    }
    unsigned char sha[32];
    SHA256(out, total, sha);
    if (memcmp(sha, f->sha256, 32) != 0) {
        char want_hex[65], got[65];
        for (int b = 0; b < 32; b++) {
            snprintf(want_hex + 2 * b, 3, "%02x", f->sha256[b]);
            snprintf(got + 2 * b, 3, "%02x", sha[b]);
        }
        if (f->predictor == TP_RESIDUAL_PREDICT_NONE)
            snprintf(err, errlen, "decodes to a .npy whose SHA-256 is %.16s..., not the recorded %.16s...", got,
                     want_hex);
        else
            snprintf(err, errlen,
                     "decodes to a .npy whose SHA-256 is %.16s..., not the recorded %.16s...: the predicted patterns "
                     "(the exact reference) differ from those it was encoded with",
                     got, want_hex);
        free(out);
        return -2;
    }
    *npy = out;
    *len = total;
    return 0;
}
