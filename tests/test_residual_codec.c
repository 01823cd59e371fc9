/* The .tpr codec (cli/tp_residual_codec.c) on its own, without ops:
 * - the ordinal is a bijection of all 65536 binary16 patterns (and of
 *   sampled binary32 ones) that follows the order of values;
 * - every one of the 65536 patterns round-trips byte for byte against
 *   predictions equal to it, next to it, of the other sign, NaN, infinite
 *   and random, and so do sampled binary32 patterns and an empty tensor;
 * - far predictions fall back to the unpredicted form, which is never
 *   larger than zlib of the data;
 * - a different prediction is the SHA-256 error (-2), not another tensor;
 * - hostile files: every truncation, every single-byte change, trailing
 *   bytes, lengths that do not add up (a change that decodes, in bits
 *   that deflate does not read, decodes to the same bytes), a count beyond 2^40, too many or
 *   too few distances, an overlong distance, a distance off the format's
 *   patterns, a payload that is not zlib: each one error line, no crash. */
#include "tests/tap.h"
#include "cli/tp_residual_codec.h"
#include "core/tp_format.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A .npy-like buffer: a fixed 16-byte "header" then n elements. */
static unsigned char *npy_of(const uint32_t *bits, size_t n, unsigned size, size_t *len)
{
    *len = 16 + n * size;
    unsigned char *b = malloc(*len);
    memcpy(b, "\x93NUMPY\x01\x00\x06\x00{hdr}\n", 16);
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < size; k++)
            b[16 + i * size + k] = (unsigned char)(bits[i] >> (8 * k));
    return b;
}

static int one_line(const char *err) { return err[0] && !strchr(err, '\n'); }

/* Encodes and decodes; 1 when the bytes come back. *predictor gets the form chosen. */
static int round_trip(const uint32_t *bits, const uint32_t *pred, size_t n, unsigned size, int *predictor,
                      size_t *enc_len)
{
    size_t len, outlen, backlen;
    unsigned char *npy = npy_of(bits, n, size, &len), *out, *back = NULL;
    char err[300];
    tp_residual_file f;
    int ok = tp_residual_encode(npy, len, size, pred, n, &out, &outlen, err, sizeof err) == 0 &&
             tp_residual_parse(out, outlen, &f, err, sizeof err) == 0 &&
             tp_residual_decode(&f, pred, &back, &backlen, err, sizeof err) == 0 && backlen == len &&
             memcmp(back, npy, len) == 0;
    if (!ok)
        tap_diag("round trip: %s", err);
    if (predictor)
        *predictor = ok ? (int)f.predictor : -1;
    if (enc_len)
        *enc_len = outlen;
    free(npy);
    free(out);
    free(back);
    return ok;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t next32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static void test_ordinal(void)
{
    int bijective = 1, ordered = 1;
    static unsigned char seen[65536];
    for (uint32_t p = 0; p < 65536; p++) {
        int64_t o = tp_residual_ordinal(p, 2);
        bijective &= o >= -32768 && o < 32768 && tp_residual_pattern(o, 2) == p && !seen[o + 32768];
        if (o >= -32768 && o < 32768)
            seen[o + 32768] = 1;
    }
    /* in ordinal order, the non-NaN values never decrease, and -0 comes just before +0 */
    double prev = -INFINITY;
    for (int64_t o = -32768; o < 32768; o++) {
        uint32_t p = tp_residual_pattern(o, 2);
        if (tp_binary16.is_nan(p))
            continue;
        double v = tp_binary16.decode(p);
        ordered &= v >= prev;
        prev = v;
    }
    tap_ok(bijective, "binary16: the ordinal is a bijection of the 65536 patterns onto [-32768, 32767]");
    tap_ok(ordered && tp_residual_ordinal(0x8000, 2) == -1 && tp_residual_ordinal(0, 2) == 0,
           "binary16: ordinal order is value order (NaNs outside the infinities), -0 at -1 and +0 at 0");
    int ok32 = 1;
    uint32_t specials[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffffffffu, 0x7fffffffu, 1};
    for (int i = 0; i < 1000000 + 8; i++) {
        uint32_t p = i < 8 ? specials[i] : next32();
        ok32 &= tp_residual_pattern(tp_residual_ordinal(p, 4), 4) == p;
    }
    tap_ok(ok32, "binary32: pattern(ordinal(p)) == p on 1000008 patterns, specials included");
}

static void test_all_patterns(void)
{
    uint32_t *bits = malloc(65536 * sizeof *bits), *pred = malloc(65536 * sizeof *pred);
    for (uint32_t p = 0; p < 65536; p++)
        bits[p] = p;
    const char *what[] = {"equal to it", "its next pattern", "of the other sign", "the quiet NaN 0x7e00",
                          "-inf", "+0", "random"};
    for (int k = 0; k < 7; k++) {
        for (uint32_t p = 0; p < 65536; p++)
            pred[p] = k == 0 ? p : k == 1 ? (p + 1) & 0xffff : k == 2 ? p ^ 0x8000 : k == 3 ? 0x7e00 : k == 4 ? 0xfc00
                      : k == 5 ? 0 : next32() & 0xffff;
        int form;
        tap_ok(round_trip(bits, pred, 65536, 2, &form, NULL), "all 65536 binary16 patterns round-trip, predicted %s",
               what[k]);
        if (k == 0)
            tap_ok(form == TP_RESIDUAL_PREDICT_EXACT, "  exact predictions are stored as distances");
    }
    free(bits);
    free(pred);
}

static void test_binary32_and_sizes(void)
{
    size_t n = 200000;
    uint32_t *bits = malloc(n * sizeof *bits), *pred = malloc(n * sizeof *pred);
    for (size_t i = 0; i < n; i++) {
        bits[i] = next32();
        int64_t o = tp_residual_ordinal(bits[i], 4) + (int64_t)(next32() % 5) - 2;
        if (o < -2147483648LL || o > 2147483647LL)
            o = 0;
        pred[i] = tp_residual_pattern(o, 4);
    }
    bits[0] = 0x7fffffffu, pred[0] = 0xffffffffu; /* the largest distance: +NaN max from -NaN max */
    bits[1] = 0xffffffffu, pred[1] = 0x7fffffffu;
    int form;
    size_t enc;
    int near = round_trip(bits, pred, n, 4, &form, &enc);
    tap_ok(near && form == TP_RESIDUAL_PREDICT_EXACT,
           "200000 binary32 patterns within 2 of their predictions, and the two farthest, round-trip as distances");
    tap_ok(enc < n, "  in under a byte per element (%zu bytes for %zu elements)", enc, n);
    for (size_t i = 0; i < n; i++)
        pred[i] = next32();
    size_t len;
    unsigned char *npy = npy_of(bits, n, 4, &len);
    uLongf zl = compressBound((uLong)(n * 4));
    unsigned char *z = malloc(zl);
    compress2(z, &zl, npy + 16, (uLong)(n * 4), Z_BEST_COMPRESSION);
    int ok = round_trip(bits, pred, n, 4, &form, &enc);
    tap_ok(ok && form == TP_RESIDUAL_PREDICT_NONE && enc == TP_RESIDUAL_FIXED + 16 + zl,
           "random predictions: stored unpredicted, as zlib of the data plus the headers (%zu bytes)", enc);
    free(z);
    free(npy);
    tap_ok(round_trip(bits, pred, 0, 2, &form, NULL), "an empty tensor round-trips");
    free(bits);
    free(pred);
}

static unsigned char sample_npy[16 + 2 * 300];
static size_t sample_len;

/* A small valid file to damage: 300 binary16 elements near their predictions. */
static unsigned char *sample(uint32_t *bits, uint32_t *pred, size_t n, size_t *len)
{
    for (size_t i = 0; i < n; i++) {
        pred[i] = next32() & 0x7bff;
        bits[i] = (i % 7 == 0) ? pred[i] + 1 : pred[i];
    }
    size_t nl;
    unsigned char *npy = npy_of(bits, n, 2, &nl), *out;
    char err[300];
    memcpy(sample_npy, npy, nl);
    sample_len = nl;
    if (tp_residual_encode(npy, nl, 2, pred, n, &out, len, err, sizeof err) != 0)
        out = NULL;
    free(npy);
    return out;
}

/* -1 parse error, -2 SHA mismatch, -3 decode error, -4 decoded to other
 * bytes than the sample's (never: the SHA-256 is checked), 0 decoded */
static int decode_rc(const unsigned char *buf, size_t len, const uint32_t *pred, size_t n, char *err, size_t errlen)
{
    tp_residual_file f;
    unsigned char *back = NULL;
    size_t bl;
    if (tp_residual_parse(buf, len, &f, err, errlen) != 0)
        return -1;
    if (f.count != n) {
        snprintf(err, errlen, "count %llu is not the caller's %zu", (unsigned long long)f.count, n);
        return -1;
    }
    int rc = tp_residual_decode(&f, pred, &back, &bl, err, errlen);
    /* what decodes must be the sample's bytes (sample_npy), whatever changed */
    if (rc == 0 && (bl != sample_len || memcmp(back, sample_npy, bl) != 0))
        rc = -4;
    free(back);
    return rc == -2 ? -2 : rc == -4 ? -4 : rc ? -3 : 0;
}

/* A file with a hand-made payload (zlib of raw) for the sample's fixed header. */
static unsigned char *with_payload(const unsigned char *good, const unsigned char *raw, size_t rawlen, size_t *len)
{
    uLongf zl = compressBound((uLong)rawlen);
    size_t head = TP_RESIDUAL_FIXED + 16;
    unsigned char *b = malloc(head + zl);
    memcpy(b, good, head);
    compress2(b + head, &zl, raw, (uLong)rawlen, 9);
    for (int k = 0; k < 8; k++)
        b[24 + k] = (unsigned char)((uint64_t)zl >> (8 * k));
    *len = head + zl;
    return b;
}

static void test_hostile(void)
{
    enum { N = 300 };
    uint32_t bits[N], pred[N], other[N];
    size_t len;
    unsigned char *good = sample(bits, pred, N, &len);
    char err[300];
    tap_ok(good && decode_rc(good, len, pred, N, err, sizeof err) == 0, "the sample decodes");
    memcpy(other, pred, sizeof other);
    other[17] ^= 1;
    int rc = decode_rc(good, len, other, N, err, sizeof err);
    tap_ok(rc == -2 && strstr(err, "SHA-256") && strstr(err, "exact reference") && one_line(err),
           "one prediction changed: the SHA-256 error, naming the reference (%s)", err);
    int all = 1;
    for (size_t cut = 0; cut < len; cut++) {
        rc = decode_rc(good, cut, pred, N, err, sizeof err);
        all &= rc != 0 && one_line(err);
    }
    tap_ok(all, "every truncation (0 .. %zu bytes) is one error line", len - 1);
    int flips = 0, caught = 0, decoded = 0;
    unsigned char *bad = malloc(len + 1);
    for (size_t i = 0; i < len; i++)
        for (int m = 0; m < 3; m++) {
            memcpy(bad, good, len);
            bad[i] ^= (unsigned char)(m == 0 ? 0x01 : m == 1 ? 0x80 : 0xff);
            flips++;
            rc = decode_rc(bad, len, pred, N, err, sizeof err);
            /* a change the format does not read (padding bits of deflate's
             * last byte) may decode: then to the very same bytes */
            int fine = rc == 0 || (rc != -4 && one_line(err));
            caught += fine;
            decoded += rc == 0;
            if (!fine)
                tap_diag("byte %zu ^ mask %d: rc %d, %s", i, m, rc, err);
        }
    tap_ok(caught == flips,
           "every single-byte change (%d, 3 masks per byte) is one error line or decodes to the same bytes (%d did)",
           flips, decoded);
    memcpy(bad, good, len);
    bad[len] = 0;
    rc = decode_rc(bad, len + 1, pred, N, err, sizeof err);
    tap_ok(rc == -1 && strstr(err, "do not add up") && one_line(err), "a trailing byte: %s", err);
    memcpy(bad, good, len);
    bad[16 + 5] = 1; /* count = 2^40 + 300 */
    rc = decode_rc(bad, len, pred, N, err, sizeof err);
    tap_ok(rc == -1 && strstr(err, "2^40"), "a count beyond 2^40 is refused before anything is allocated: %s", err);
    rc = decode_rc((const unsigned char *)"PK\003\004", 4, pred, N, err, sizeof err);
    tap_ok(rc == -1 && strstr(err, "not a .tpr"), "another file's magic: %s", err);

    unsigned char raw[N + 200];
    memset(raw, 0, sizeof raw);
    size_t bl;
    unsigned char *b = with_payload(good, raw, N + 200, &bl);
    rc = decode_rc(b, bl, pred, N, err, sizeof err);
    tap_ok(rc == -3 && strstr(err, "more distances than elements"), "200 distances too many: %s", err);
    free(b);
    b = with_payload(good, raw, N - 1, &bl);
    rc = decode_rc(b, bl, pred, N, err, sizeof err);
    tap_ok(rc == -3 && strstr(err, "fewer elements"), "one distance too few: %s", err);
    free(b);
    memset(raw, 0xff, 12);
    b = with_payload(good, raw, N, &bl);
    rc = decode_rc(b, bl, pred, N, err, sizeof err);
    tap_ok(rc == -3 && strstr(err, "longer than 5 bytes"), "a distance of 12 bytes: %s", err);
    free(b);
    raw[0] = 0xfe, raw[1] = 0xff, raw[2] = 0x07; /* zigzag 131070: +65535 from any binary16 prediction */
    b = with_payload(good, raw, N, &bl);
    rc = decode_rc(b, bl, pred, N, err, sizeof err);
    tap_ok(rc == -3 && strstr(err, "outside the format"), "a distance off the format's patterns: %s", err);
    free(b);
    memcpy(bad, good, len);
    memset(bad + TP_RESIDUAL_FIXED + 16, 'x', len - TP_RESIDUAL_FIXED - 16);
    rc = decode_rc(bad, len, pred, N, err, sizeof err);
    tap_ok(rc == -3 && strstr(err, "zlib") && one_line(err), "a payload that is not zlib: %s", err);
    size_t zlen;
    b = with_payload(good, raw, 0, &zlen);
    memcpy(bad, b, zlen);
    bad[9] = TP_RESIDUAL_PREDICT_NONE;
    rc = decode_rc(bad, zlen, pred, N, err, sizeof err);
    tap_ok(rc == -3 && strstr(err, "fewer elements"), "unpredicted, with no data bytes: %s", err);
    free(b);
    bad[9] = 7;
    rc = decode_rc(bad, zlen, pred, N, err, sizeof err);
    tap_ok(rc == -1 && strstr(err, "predictor 7"), "an unknown predictor: %s", err);
    free(bad);
    free(good);
}

int main(void)
{
    test_ordinal();
    test_all_patterns();
    test_binary32_and_sizes();
    test_hostile();
    return tap_done();
}
