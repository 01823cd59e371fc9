#include "core/tp_sha256.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

static void hex(const unsigned char md[32], char out[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 15];
    }
    out[64] = 0;
}

void tp_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
    hex(md, out);
}

int tp_sha256_file(const char *path, char out[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    unsigned char buf[1 << 16];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = EVP_DigestUpdate(ctx, buf, n);
    ok = ok && !ferror(f);
    fclose(f);
    unsigned char md[32];
    unsigned int mdlen = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return -1;
    hex(md, out);
    return 0;
}

void tp_sha256_hex2(const void *a, size_t alen, const void *b, size_t blen, char out[65])
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) && EVP_DigestUpdate(ctx, a, alen) &&
             EVP_DigestUpdate(ctx, b, blen) && EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    if (!ok)
        memset(md, 0, sizeof md); /* only when OpenSSL cannot allocate a context */
    hex(md, out);
}
