/* The compact form of a recorded output tensor (`.tpr`, "tolproof
 * residuals"): its .npy file, byte for byte, as the header bytes verbatim
 * and, per element, the signed distance in the format's total order from a
 * predicted bit pattern, entropy-coded, with the SHA-256 of the .npy file.
 *
 * The codec knows nothing of ops or plans: the caller supplies the
 * predicted patterns (cli/tp_packed_output.c: the output format's rounding
 * of the op's exact reference, which a replay computes anyway), and the
 * decoder re-creates the .npy bytes from the same predictions. With a
 * different prediction the decoded bytes differ, and the SHA-256 check
 * turns that into an error, never into a different tensor.
 *
 * Lossless for every bit pattern without escapes: a pattern's ordinal is
 * a bijection of all 2^(8*size) patterns onto integers that follows the
 * order of values (-NaN payloads < -inf < ... < -0 < +0 < ... < +inf <
 * +NaN payloads), so that any pattern, NaN payloads and signed zeros
 * included, is its predicted pattern's ordinal plus the stored distance.
 *
 * File layout (integers little-endian):
 *   8  magic "TPRES1\r\n"
 *   1  element size in bytes (2: binary16 / bfloat16, 4: binary32)
 *   1  predictor: 1 the format's rounding of the op's exact reference,
 *      0 none (the payload is the elements' bytes as they are)
 *   2  zero
 *   4  H: length of the .npy header (everything before the data)
 *   8  N: element count
 *   8  P: length of the compressed distances
 *   32 SHA-256 of the .npy file (H + N * size bytes)
 *   H  the .npy header, verbatim
 *   P  zlib stream of the distances, zigzag-mapped, as LEB128 varints
 *      (predictor 1), or of the N * size data bytes (predictor 0)
 * and nothing after it. The encoder writes predictor 0 where that is
 * smaller: outputs far from the reference (a kernel wrong on purpose, a
 * sign error) do not become larger than their .npy, and do not depend on
 * the reference to decode. */
#ifndef TP_RESIDUAL_CODEC_H
#define TP_RESIDUAL_CODEC_H
#include <stddef.h>
#include <stdint.h>

#define TP_RESIDUAL_MAGIC "TPRES1\r\n"
#define TP_RESIDUAL_FIXED 64 /* bytes before the .npy header */
#define TP_RESIDUAL_PREDICT_NONE 0
#define TP_RESIDUAL_PREDICT_EXACT 1

/* The position of a pattern in the format's total order (see above);
 * `size` is 2 or 4. tp_residual_pattern is its inverse. */
int64_t tp_residual_ordinal(uint32_t bits, unsigned size);
uint32_t tp_residual_pattern(int64_t ordinal, unsigned size);

/* Encodes the .npy file npy[0 .. len-1], whose last n * size bytes are its
 * elements (little-endian), against pred[0 .. n-1], or without prediction
 * where that is smaller. *out is malloc'd. 0, or -1 with a message in err. */
int tp_residual_encode(const unsigned char *npy, size_t len, unsigned size, const uint32_t *pred, size_t n,
                       unsigned char **out, size_t *outlen, char *err, size_t errlen);

/* A parsed file: pointers into the caller's buffer. */
typedef struct {
    unsigned size, predictor;
    size_t header_len;
    uint64_t count;
    unsigned char sha256[32];
    const unsigned char *header, *payload;
    size_t payload_len;
} tp_residual_file;

/* Checks the fixed part and the lengths of buf[0 .. len-1] (nothing read
 * beyond it, no allocation from its numbers). 0, or -1 with what is wrong
 * (after which part, expected what) in err. */
int tp_residual_parse(const unsigned char *buf, size_t len, tp_residual_file *f, char *err, size_t errlen);

/* Re-creates the .npy bytes of f from pred[0 .. f->count-1] (not read,
 * and may be NULL, for predictor 0; the caller sizes it from what it
 * expects f->count to be, never from f->count alone) and checks
 * them against f->sha256. *npy is malloc'd (*len bytes). 0; -1 with err
 * for a corrupt payload; -2 with err when the bytes decode but their
 * SHA-256 is not the recorded one (a different prediction). */
int tp_residual_decode(const tp_residual_file *f, const uint32_t *pred, unsigned char **npy, size_t *len, char *err,
                       size_t errlen);
#endif
