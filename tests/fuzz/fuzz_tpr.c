/* libFuzzer target: the .tpr codec (cli/tp_residual_codec.c): parse, then
 * decode against predictions derived from the input (zero, or every
 * pattern from a byte of it), for files of at most 2^20 elements, as a
 * caller sizes its predictions from the plan, never from the file. A
 * decode that succeeds must give header + count * size bytes whose SHA-256
 * is the stored one. Seeds: the small recorded .tpr files
 * (tests/fuzz/seeds.sh). */
#include "tests/fuzz/fuzz_util.h" /* first: it asks for _GNU_SOURCE */
#include "cli/tp_residual_codec.h"

#include <openssl/sha.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tp_residual_file f;
    char err[600];
    if (tp_residual_parse(data, size, &f, err, sizeof err) != 0) {
        if (!err[0])
            abort(); /* a refusal always says why */
        return 0;
    }
    if (f.count > ((uint64_t)1 << 20))
        return 0;
    size_t n = (size_t)f.count;
    uint32_t *pred = malloc((n ? n : 1) * sizeof *pred);
    for (size_t i = 0; i < n; i++)
        pred[i] = size ? (uint32_t)data[i % size] * 0x0101u : 0;
    unsigned char *npy = NULL;
    size_t len = 0;
    int rc = tp_residual_decode(&f, pred, &npy, &len, err, sizeof err);
    if (rc == 0) {
        unsigned char sha[32];
        SHA256(npy, len, sha);
        if (len != f.header_len + n * f.size || memcmp(sha, f.sha256, 32) != 0)
            abort();
    } else if (!err[0] || npy)
        abort();
    free(npy);
    free(pred);
    return 0;
}
