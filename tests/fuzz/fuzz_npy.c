/* libFuzzer target: the .npy reader (core/tp_npy.c, core/tp_npy_header.c),
 * through the file path every caller uses, and the header parser alone.
 * Seeds: the recorded outputs and the NumPy fixtures (tests/fuzz/seeds.sh). */
#include "tests/fuzz/fuzz_util.h" /* first: it asks for _GNU_SOURCE */
#include "core/tp_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tp_dtype dt;
    int rank;
    int64_t shape[4];
    void *out = NULL;
    char err[1200];
    if (tp_npy_read(fuzz_file("x.npy", data, size), &dt, &rank, shape, &out, err, sizeof err) == 0) {
        /* a file read is exactly its shape's bytes: touch every one */
        size_t n = tp_dtype_size(dt);
        for (int d = 0; d < rank; d++)
            n *= (size_t)shape[d];
        volatile unsigned char sum = 0;
        for (size_t i = 0; i < n; i++)
            sum ^= ((unsigned char *)out)[i];
        (void)sum;
    } else if (!err[0])
        abort(); /* a refusal always says why */
    free(out);
    /* the header bytes after the preamble, as the parser sees them */
    if (size > 10) {
        tp_npy_header h;
        tp_npy_header_parse((const char *)data + 10, size - 10, &h, err, sizeof err);
    }
    return 0;
}
