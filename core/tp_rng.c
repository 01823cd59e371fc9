#include "core/tp_rng.h"

#include "core/tp_format.h"

#include <ctype.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t tp_rng_stream(const char *tensor_name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)tensor_name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

uint64_t tp_rng_u64(uint64_t seed, uint64_t stream, uint64_t counter)
{
    uint64_t k = mix64(seed ^ 0x6a09e667f3bcc909ULL) ^ mix64(stream + 0xbb67ae8584caa73bULL);
    return mix64(mix64(k ^ (counter * 0x9e3779b97f4a7c15ULL)));
}

double tp_rng_uniform(uint64_t seed, uint64_t stream, uint64_t counter)
{
    return (double)(tp_rng_u64(seed, stream, counter) >> 11) * 0x1p-53;
}

/* ---- fill expressions -------------------------------------------------- */

enum fill_kind { F_NORMAL, F_UNIFORM, F_WIDE, F_SPECIAL, F_NEAR, F_ALL, F_CONST, F_MIRROR, F_ANTIMIRROR };

typedef struct fill {
    enum fill_kind kind;
    double p[3];
    int axis;
    struct fill *base;
} fill;

typedef struct {
    const char *s;
    const char *err;
} cursor;

static void skip_ws(cursor *c)
{
    while (isspace((unsigned char)*c->s))
        c->s++;
}

static int eat(cursor *c, char ch)
{
    skip_ws(c);
    if (*c->s != ch)
        return 0;
    c->s++;
    return 1;
}

static int parse_num(cursor *c, double *v)
{
    skip_ws(c);
    char *end;
    *v = strtod(c->s, &end);
    if (end == c->s || !isfinite(*v))
        return 0;
    c->s = end;
    return 1;
}

static void fill_free(fill *f)
{
    if (f) {
        fill_free(f->base);
        free(f);
    }
}

static fill *parse_fill(cursor *c);

static fill *parse_args(cursor *c, fill *f, int nnum, int with_axis_base)
{
    if (!eat(c, '(')) {
        c->err = "'(' after the generator name";
        return NULL;
    }
    int i = 0;
    if (with_axis_base) {
        double ax;
        if (!parse_num(c, &ax) || ax != floor(ax) || ax < 0 || ax > 3) {
            c->err = "an axis (0..3) as the first argument";
            return NULL;
        }
        f->axis = (int)ax;
        if (!eat(c, ',')) {
            c->err = "',' then a nested fill";
            return NULL;
        }
        f->base = parse_fill(c);
        if (!f->base)
            return NULL;
        if (nnum > 0 && !eat(c, ',')) {
            c->err = "',' then a number";
            return NULL;
        }
    }
    for (; i < nnum; i++) {
        if (i > 0 && !eat(c, ',')) {
            c->err = "',' between arguments";
            return NULL;
        }
        if (!parse_num(c, &f->p[i])) {
            c->err = "a finite number";
            return NULL;
        }
    }
    if (!eat(c, ')')) {
        c->err = "')' closing the argument list";
        return NULL;
    }
    return f;
}

static fill *parse_fill(cursor *c)
{
    static const struct {
        const char *name;
        enum fill_kind kind;
        int nnum, nested;
    } forms[] = {
        {"normal", F_NORMAL, 2, 0},   {"uniform", F_UNIFORM, 2, 0}, {"wide", F_WIDE, 2, 0},
        {"special", F_SPECIAL, -1, 0}, {"near", F_NEAR, 2, 0},      {"all_f16", F_ALL, -1, 0},
        {"const", F_CONST, 1, 0},     {"mirror", F_MIRROR, 0, 1},   {"antimirror", F_ANTIMIRROR, 1, 1},
    };
    skip_ws(c);
    size_t n = 0;
    while (isalnum((unsigned char)c->s[n]) || c->s[n] == '_')
        n++;
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        if (strlen(forms[k].name) != n || strncmp(forms[k].name, c->s, n) != 0)
            continue;
        c->s += n;
        fill *f = calloc(1, sizeof *f);
        f->kind = forms[k].kind;
        if (forms[k].nnum < 0)
            return f;
        if (!parse_args(c, f, forms[k].nnum, forms[k].nested)) {
            fill_free(f);
            return NULL;
        }
        if (f->kind == F_WIDE && (f->p[0] != floor(f->p[0]) || f->p[1] != floor(f->p[1]) ||
                                  f->p[0] > f->p[1] || f->p[0] < -30 || f->p[1] > 16)) {
            c->err = "integer exponents -30 <= emin <= emax <= 16 in wide(emin, emax)";
            fill_free(f);
            return NULL;
        }
        if ((f->kind == F_NORMAL || f->kind == F_NEAR) && f->p[1] < 0) {
            c->err = "a non-negative spread";
            fill_free(f);
            return NULL;
        }
        return f;
    }
    c->err = "one of normal(mu, sigma), uniform(lo, hi), wide(emin, emax), special, near(v, w), "
             "all_f16, const(v), mirror(axis, F), antimirror(axis, F, sigma)";
    return NULL;
}

static fill *parse_all(const char *text, char *err, size_t errlen)
{
    cursor c = {text, NULL};
    fill *f = parse_fill(&c);
    if (f) {
        skip_ws(&c);
        if (*c.s) {
            c.err = "nothing after the fill expression";
            fill_free(f);
            f = NULL;
        }
    }
    if (!f)
        snprintf(err, errlen, "bad fill \"%s\" at \"%.20s\": expected %s", text, c.s, c.err);
    return f;
}

int tp_fill_parse_check(const char *text, char *err, size_t errlen)
{
    fill *f = parse_all(text, err, errlen);
    if (!f)
        return -1;
    fill_free(f);
    return 0;
}

/* Irwin-Hall: a sum of 12 uniforms has mean 6 and variance 1; it uses
 * only additions, so it is bit-reproducible where Box-Muller's log and
 * cos are not. */
static double std_normal(uint64_t seed, uint64_t stream, uint64_t base)
{
    double s = 0;
    for (int k = 0; k < 12; k++)
        s += tp_rng_uniform(seed, stream, base + (uint64_t)k);
    return s - 6.0;
}

static const double special_values[] = {0.0,         -0.0,        0x1p-24,  -0x1p-24,
                                        0x3ffp-24,   -0x3ffp-24,  0x1p-14,  -0x1p-14,
                                        1.0,         -1.0,        65504.0,  -65504.0,
                                        0.5,         -0.5,        32768.0,  -32768.0};

/* The value of one element, before any mirror logic. Each element draws
 * from its own block of 16 counters. */
static double draw(const fill *f, uint64_t seed, uint64_t stream, uint64_t i)
{
    uint64_t base = i * 16;
    switch (f->kind) {
    case F_NORMAL:
        return f->p[0] + f->p[1] * std_normal(seed, stream, base);
    case F_UNIFORM:
        return f->p[0] + (f->p[1] - f->p[0]) * tp_rng_uniform(seed, stream, base);
    case F_NEAR:
        return f->p[0] + f->p[1] * (2.0 * tp_rng_uniform(seed, stream, base) - 1.0);
    case F_WIDE: {
        uint64_t r = tp_rng_u64(seed, stream, base);
        int span = (int)(f->p[1] - f->p[0]) + 1;
        int e = (int)f->p[0] + (int)((r >> 1) % (uint64_t)span);
        double m = 1.0 + tp_rng_uniform(seed, stream, base + 1);
        double v = ldexp(m, e);
        return (r & 1) ? -v : v;
    }
    case F_SPECIAL: {
        uint64_t r = tp_rng_u64(seed, stream, base);
        return special_values[r % (sizeof special_values / sizeof special_values[0])];
    }
    case F_ALL: {
        /* finite patterns: 0x0000..0x7bff and 0x8000..0xfbff (63488) */
        uint64_t k = i % 63488;
        uint16_t h = k < 31744 ? (uint16_t)k : (uint16_t)(0x8000 + (k - 31744));
        return tp_binary16.decode(h);
    }
    case F_CONST:
        return f->p[0];
    default:
        return 0;
    }
}

/* Elements are stored in the tensor's format (core/tp_format.h), the drawn
 * double rounded to nearest even. */
typedef struct {
    void *data;
    const tp_format *fmt;
    int saturate; /* overflow gives +-max_finite instead of +-inf */
} sink;

/* A drawn value beyond the range of a 16-bit format saturates at its
 * largest finite value (+-65504 in binary16): inputs are always finite, so
 * every case has a finite exact result to check. binary32 keeps its
 * overflow to infinity. */
static void put(const sink *o, int64_t i, double v)
{
    uint32_t b = o->fmt->encode(v);
    if (o->saturate && o->fmt->is_inf(b))
        b = o->fmt->encode(v > 0 ? o->fmt->max_finite : -o->fmt->max_finite);
    if (o->fmt->size == 2)
        ((uint16_t *)o->data)[i] = (uint16_t)b;
    else
        ((uint32_t *)o->data)[i] = b;
}

static double get(const sink *o, int64_t i) { return tp_format_load(o->fmt, o->data, i); }

static void fill_rec(const sink *out, int rank, const int64_t *shape, const fill *f, uint64_t seed,
                     uint64_t stream)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    if (f->kind != F_MIRROR && f->kind != F_ANTIMIRROR) {
        for (int64_t i = 0; i < n; i++)
            put(out, i, draw(f, seed, stream, (uint64_t)i));
        return;
    }
    fill_rec(out, rank, shape, f->base, seed, stream);
    int64_t inner = 1;
    for (int d = f->axis + 1; d < rank; d++)
        inner *= shape[d];
    int64_t ext = shape[f->axis], half = ext / 2, outer = n / (ext * inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t p = half; p < 2 * half; p++)
            for (int64_t q = 0; q < inner; q++) {
                int64_t dst = (o * ext + p) * inner + q, src = (o * ext + p - half) * inner + q;
                if (f->kind == F_MIRROR) {
                    put(out, dst, get(out, src));
                } else {
                    double z = std_normal(seed, stream ^ 0x5bd1e995ULL, (uint64_t)dst * 16);
                    put(out, dst, -get(out, src) + f->p[0] * z);
                }
            }
}

static int fill_float(const sink *out, int rank, const int64_t *shape, const char *text, uint64_t seed,
                      const char *tensor_name, char *err, size_t errlen)
{
    fill *f = parse_all(text, err, errlen);
    if (!f)
        return -1;
    for (fill *g = f; g; g = g->base)
        if ((g->kind == F_MIRROR || g->kind == F_ANTIMIRROR) && g->axis >= rank) {
            snprintf(err, errlen, "fill \"%s\": axis %d but tensor %s has rank %d", text, g->axis,
                     tensor_name, rank);
            fill_free(f);
            return -1;
        }
    fill_rec(out, rank, shape, f, seed, tp_rng_stream(tensor_name));
    fill_free(f);
    return 0;
}

int tp_fill_float(const tp_format *fmt, void *out, int rank, const int64_t *shape, const char *text, uint64_t seed,
                  const char *tensor_name, char *err, size_t errlen)
{
    sink o = {out, fmt, fmt->size == 2};
    /* strtod and the draws' + and * follow the rounding mode: run them in
     * round-to-nearest, so that the bits do not depend on the caller's. */
    const int saved = fegetround();
    fesetround(FE_TONEAREST);
    int rc = fill_float(&o, rank, shape, text, seed, tensor_name, err, errlen);
    fesetround(saved);
    return rc;
}

int tp_fill_f16(uint16_t *out, int rank, const int64_t *shape, const char *text, uint64_t seed,
                const char *tensor_name, char *err, size_t errlen)
{
    return tp_fill_float(&tp_binary16, out, rank, shape, text, seed, tensor_name, err, errlen);
}

int tp_fill_f32(float *out, int rank, const int64_t *shape, const char *text, uint64_t seed,
                const char *tensor_name, char *err, size_t errlen)
{
    return tp_fill_float(&tp_binary32, out, rank, shape, text, seed, tensor_name, err, errlen);
}
/* ---- index fills ------------------------------------------------------- */

int tp_fill_int(void *out, int dtype_i64, int64_t numel, const char *text, uint64_t seed,
                const char *tensor_name, char *err, size_t errlen)
{
    long long a = 0, b = 0;
    int used = 0;
    enum { RANDINT, ZIPF, CONST } kind;
    if (sscanf(text, " randint ( %lld , %lld ) %n", &a, &b, &used) == 2 && text[used] == 0 && a < b)
        kind = RANDINT;
    else if (sscanf(text, " zipf ( %lld ) %n", &a, &used) == 1 && text[used] == 0 && a >= 1 && a <= (1 << 24))
        kind = ZIPF;
    else if (sscanf(text, " const ( %lld ) %n", &a, &used) == 1 && text[used] == 0)
        kind = CONST;
    else {
        snprintf(err, errlen, "bad index fill \"%s\": expected randint(lo, hi) with lo < hi, zipf(n) with "
                              "1 <= n <= 2^24, or const(v)", text);
        return -1;
    }
    uint64_t stream = tp_rng_stream(tensor_name);
    double *cdf = NULL;
    const int saved = fegetround(); /* the harmonic sums in round-to-nearest, whatever the caller's mode */
    fesetround(FE_TONEAREST);
    if (kind == ZIPF) {
        cdf = malloc((size_t)a * sizeof *cdf);
        double h = 0;
        for (long long k = 0; k < a; k++)
            cdf[k] = h += 1.0 / (double)(k + 1);
    }
    for (int64_t i = 0; i < numel; i++) {
        long long v = a;
        if (kind == RANDINT)
            v = a + (long long)(tp_rng_u64(seed, stream, (uint64_t)i * 16) % (uint64_t)(b - a));
        else if (kind == ZIPF) {
            double u = tp_rng_uniform(seed, stream, (uint64_t)i * 16) * cdf[a - 1];
            long long lo = 0, hi = a - 1; /* first k with cdf[k] > u */
            while (lo < hi) {
                long long mid = lo + (hi - lo) / 2;
                if (cdf[mid] > u)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            v = lo;
        }
        if (dtype_i64)
            ((int64_t *)out)[i] = v;
        else
            ((int32_t *)out)[i] = (int32_t)v;
    }
    free(cdf);
    fesetround(saved);
    return 0;
}
