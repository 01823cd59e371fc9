/* Number formats as descriptors: what an op needs to know about the format
 * of a tensor (binary16, bfloat16, binary32) without naming it. An op asks
 * the format of the tensor it writes,
 *     const tp_format *f = tp_format_of(out->dtype);
 *     ref->allow_lo = f->round(lo);
 * and works for every format it declares (tp_op.outputs).
 *
 * Every function here gives the same result whatever the caller's rounding
 * mode (core/tp_ieee.h says why; tests/test_format.c checks all four).
 * binary16 and bfloat16 are tested on all 65536 patterns against MPFR,
 * binary32 on samples (tests/test_format.c). */
#ifndef TP_FORMAT_H
#define TP_FORMAT_H
#include "core/tp_dtype.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tp_format {
    const char *name;         /* "binary16", "bfloat16", "binary32" */
    tp_dtype dtype;           /* the tensor dtype stored in it: TP_F16, TP_BF16, TP_F32 */
    size_t size;              /* bytes per element: 2, 2, 4 */
    int exp_bits, frac_bits;  /* storage layout: 5/10, 8/7, 8/23 */
    int precision;            /* significand bits, the implicit one included: 11, 8, 24 */
    int emin, emax;           /* exponents of the smallest normal and of the largest finite binade */
    double max_finite;        /* (2 - 2^(1-precision)) 2^emax: 65504, ~3.39e38, ~3.40e38 */
    double min_normal;        /* 2^emin */
    double min_subnormal;     /* 2^(emin + 1 - precision): 2^-24, 2^-133, 2^-149 */
    /* Bit codec. Patterns are held in the low `8 * size` bits of a uint32_t. */
    double (*decode)(uint32_t bits); /* the exact value; NaN patterns give a NaN */
    uint32_t (*encode)(double x);    /* round to nearest, ties to even, gradual underflow, overflow
                                      * to infinity as IEEE 754 says; NaN gives the quiet NaN */
    double (*round)(double x);       /* decode(encode(x)): x rounded to the format, as a double */
    /* Neighbours in the format's order (-inf .. -0 +0 .. +inf); +inf for
     * next_up, -inf for next_down and NaN are returned unchanged. */
    uint32_t (*next_up)(uint32_t bits);
    uint32_t (*next_down)(uint32_t bits);
    /* Unit in the last place at magnitude |x|: the spacing of the format's
     * values in x's binade; min_subnormal below min_normal; the last finite
     * spacing at and above max_finite. */
    double (*ulp)(double x);
    int (*is_nan)(uint32_t bits);
    int (*is_inf)(uint32_t bits);
} tp_format;

extern const tp_format tp_binary16, tp_bfloat16, tp_binary32;

/* The format of a tensor dtype; NULL for the integer dtypes. */
const tp_format *tp_format_of(tp_dtype dtype);
/* A format by its name ("binary16") or its dtype's name ("f16"); NULL if
 * there is none. */
const tp_format *tp_format_named(const char *name);
/* Every format, NULL-terminated. */
const tp_format *const *tp_formats(void);

/* Element i of a row-major tensor stored in format f: its pattern, its
 * value; store rounds x to f. */
uint32_t tp_format_bits(const tp_format *f, const void *data, int64_t i);
double tp_format_load(const tp_format *f, const void *data, int64_t i);
void tp_format_store(const tp_format *f, void *data, int64_t i, double x);

/* The smallest value of f that is >= x (+inf beyond max_finite), the
 * largest that is <= x: x rounded up or down to f. NaN stays NaN. */
double tp_format_ceil(const tp_format *f, double x);
double tp_format_floor(const tp_format *f, double x);

/* The value of f next above (below) v, v a value of f: the neighbours of
 * +-0 are the smallest subnormals, +inf stays +inf above (-inf below). */
double tp_format_next_above(const tp_format *f, double v);
double tp_format_next_below(const tp_format *f, double v);

#endif
