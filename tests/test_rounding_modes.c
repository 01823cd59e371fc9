/* Rounding-mode independence (issue 14, item 4) of the conversion and
 * rounding helpers outside the format descriptors (those are checked by
 * tests/test_format.c, the ops' references by tests/rounding_modes.t):
 * each helper runs once per caller mode (FE_TONEAREST, FE_UPWARD,
 * FE_DOWNWARD, FE_TOWARDZERO) and must give the bits it gives in
 * FE_TONEAREST, and leave the caller's mode as it was.
 *  - core/tp_rng.c: the float fills into binary16, bfloat16 and binary32
 *    (every generator), the index fills (zipf's harmonic sums);
 *  - oracles/common: tp_parse_f32 (strtof follows the mode in force);
 *  - oracles/layernorm/layernorm_model.c: tp_ln_parse_f32, tp_ln_f32_up
 *    and _down, tp_ln_rsqrt_rn, tp_ln_sum_model;
 *  - oracles/gelu: both table builders (all 65536 binary16 inputs).
 * Build with -ffp-contract=off -frounding-math. */
#include "tests/tap.h"
#include "core/tp_format.h"
#include "core/tp_rng.h"
#include "oracles/common/op_common.h"
#include "oracles/gelu/gelu_fwd_tables.h"
#include "oracles/gelu/gelu_tables.h"
#include "oracles/layernorm/layernorm_model.h"

#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
static const char *const mode_names[] = {"FE_TONEAREST", "FE_UPWARD", "FE_DOWNWARD", "FE_TOWARDZERO"};
#define NMODES 4

/* FNV-1a of a byte range, to compare whole results between modes. */
static uint64_t hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}
#define H0 0xcbf29ce484222325ULL

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* One helper family: returns a hash of everything it computed, and sets
 * *bad when something failed outright. Run in the mode set by the caller. */
typedef uint64_t (*family)(int *bad);

static uint64_t fills(int *bad)
{
    static const char *const exprs[] = {
        "normal(0, 1)", "uniform(-3, 3)", "wide(-30, 16)", "special", "near(1, 0.001)", "all_f16", "const(0.1)",
        "const(1e39)", "near(65510, 20)", "mirror(1, normal(0, 3))", "antimirror(1, uniform(-1, 1), 0.01)",
        /* just above the midpoints 1 + 2^-11 (binary16) and 1 + 2^-24
         * (binary32): strtod lands on the midpoint in FE_TONEAREST and
         * above it in FE_UPWARD, and the rounding to the format follows */
        "const(1.000488281250000000000001)", "const(1.0000000596046447753906250000000001)"};
    const int64_t shape[2] = {16, 96};
    uint64_t h = H0;
    for (const tp_format *const *f = tp_formats(); *f; f++)
        for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
            uint32_t buf[16 * 96];
            char err[300];
            memset(buf, 0, sizeof buf);
            if (tp_fill_float(*f, buf, 2, shape, exprs[i], 42, "x", err, sizeof err) != 0) {
                tap_diag("fill %s into %s: %s", exprs[i], (*f)->name, err);
                *bad = 1;
            }
            h = hash(h, buf, sizeof buf);
            /* 16-bit formats saturate: const(1e39), near(65510, 20) stay finite */
            for (int k = 0; (*f)->size == 2 && k < 16 * 96; k++)
                if (!isfinite(tp_format_load(*f, buf, k)))
                    *bad = 1;
        }
    static const char *const idx[] = {"zipf(1000)", "randint(-5, 77)", "const(3)"};
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
        int32_t v[4096];
        char err[300];
        if (tp_fill_int(v, 0, 4096, idx[i], 7, "idx", err, sizeof err) != 0)
            *bad = 1;
        h = hash(h, v, sizeof v);
    }
    return h;
}

static uint64_t parsing(int *bad)
{
    /* none of these is a binary32 value: the mode would pick the neighbour */
    static const char *const lits[] = {"0.044715f", "0.7978845608f", "1e-5f", "0.1", "3.14159265358979f", "1e-40f",
                                       "-2.7182818f", "1e39f"};
    uint64_t h = H0;
    for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
        float f = 0, g = 0;
        int r1 = tp_parse_f32(lits[i], &f), r2 = tp_ln_parse_f32(lits[i], &g);
        h = hash(h, &f, sizeof f);
        h = hash(h, &r1, sizeof r1);
        h = hash(h, &r2, sizeof r2);
        if (r1 != 0)
            *bad = 1;
        if (r2 == 0)
            h = hash(h, &g, sizeof g);
    }
    float f;
    if (tp_parse_f32("0.5g", &f) == 0 || tp_parse_f32("", &f) == 0 || tp_parse_f32(NULL, &f) == 0 ||
        tp_ln_parse_f32("inf", &f) == 0)
        *bad = 1;
    return h;
}

static uint64_t layernorm_helpers(int *bad)
{
    uint64_t s = 99, h = H0;
    for (int i = 0; i < 200000; i++) {
        uint64_t r = splitmix(&s);
        double v = ldexp(1.0 + (double)(r >> 11) * 0x1p-53, -160 + (int)(r % 300));
        if (r & 0x400)
            v = -v;
        float up = tp_ln_f32_up(v), dn = tp_ln_f32_down(v);
        /* the smallest float >= v and the largest <= v */
        if (!((double)up >= v && (double)dn <= v && (up == dn || nextafterf(dn, INFINITY) == up)))
            *bad = 1;
        h = hash(h, &up, sizeof up);
        h = hash(h, &dn, sizeof dn);
        if (i % 50 == 0) {
            /* inputs made exactly (bits, exact double operations), so
             * that only the helpers could bring the mode in */
            uint32_t wb = (uint32_t)(20 + r % 200) << 23 | (uint32_t)(r >> 41);
            float w;
            memcpy(&w, &wb, sizeof w);
            float q = tp_ln_rsqrt_rn(w);
            h = hash(h, &q, sizeof q);
            double lo = ldexp((double)(int64_t)(r >> 20), -30), absum = fabs(lo) + 1; /* both exact */
            tp_ln_fint fi = tp_ln_sum_model(lo, lo + 0x1p-20, absum, 1 + (int)(r % 4096), (int)(r & 1));
            h = hash(h, &fi, sizeof fi);
        }
    }
    return h;
}

static uint64_t gelu_tables(int *bad)
{
    tp_interval *a = malloc(65536 * sizeof *a), *b = malloc(65536 * sizeof *b);
    uint64_t h = H0;
    tp_gelu_model m = tp_gelu_model_pilot(2, 1);
    tp_gelu_fwd_model mf = tp_gelu_fwd_model_pilot(2, 1);
    if (!a || !b || tp_gelu_tables_build(&m, a, b) != 0)
        *bad = 1;
    else
        h = hash(hash(h, a, 65536 * sizeof *a), b, 65536 * sizeof *b);
    if (!a || !b || tp_gelu_fwd_tables_build(&mf, a, b) != 0)
        *bad = 1;
    else
        h = hash(hash(h, a, 65536 * sizeof *a), b, 65536 * sizeof *b);
    free(a);
    free(b);
    return h;
}

int main(void)
{
    static const struct {
        const char *what;
        family run;
    } fams[] = {
        {"core/tp_rng fills (binary16, bfloat16, binary32; zipf, randint, const)", fills},
        {"tp_parse_f32 and tp_ln_parse_f32", parsing},
        {"tp_ln_f32_up/down (200000 doubles), tp_ln_rsqrt_rn, tp_ln_sum_model", layernorm_helpers},
        {"the GELU table builders (gelu_bwd factor, gelu_fwd y; 65536 inputs each)", gelu_tables},
    };
    const int saved = fegetround();
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        uint64_t base = 0;
        int ok = 1, restored = 1;
        char differ[200] = "";
        for (int m = 0; m < NMODES; m++) {
            int bad = 0;
            fesetround(modes[m]);
            uint64_t h = fams[f].run(&bad);
            restored &= fegetround() == modes[m];
            fesetround(saved);
            if (m == 0)
                base = h;
            if (bad || h != base) {
                ok = 0;
                snprintf(differ + strlen(differ), sizeof differ - strlen(differ), " %s%s", mode_names[m],
                         bad ? " (failed)" : "");
            }
        }
        tap_ok(ok, "%s: the same bits in the four rounding modes%s%s", fams[f].what, ok ? "" : "; differ in", differ);
        tap_ok(restored, "%s: the caller's rounding mode is left as it was", fams[f].what);
    }
    mpfr_free_cache();
    return tap_done();
}
