#include "core/tp_rng.h"

#include "core/tp_format.h"
#include "core/tp_op.h" /* TP_MAX_RANK */

#include <ctype.h>
#include <errno.h>
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

enum fill_kind {
    F_NORMAL, F_UNIFORM, F_WIDE, F_SPECIAL, F_NEAR, F_ALL, F_ALL_BF16, F_RANDINT, F_ZIPF, F_CONST, F_MIRROR, F_ANTIMIRROR
};

/* bf16 tensors draw the same values, rounded to bfloat16, except special,
 * which draws bfloat16's own (all_f16 gives binary16 values, which
 * bfloat16 holds only to 8 bits) */
#define FLOATS (TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_F32) | TP_DTYPE_BIT(TP_BF16))
#define HOLD_BF16 (TP_DTYPE_BIT(TP_F32) | TP_DTYPE_BIT(TP_BF16)) /* every bfloat16 value exactly */
#define INDICES (TP_DTYPE_BIT(TP_I32) | TP_DTYPE_BIT(TP_I64))

/* The grammar, one row per form, in the order messages list them; the
 * kind of a row is its index (enum fill_kind). */
static const tp_fill_form forms[] = {
    {"normal", "mu, sigma", 2, "nn", FLOATS, NULL},
    {"uniform", "lo, hi", 2, "nn", FLOATS, NULL},
    {"wide", "emin, emax", 2, "ii", FLOATS, NULL},
    {"special", NULL, 0, "", FLOATS, NULL},
    {"near", "v, w", 2, "nn", FLOATS, NULL},
    {"all_f16", NULL, 0, "", FLOATS, NULL},
    {"all_bf16", NULL, 0, "", HOLD_BF16, NULL},
    {"randint", "lo, hi", 2, "ii", INDICES, "lo <= v < hi"},
    {"zipf", "n", 1, "i", INDICES, "P(v) ~ 1/(v+1), 0 <= v < n"},
    {"const", "v", 1, "n", FLOATS | INDICES, NULL},
    {"mirror", "axis, F", 2, "af", FLOATS, NULL},
    {"antimirror", "axis, F, sigma", 3, "afn", FLOATS, NULL},
    {NULL, NULL, 0, NULL, 0, NULL},
};

const tp_fill_form *tp_fill_forms(void) { return forms; }

#define ZIPF_MAX (1 << 24) /* the harmonic CDF table of zipf(n) holds n doubles */
/* mirror(axis, mirror(axis, ...)): one level per axis of a rank-4 tensor
 * and then some; the parser and the filler recurse once per level. */
#define MAX_FILL_DEPTH 8

typedef struct fill {
    enum fill_kind kind;
    double p[3];  /* the number arguments, in order */
    int64_t i[2]; /* the integer arguments: wide, randint, zipf, and const on index tensors */
    int axis;
    struct fill *base;
} fill;

typedef struct {
    const char *text, *s;
    unsigned dtype_bit; /* the tensor's dtype */
    int index;          /* an index tensor: every argument is an integer */
    int rank;           /* the tensor's rank, or -1 when not known */
    int depth;          /* of nested fills (mirror, antimirror), against MAX_FILL_DEPTH */
    char q[200];        /* the whole text, quoted */
    tp_grammar_error *e;
} cursor;

static void skip_ws(cursor *c)
{
    while (isspace((unsigned char)*c->s))
        c->s++;
}

/* " 'REST'" or "the end", for "expected X at ..." */
static const char *rest(const cursor *c, char *out, size_t len)
{
    const char *s = c->s;
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    if (!n)
        return snprintf(out, len, "the end"), out;
    char q[64];
    snprintf(out, len, "%s%s", tp_grammar_quote(s, n > 24 ? 24 : n, q, sizeof q), n > 24 ? "..." : "");
    return out;
}

static int expect(cursor *c, char ch)
{
    skip_ws(c);
    if (*c->s == ch) {
        c->s++;
        return 0;
    }
    char r[96];
    tp_grammar_fail(c->e, "expected '%c' at %s in fill %s", ch, rest(c, r, sizeof r), c->q);
    return -1;
}

/* A number as contracts write it: [+-]digits[.digits][e[+-]digits] (no
 * inf, nan or hex: a fill's values are decimal and finite). integer: no
 * fraction or exponent, and it must fit in int64. */
static int number(cursor *c, int integer, double *v, int64_t *iv)
{
    skip_ws(c);
    const char *s = c->s, *p = s;
    if (*p == '+' || *p == '-')
        p++;
    const char *digits = p;
    while (isdigit((unsigned char)*p))
        p++;
    int whole = p > digits, frac = 0;
    if (*p == '.') {
        const char *f = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        frac = p > f;
    }
    if (!whole && !frac) {
        char r[96];
        tp_grammar_fail(c->e, "expected %s at %s in fill %s", integer ? "an integer" : "a number", rest(c, r, sizeof r),
                        c->q);
        return -1;
    }
    if ((*p == 'e' || *p == 'E') &&
        (isdigit((unsigned char)p[1]) || ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
        for (p += 2; isdigit((unsigned char)*p);)
            p++;
    }
    int n = (int)(p - s);
    c->s = p;
    if (integer && (size_t)(p - digits) != strspn(digits, "0123456789"))
        return tp_grammar_fail(c->e, "%.*s is not an integer in fill %s", n, s, c->q), -1;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*s", n, s);
    errno = 0;
    if (integer) {
        *iv = strtoll(tmp, NULL, 10);
        *v = (double)*iv;
        if (errno == ERANGE)
            return tp_grammar_fail(c->e, "%.*s does not fit in int64 in fill %s", n, s, c->q), -1;
    } else {
        *v = strtod(tmp, NULL);
        if (!isfinite(*v))
            return tp_grammar_fail(c->e, "%.*s is not a finite number in fill %s", n, s, c->q), -1;
    }
    return 0;
}

static void fill_free(fill *f)
{
    if (f) {
        fill_free(f->base);
        free(f);
    }
}

static char *dtype_names(unsigned set, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (int t = 0; t < TP_NDTYPES && n < len; t++)
        if (set & TP_DTYPE_BIT(t))
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "", tp_dtype_name((tp_dtype)t));
    return out;
}

static fill *parse_fill(cursor *c)
{
    skip_ws(c);
    size_t n = 0;
    while (isalnum((unsigned char)c->s[n]) || c->s[n] == '_')
        n++;
    char r[96];
    if (n == 0) {
        if (*c->s && !strchr("+-.0123456789(),", *c->s))
            tp_grammar_fail(c->e, "unexpected character '%c' in fill %s", *c->s, c->q);
        else
            tp_grammar_fail(c->e, "expected a fill name at %s in fill %s", rest(c, r, sizeof r), c->q);
        return NULL;
    }
    const tp_fill_form *form = NULL;
    for (const tp_fill_form *k = forms; k->name && !form; k++)
        if (strlen(k->name) == n && strncmp(k->name, c->s, n) == 0)
            form = k;
    if (!form) {
        char q[64];
        tp_grammar_fail(c->e, "unknown fill %s in %s", tp_grammar_quote(c->s, n, q, sizeof q), c->q);
        return NULL;
    }
    if (!(form->dtypes & c->dtype_bit)) {
        char for_[40], this_[16];
        tp_grammar_fail(c->e, "fill '%s' is for %s tensors, not %s, in %s", form->name,
                        dtype_names(form->dtypes, for_, sizeof for_), dtype_names(c->dtype_bit, this_, sizeof this_),
                        c->q);
        return NULL;
    }
    c->s += n;
    fill *f = calloc(1, sizeof *f);
    f->kind = (enum fill_kind)(form - forms);
    if (!form->args)
        return f;
    if (expect(c, '(') != 0)
        goto bad;
    int np = 0, ni = 0;
    for (const char *k = form->sig; *k; k++) {
        if (k > form->sig && expect(c, ',') != 0)
            goto bad;
        double v = 0;
        int64_t iv = 0;
        if (*k == 'f') {
            if (++c->depth > MAX_FILL_DEPTH) {
                tp_grammar_fail(c->e, "fills nested more than %d deep in fill %s", MAX_FILL_DEPTH, c->q);
                goto bad;
            }
            f->base = parse_fill(c);
            c->depth--;
            if (!f->base)
                goto bad;
        } else if (number(c, *k != 'n' || c->index, &v, &iv) != 0)
            goto bad;
        else if (*k == 'a') {
            int max = c->rank >= 0 ? c->rank : TP_MAX_RANK;
            if (iv < 0 || iv >= max) {
                if (c->rank >= 0)
                    tp_grammar_fail(c->e, "axis %lld out of range for a rank-%d tensor in fill %s", (long long)iv,
                                    c->rank, c->q);
                else
                    tp_grammar_fail(c->e, "axis %lld out of range (a tensor has at most %d axes) in fill %s",
                                    (long long)iv, TP_MAX_RANK, c->q);
                goto bad;
            }
            f->axis = (int)iv;
        } else if (*k == 'i' || c->index) {
            f->i[ni++] = iv;
            f->p[np++] = v;
        } else
            f->p[np++] = v;
    }
    if (expect(c, ')') != 0)
        goto bad;
    const char *bad = NULL;
    char what[96];
    switch (f->kind) {
    case F_NORMAL:
    case F_NEAR:
        if (f->p[1] < 0) {
            snprintf(what, sizeof what, "%s %s %g < 0", form->name, f->kind == F_NORMAL ? "sigma" : "width", f->p[1]);
            bad = what;
        }
        break;
    case F_UNIFORM:
        if (!(f->p[0] < f->p[1]))
            bad = "uniform needs lo < hi";
        break;
    case F_WIDE:
        /* binary16: 2^-30 .. 2^17, its range and a little beyond it on
         * both sides (beyond it saturates); bfloat16 likewise, 2^-140 ..
         * 2^128 (its subnormals start at 2^-133). binary32: from below its
         * subnormals (2^-149) to 2^127 (emax 126: (1 + u) 2^127 can round
         * to 2^128, which is infinite). */
        if (c->dtype_bit == TP_DTYPE_BIT(TP_F32)) {
            if (f->i[0] > f->i[1] || f->i[0] < -155 || f->i[1] > 126)
                bad = "wide needs integer exponents -155 <= emin <= emax <= 126 for binary32";
        } else if (c->dtype_bit == TP_DTYPE_BIT(TP_BF16)) {
            if (f->i[0] > f->i[1] || f->i[0] < -140 || f->i[1] > 127)
                bad = "wide needs integer exponents -140 <= emin <= emax <= 127 for bfloat16";
        } else if (f->i[0] > f->i[1] || f->i[0] < -30 || f->i[1] > 16)
            bad = "wide needs integer exponents -30 <= emin <= emax <= 16";
        break;
    case F_RANDINT:
        if (!(f->i[0] < f->i[1]))
            bad = "randint needs lo < hi";
        break;
    case F_ZIPF:
        if (f->i[0] < 1 || f->i[0] > ZIPF_MAX)
            bad = "zipf needs 1 <= n <= 2^24";
        break;
    default:
        break;
    }
    if (bad) {
        tp_grammar_fail(c->e, "%s in fill %s", bad, c->q);
        goto bad;
    }
    return f;
bad:
    fill_free(f);
    return NULL;
}

/* "normal(mu, sigma), ..., antimirror(axis, F, sigma)": the forms for one
 * dtype, as every fill error's expected part lists them. */
static void forms_text(unsigned dtype_bit, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (const tp_fill_form *k = forms; k->name && n < len; k++) {
        if (!(k->dtypes & dtype_bit))
            continue;
        n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "", k->name);
        if (k->args && n < len)
            n += (size_t)snprintf(out + n, len - n, "(%s)", k->args);
        if (k->note && n < len)
            n += (size_t)snprintf(out + n, len - n, " (%s)", k->note);
    }
}

static fill *parse_all(const char *text, tp_dtype dtype, int rank, tp_grammar_error *e)
{
    cursor c = {text, text, TP_DTYPE_BIT(dtype), tp_dtype_get(dtype)->index, rank, 0, "", e};
    size_t n = strlen(text);
    memset(e, 0, sizeof *e);
    forms_text(TP_DTYPE_BIT(dtype), e->expected, sizeof e->expected);
    tp_grammar_quote(text, n > 150 ? 150 : n, c.q, sizeof c.q);
    fill *f = parse_fill(&c);
    if (f) {
        skip_ws(&c);
        if (*c.s) {
            char r[96];
            tp_grammar_fail(e, "trailing text %s in fill %s", rest(&c, r, sizeof r), c.q);
            fill_free(f);
            f = NULL;
        }
    }
    return f;
}

int tp_fill_check(const char *text, tp_dtype dtype, int rank, tp_grammar_error *e)
{
    fill *f = parse_all(text, dtype, rank, e);
    fill_free(f);
    return f ? 0 : -1;
}

/* At run time: the same grammar, the message in one line. */
static fill *parse_run(const char *text, tp_dtype dtype, char *err, size_t errlen)
{
    tp_grammar_error e;
    fill *f = parse_all(text, dtype, -1, &e);
    if (!f)
        snprintf(err, errlen, "%s; expected %s", e.what, e.expected);
    return f;
}

int tp_fill_parse_check(const char *text, char *err, size_t errlen)
{
    fill *f = parse_run(text, TP_F16, err, errlen);
    fill_free(f);
    return f ? 0 : -1;
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
/* bfloat16's counterparts: +-0, the least subnormal, the largest
 * subnormal, the least normal, +-1, the largest finite, +-0.5, +-2^127 */
static const double special_bf16_values[] = {0.0,          -0.0,          0x1p-133,     -0x1p-133,
                                             0x1.fcp-127,  -0x1.fcp-127,  0x1p-126,     -0x1p-126,
                                             1.0,          -1.0,          0x1.fep127,   -0x1.fep127,
                                             0.5,          -0.5,          0x1p127,      -0x1p127};

/* The value of one element, before any mirror logic. Each element draws
 * from its own block of 16 counters. */
static double draw(const fill *f, const tp_format *fmt, uint64_t seed, uint64_t stream, uint64_t i)
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
        if (fmt == &tp_bfloat16)
            return special_bf16_values[r % (sizeof special_bf16_values / sizeof special_bf16_values[0])];
        return special_values[r % (sizeof special_values / sizeof special_values[0])];
    }
    case F_ALL: {
        /* finite patterns: 0x0000..0x7bff and 0x8000..0xfbff (63488) */
        uint64_t k = i % 63488;
        uint16_t h = k < 31744 ? (uint16_t)k : (uint16_t)(0x8000 + (k - 31744));
        return tp_binary16.decode(h);
    }
    case F_ALL_BF16: {
        /* finite patterns: 0x0000..0x7f7f and 0x8000..0xff7f (65280) */
        uint64_t k = i % 65280;
        uint16_t h = k < 32640 ? (uint16_t)k : (uint16_t)(0x8000 + (k - 32640));
        return tp_bfloat16.decode(h);
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
        /* each draw depends on its index alone: in parallel, with the same
         * bits, each worker in round-to-nearest like tp_fill_float's caller */
#pragma omp parallel if (n >= 65536)
        {
            const int saved = fegetround();
            fesetround(FE_TONEAREST);
#pragma omp for schedule(static)
            for (int64_t i = 0; i < n; i++)
                put(out, i, draw(f, out->fmt, seed, stream, (uint64_t)i));
            fesetround(saved);
        }
        return;
    }
    fill_rec(out, rank, shape, f->base, seed, stream);
    if (n == 0) /* an empty tensor: nothing to mirror (and no extent to divide by) */
        return;
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
    fill *f = parse_run(text, out->fmt->dtype, err, errlen);
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
    fill *f = parse_run(text, dtype_i64 ? TP_I64 : TP_I32, err, errlen);
    if (!f)
        return -1;
    const int64_t a = f->i[0], b = f->i[1];
    const enum fill_kind kind = f->kind;
    fill_free(f);
    uint64_t stream = tp_rng_stream(tensor_name);
    double *cdf = NULL;
    const int saved = fegetround(); /* the harmonic sums in round-to-nearest, whatever the caller's mode */
    fesetround(FE_TONEAREST);
    if (kind == F_ZIPF) {
        cdf = malloc((size_t)a * sizeof *cdf);
        double h = 0;
        for (int64_t k = 0; k < a; k++)
            cdf[k] = h += 1.0 / (double)(k + 1);
    }
    for (int64_t i = 0; i < numel; i++) {
        int64_t v = a; /* const(v) */
        if (kind == F_RANDINT)
            /* hi - lo in uint64: randint(-2^62, 2^62) would overflow int64 */
            v = (int64_t)((uint64_t)a + tp_rng_u64(seed, stream, (uint64_t)i * 16) % ((uint64_t)b - (uint64_t)a));
        else if (kind == F_ZIPF) {
            double u = tp_rng_uniform(seed, stream, (uint64_t)i * 16) * cdf[a - 1];
            int64_t lo = 0, hi = a - 1; /* first k with cdf[k] > u */
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
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
