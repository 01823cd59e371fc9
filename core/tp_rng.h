/* Counter-based random numbers and the input generators ("fills") that
 * contracts name.
 *
 * The generator is stateless: element i of tensor T in a case with seed s
 * gets its bits from
 *     tp_rng_u64(s, tp_rng_stream(T), c)
 * for one or more counters c derived from i. Each value is
 *     mix64(mix64(s ^ 0x6a09e667f3bcc909) ^ mix64(stream + 0xbb67ae8584caa73b) ^ (c * 0x9e3779b97f4a7c15))
 * finished by mix64 again, where mix64 is the SplitMix64 finaliser
 * (xor-shift 30, *0xbf58476d1ce4e5b9, xor-shift 27, *0x94d049bb133111eb,
 * xor-shift 31) and stream is the 64-bit FNV-1a hash of the tensor name.
 * Only integer operations and IEEE-754 +, * and ldexp are used, so a case
 * gives the same bits on every machine: (contract, case, seed) is enough
 * to reproduce every input.
 *
 * Fill grammar (values rounded to the tensor's format, binary16, bfloat16 or
 * binary32, ties to even; values beyond a 16-bit format saturate at its
 * largest finite value, +-65504 in binary16, so generated inputs are always
 * finite). Every fill gives the same bits whatever the caller's rounding
 * mode (it runs in round-to-nearest and restores the caller's mode):
 *   normal(mu, sigma)   mu + sigma * z, z the sum of 12 uniforms minus 6
 *                       (Irwin-Hall: mean 0, variance 1, |z| <= 6; no libm)
 *   uniform(lo, hi)     lo + (hi - lo) * u, u uniform in [0, 1)
 *   wide(emin, emax)    random sign, (1 + u) * 2^e, e uniform integer in
 *                       [emin, emax]: magnitudes spread evenly over binades
 *                       (-30 <= emin <= emax <= 16 for binary16,
 *                       -140 ... 127 for bfloat16, -155 ... 126 for
 *                       binary32)
 *   special             values drawn from: +-0, +-2^-24, +-(2^-14 - 2^-24),
 *                       +-2^-14, +-1, +-65504, +-0.5, +-2^15; in a bfloat16
 *                       tensor its own: +-0, +-2^-133, +-(2^-126 - 2^-133),
 *                       +-2^-126, +-1, +-0x1.fep127 (its largest), +-0.5,
 *                       +-2^127
 *   near(v, w)          uniform in [v - w, v + w]
 *   all_f16             element i is the i-th finite binary16 pattern
 *                       (cycling through all 63488 finite patterns)
 *   all_bf16            element i is the i-th finite bfloat16 pattern
 *                       (cycling through all 65280; bf16 and f32 tensors)
 *   const(v)            every element equals v
 *   mirror(axis, F)     first half along axis from F; element at position
 *                       p >= h (h = extent/2) copies position p - h
 *   antimirror(axis, F, sigma)
 *                       first half from F; element at p >= h is
 *                       -x[p - h] + sigma * z (z as in normal): sums over the
 *                       axis nearly cancel
 *
 * Index tensors (i32, i64) take one of (integer arguments only):
 *   randint(lo, hi)     uniform integer with lo <= v < hi
 *   zipf(n)             v in [0, n) with P(v) proportional to 1/(v+1): a
 *                       few rows receive most of the indices (computed by
 *                       inverting the harmonic CDF with + and / only)
 *   const(v)
 */
#ifndef TP_RNG_H
#define TP_RNG_H
#include "core/tp_dtype.h"
#include "core/tp_grammar.h"
#include "core/tp_format.h"

#include <stddef.h>
#include <stdint.h>

uint64_t tp_rng_stream(const char *tensor_name);
uint64_t tp_rng_u64(uint64_t seed, uint64_t stream, uint64_t counter);
/* Uniform in [0, 1) with 53 random bits. */
double tp_rng_uniform(uint64_t seed, uint64_t stream, uint64_t counter);

/* The forms of the grammar above, one per generator: its name, its
 * arguments as messages write them ("mu, sigma"; NULL: no argument list),
 * their number and kinds (sig: n a number, i an integer, a an axis, f a
 * nested fill), the dtypes it fills (TP_DTYPE_BIT set) and, for index
 * fills, the values it draws. Terminated by an entry whose name is NULL;
 * the registry publishes it. */
typedef struct {
    const char *name;
    const char *args;
    int arity;
    const char *sig;
    unsigned dtypes;
    const char *note;
} tp_fill_form;
const tp_fill_form *tp_fill_forms(void);

/* Checks a contract's fill for a tensor of this dtype and rank (rank < 0:
 * any rank): 0, or -1 with what is wrong and the forms that dtype takes
 * in *e. The generator calls it through oracles/registry_tool.c. */
int tp_fill_check(const char *fill, tp_dtype dtype, int rank, tp_grammar_error *e);

/* Check a binary16 fill without filling anything. Returns 0 when it is
 * valid; otherwise writes what is wrong and what was expected into err. */
int tp_fill_parse_check(const char *fill, char *err, size_t errlen);

/* Fill a tensor stored in format fmt (binary16, bfloat16, binary32) of the
 * given shape (row-major) from a fill expression. Returns 0, or -1 with a
 * message in err. */
int tp_fill_float(const tp_format *fmt, void *out, int rank, const int64_t *shape, const char *fill, uint64_t seed,
                  const char *tensor_name, char *err, size_t errlen);

/* The same for a binary16 tensor. */
int tp_fill_f16(uint16_t *out, int rank, const int64_t *shape, const char *fill,
                uint64_t seed, const char *tensor_name, char *err, size_t errlen);

/* The same fills for a binary32 tensor: each drawn value rounded to
 * binary32 instead of binary16 (all_f16 and special still give binary16
 * values, which binary32 holds exactly; all_bf16 bfloat16 values). */
int tp_fill_f32(float *out, int rank, const int64_t *shape, const char *fill, uint64_t seed,
                const char *tensor_name, char *err, size_t errlen);

/* Fill an index tensor (dtype TP_I32 or TP_I64, passed as an int). The
 * grammar is the one above, restricted to the index forms. */
int tp_fill_int(void *out, int dtype_i64, int64_t numel, const char *fill, uint64_t seed,
                const char *tensor_name, char *err, size_t errlen);

#endif
