#define _POSIX_C_SOURCE 200809L
#include "cli/tp_sign.h"

#include "cli/tp_files.h"
#include "core/tp_sha256.h"

#include <errno.h>
#include <jansson.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT "tolproof bundle signature 1"

/* An encrypted key is refused rather than prompted for: a bundle is
 * written by ninja and scripts, where a prompt would hang. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf, (void)size, (void)rwflag, (void)u;
    return -1;
}

static void openssl_error(char *out, size_t len)
{
    unsigned long e = ERR_get_error();
    const char *why = e ? ERR_reason_error_string(e) : NULL;
    snprintf(out, len, "OpenSSL: %s", why ? why : "no PEM key found");
    ERR_clear_error();
}

static EVP_PKEY *ed25519_only(EVP_PKEY *k, const char *path, char *err, size_t errlen)
{
    if (k && EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
        const char *type = EVP_PKEY_get0_type_name(k);
        snprintf(err, errlen, "%s: its key type is %s; tolproof signs with Ed25519 (openssl genpkey -algorithm ed25519)",
                 path, type ? type : "not Ed25519");
        EVP_PKEY_free(k);
        return NULL;
    }
    return k;
}

EVP_PKEY *tp_sign_load_private(const char *path, char *err, size_t errlen)
{
    BIO *b = BIO_new_file(path, "r");
    if (!b) {
        snprintf(err, errlen, "%s: cannot be read", path);
        ERR_clear_error();
        return NULL;
    }
    EVP_PKEY *k = PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL);
    BIO_free(b);
    if (!k) {
        char why[200];
        openssl_error(why, sizeof why);
        snprintf(err, errlen, "%s: not an unencrypted PEM private key (%s)", path, why);
        return NULL;
    }
    return ed25519_only(k, path, err, errlen);
}

EVP_PKEY *tp_sign_load_public(const char *path, char *err, size_t errlen)
{
    size_t len;
    char *text = tp_read_all(path, &len);
    if (!text) {
        snprintf(err, errlen, "%s: cannot be read", path);
        return NULL;
    }
    /* a public key, or a private key (which holds its public key) */
    BIO *b = BIO_new_mem_buf(text, (int)len);
    EVP_PKEY *k = b ? PEM_read_bio_PUBKEY(b, NULL, no_passphrase, NULL) : NULL;
    BIO_free(b);
    if (!k) {
        ERR_clear_error();
        b = BIO_new_mem_buf(text, (int)len);
        k = b ? PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL) : NULL;
        BIO_free(b);
    }
    free(text);
    if (!k) {
        char why[200];
        openssl_error(why, sizeof why);
        snprintf(err, errlen, "%s: not a PEM public key (%s)", path, why);
        return NULL;
    }
    return ed25519_only(k, path, err, errlen);
}

static int raw_public(EVP_PKEY *key, unsigned char raw[32])
{
    size_t n = 32;
    return EVP_PKEY_get_raw_public_key(key, raw, &n) == 1 && n == 32 ? 0 : -1;
}

static void hex(const unsigned char *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static int unhex(const char *s, unsigned char *out, size_t n)
{
    if (!s || strlen(s) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[2 * i + (size_t)k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                return -1;
            v = v * 16 + (unsigned)d;
        }
        out[i] = (unsigned char)v;
    }
    return 0;
}

static void fingerprint_of(const unsigned char raw[32], char full[65], char out[32])
{
    tp_sha256_hex(raw, 32, full);
    snprintf(out, 32, "SHA256:%.16s", full);
}

void tp_sign_fingerprint(EVP_PKEY *key, char out[32])
{
    unsigned char raw[32];
    char full[65];
    if (raw_public(key, raw) != 0) {
        snprintf(out, 32, "(no public key)");
        return;
    }
    fingerprint_of(raw, full, out);
}

/* The signed text: what the signature covers, by SHA-256. */
static int message(const char *dir, char *out, size_t len, char *err, size_t errlen)
{
    char path[4200], m[65], t[65];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    int ok = tp_sha256_file(path, m) == 0;
    snprintf(path, sizeof path, "%s/timing.json", dir);
    ok = ok && tp_sha256_file(path, t) == 0;
    if (!ok) {
        snprintf(err, errlen, "manifest.json or timing.json cannot be read");
        return -1;
    }
    snprintf(out, len, FORMAT "\nmanifest.json %s\ntiming.json %s\n", m, t);
    return 0;
}

int tp_sign_bundle(const char *dir, EVP_PKEY *key, char *err, size_t errlen)
{
    char msg[300], pub[65], fpr_full[65], fpr[32], sighex[129], path[4200];
    unsigned char raw[32], sig[64];
    size_t siglen = sizeof sig;
    if (message(dir, msg, sizeof msg, err, errlen) != 0)
        return -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    /* Ed25519 signs the message itself (PureEdDSA): no digest is named */
    int ok = ctx && raw_public(key, raw) == 0 && EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) == 1 &&
             EVP_DigestSign(ctx, sig, &siglen, (const unsigned char *)msg, strlen(msg)) == 1 && siglen == 64;
    EVP_MD_CTX_free(ctx);
    if (!ok) {
        char why[200];
        openssl_error(why, sizeof why);
        snprintf(err, errlen, "signing failed: %s", why);
        return -1;
    }
    hex(raw, 32, pub);
    hex(sig, 64, sighex);
    fingerprint_of(raw, fpr_full, fpr);
    json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "format", FORMAT, "algorithm", "Ed25519", "public_key", pub,
                          "public_key_sha256", fpr_full, "message", msg, "signature", sighex);
    char *text = j ? json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(1)) : NULL;
    json_decref(j);
    snprintf(path, sizeof path, "%s/signature.json", dir);
    size_t n = text ? strlen(text) : 0;
    if (text)
        text[n++] = '\n'; /* replaces the terminator: written by length */
    ok = text && tp_write_all(path, text, n) == 0;
    free(text);
    if (!ok)
        snprintf(err, errlen, "cannot write %s", path);
    return ok ? 0 : -1;
}

static int known_key(const char *k)
{
    static const char *const keys[] = {"format", "algorithm", "public_key", "public_key_sha256", "message", "signature"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(k, keys[i]) == 0)
            return 1;
    return 0;
}

int tp_sign_verify(const char *dir, EVP_PKEY *trusted, char signer[32], char *err, size_t errlen)
{
    char path[4200], msg[300], full[65];
    snprintf(signer, 32, "(none)");
    snprintf(path, sizeof path, "%s/signature.json", dir);
    FILE *probe = fopen(path, "rb");
    if (!probe && errno == ENOENT) {
        snprintf(err, errlen, "no signature.json: the bundle is unsigned");
        return 1;
    }
    if (probe)
        fclose(probe);
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!j || !json_is_object(j)) {
        snprintf(err, errlen, "not a signature file: %s", j ? "not an object" : je.text);
        json_decref(j);
        return 2;
    }
    const char *k;
    json_t *v;
    int rc = 2;
    json_object_foreach(j, k, v) if (!known_key(k))
    {
        snprintf(err, errlen, "key \"%.100s\", which a tolproof signature does not have", k);
        goto done;
    }
    const char *fmt = json_string_value(json_object_get(j, "format"));
    const char *alg = json_string_value(json_object_get(j, "algorithm"));
    const char *fp = json_string_value(json_object_get(j, "public_key_sha256"));
    const char *said = json_string_value(json_object_get(j, "message"));
    unsigned char raw[32], sig[64], want[32];
    if (!fmt || strcmp(fmt, FORMAT) != 0 || !alg || strcmp(alg, "Ed25519") != 0) {
        snprintf(err, errlen, "not a \"" FORMAT "\" with algorithm Ed25519");
        goto done;
    }
    if (unhex(json_string_value(json_object_get(j, "public_key")), raw, 32) != 0 ||
        unhex(json_string_value(json_object_get(j, "signature")), sig, 64) != 0) {
        snprintf(err, errlen, "public_key or signature is not lowercase hex of 32 or 64 bytes");
        goto done;
    }
    fingerprint_of(raw, full, signer);
    if (!fp || strcmp(fp, full) != 0) {
        snprintf(err, errlen, "public_key_sha256 is not the SHA-256 of public_key");
        goto done;
    }
    if (trusted) {
        char tf[32];
        tp_sign_fingerprint(trusted, tf);
        if (raw_public(trusted, want) != 0 || memcmp(want, raw, 32) != 0) {
            snprintf(err, errlen, "signed by key %s, not by the key given with --key (%s)", signer, tf);
            goto done;
        }
    }
    if (message(dir, msg, sizeof msg, err, errlen) != 0)
        goto done;
    if (!said || strcmp(said, msg) != 0) {
        snprintf(err, errlen,
                 "it signs other bytes: manifest.json or timing.json changed after signing (their SHA-256 differ "
                 "from its message's)");
        goto done;
    }
    EVP_PKEY *key = trusted ? trusted : EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw, 32);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = key && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1 &&
             EVP_DigestVerify(ctx, sig, 64, (const unsigned char *)msg, strlen(msg)) == 1;
    EVP_MD_CTX_free(ctx);
    if (key != trusted)
        EVP_PKEY_free(key);
    ERR_clear_error();
    if (!ok) {
        snprintf(err, errlen, "the Ed25519 signature does not verify against key %s", signer);
        goto done;
    }
    snprintf(err, errlen, "a valid Ed25519 signature of manifest.json and timing.json by key %s", signer);
    rc = 0;
done:
    json_decref(j);
    return rc;
}
