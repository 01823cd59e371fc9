#include "core/tp_format.h"

#include "core/tp_fp16.h"
#include "core/tp_ieee.h"

#include <string.h>

/* ---- binary16: the codec of core/tp_fp16.c ------------------------------ */

static double b16_decode(uint32_t h) { return tp_f16_to_double((uint16_t)h); }
static uint32_t b16_encode(double x) { return tp_f16_from_double(x); }
static double b16_round(double x) { return tp_f16_to_double(tp_f16_from_double(x)); }
static uint32_t b16_next_up(uint32_t h) { return tp_f16_next_up((uint16_t)h); }
static uint32_t b16_next_down(uint32_t h) { return tp_f16_next_down((uint16_t)h); }
static int b16_is_nan(uint32_t h) { return tp_f16_is_nan((uint16_t)h); }
static int b16_is_inf(uint32_t h) { return tp_f16_is_inf((uint16_t)h); }

const tp_format tp_binary16 = {
    "binary16", TP_F16, 2, 5, 10, 11, -14, 15, TP_F16_MAX, TP_F16_MIN_NORMAL, TP_F16_MIN_SUBNORMAL,
    b16_decode, b16_encode, b16_round, b16_next_up, b16_next_down, tp_f16_ulp, b16_is_nan, b16_is_inf};

/* ---- bfloat16: the upper half of a binary32 ------------------------------
 * Written by hand, as the binary16 codec is: no Debian library offers a
 * bfloat16 codec for C. It rounds a double directly to 8 significant bits
 * (rounding through binary32 first, as the usual bit trick on a float
 * does, would round twice). */
#define EB 8
#define FB 7

static double bf_decode(uint32_t h) { return tp_ieee_decode(h & 0xffff, EB, FB); }
static uint32_t bf_encode(double x) { return tp_ieee_encode(x, EB, FB); }
static double bf_round(double x) { return tp_ieee_decode(tp_ieee_encode(x, EB, FB), EB, FB); }
static uint32_t bf_next_up(uint32_t h) { return tp_ieee_next_up(h & 0xffff, EB, FB); }
static uint32_t bf_next_down(uint32_t h) { return tp_ieee_next_down(h & 0xffff, EB, FB); }
static double bf_ulp(double x) { return tp_ieee_ulp(x, EB, FB); }
static int bf_is_nan(uint32_t h) { return tp_ieee_is_nan(h & 0xffff, EB, FB); }
static int bf_is_inf(uint32_t h) { return tp_ieee_is_inf(h & 0xffff, EB, FB); }

const tp_format tp_bfloat16 = {
    "bfloat16", TP_BF16, 2, EB, FB, 8, -126, 127, 0x1.fep127, 0x1p-126, 0x1p-133,
    bf_decode, bf_encode, bf_round, bf_next_up, bf_next_down, bf_ulp, bf_is_nan, bf_is_inf};

/* ---- binary32 -------------------------------------------------------------
 * Decoding goes through the C float type (float -> double is exact in every
 * rounding mode). Encoding cannot: (float)x rounds in the caller's mode, so
 * it uses the integer rounding of core/tp_ieee.h, which gives the same
 * bits as (float)x under FE_TONEAREST (tests/test_format.c checks). The
 * neighbours are integer steps on the pattern, as nextafterf would give. */
#define E32 8
#define F32 23

static double b32_decode(uint32_t h)
{
    float f;
    memcpy(&f, &h, sizeof f);
    return (double)f;
}
static uint32_t b32_encode(double x) { return tp_ieee_encode(x, E32, F32); }
static double b32_round(double x) { return b32_decode(tp_ieee_encode(x, E32, F32)); }
static uint32_t b32_next_up(uint32_t h) { return tp_ieee_next_up(h, E32, F32); }
static uint32_t b32_next_down(uint32_t h) { return tp_ieee_next_down(h, E32, F32); }
static double b32_ulp(double x) { return tp_ieee_ulp(x, E32, F32); }
static int b32_is_nan(uint32_t h) { return tp_ieee_is_nan(h, E32, F32); }
static int b32_is_inf(uint32_t h) { return tp_ieee_is_inf(h, E32, F32); }

const tp_format tp_binary32 = {
    "binary32", TP_F32, 4, E32, F32, 24, -126, 127, 0x1.fffffep127, 0x1p-126, 0x1p-149,
    b32_decode, b32_encode, b32_round, b32_next_up, b32_next_down, b32_ulp, b32_is_nan, b32_is_inf};

/* ---- lookup and helpers -------------------------------------------------- */

static const tp_format *const all[] = {&tp_binary16, &tp_bfloat16, &tp_binary32, NULL};

const tp_format *const *tp_formats(void) { return all; }

const tp_format *tp_format_of(tp_dtype dtype)
{
    for (int i = 0; all[i]; i++)
        if (all[i]->dtype == dtype)
            return all[i];
    return NULL;
}

const tp_format *tp_format_named(const char *name)
{
    static const char *const dtype_names[] = {"f16", "bf16", "f32"};
    for (int i = 0; name && all[i]; i++)
        if (strcmp(name, all[i]->name) == 0 || strcmp(name, dtype_names[i]) == 0)
            return all[i];
    return NULL;
}

uint32_t tp_format_bits(const tp_format *f, const void *data, int64_t i)
{
    if (f->size == 2)
        return ((const uint16_t *)data)[i];
    return ((const uint32_t *)data)[i];
}

double tp_format_load(const tp_format *f, const void *data, int64_t i) { return f->decode(tp_format_bits(f, data, i)); }

void tp_format_store(const tp_format *f, void *data, int64_t i, double x)
{
    uint32_t b = f->encode(x);
    if (f->size == 2)
        ((uint16_t *)data)[i] = (uint16_t)b;
    else
        ((uint32_t *)data)[i] = b;
}

double tp_format_ceil(const tp_format *f, double x)
{
    uint32_t b = f->encode(x);
    double v = f->decode(b);
    return v < x ? f->decode(f->next_up(b)) : v;
}

double tp_format_floor(const tp_format *f, double x)
{
    uint32_t b = f->encode(x);
    double v = f->decode(b);
    return v > x ? f->decode(f->next_down(b)) : v;
}

double tp_format_next_above(const tp_format *f, double v) { return f->decode(f->next_up(f->encode(v))); }
double tp_format_next_below(const tp_format *f, double v) { return f->decode(f->next_down(f->encode(v))); }
