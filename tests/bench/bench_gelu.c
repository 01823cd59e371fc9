/* Throughput of the GELU-backward reference: per element, the exact
 * enclosure g*exact_f[x] and the model interval g*model_f[x] from the
 * prebuilt tables, against a plain-double g*f(x) with libm tanh (which is
 * not a valid reference; it is the cost a naive checker would pay).
 * Single-threaded. x ~ fp16(uniform(-8, 8)), g ~ fp16(uniform(-4, 4)).
 * Build: gcc -std=c11 -O2 -ffp-contract=off -Ioracles -Iharness
 *        tests/bench/bench_gelu.c oracles/gelu/gelu_tables.c core/tp_fp16.c
 *        -lmpfi -lmpfr -lgmp -lm */
#define _POSIX_C_SOURCE 200809L
#include "oracles/gelu/gelu_tables.h"
#include "core/tp_fp16.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (1u << 22)
#define REPS 5

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* SplitMix64: inputs only need to be reproducible, not shared with the
 * harness's counter-based streams. */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(splitmix(s) >> 11) * 0x1p-53;
}

typedef struct { double lo, hi; } iv;

static iv scale(double g, tp_interval t)
{
    double a = g * t.lo, b = g * t.hi;
    iv r = {a < b ? a : b, a < b ? b : a};
    return r;
}

static void enclose(const uint16_t *x, const uint16_t *g, const double *dec,
                    const tp_interval *ef, const tp_interval *mf, iv *ex, iv *mo)
{
    for (uint32_t i = 0; i < N; i++) {
        double gd = dec[g[i]];
        ex[i] = scale(gd, ef[x[i]]);
        mo[i] = scale(gd, mf[x[i]]);
    }
}

static void plain(const uint16_t *x, const uint16_t *g, const double *dec,
                  const tp_gelu_model *m, double *out)
{
    const double c = m->c, a = m->a;
    for (uint32_t i = 0; i < N; i++) {
        double xd = dec[x[i]];
        double t = tanh(c * (xd + a * xd * xd * xd));
        double f = 0.5 * (1 + t) + 0.5 * xd * (1 - t * t) * c * (1 + 3 * a * xd * xd);
        out[i] = dec[g[i]] * f;
    }
}

int main(void)
{
    tp_gelu_model m = tp_gelu_model_pilot(2, 1);
    tp_interval *ef = malloc(TP_GELU_TABLE_SIZE * sizeof *ef);
    tp_interval *mf = malloc(TP_GELU_TABLE_SIZE * sizeof *mf);
    double *dec = malloc(TP_GELU_TABLE_SIZE * sizeof *dec);
    uint16_t *x = malloc(N * sizeof *x), *g = malloc(N * sizeof *g);
    iv *ex = malloc(N * sizeof *ex), *mo = malloc(N * sizeof *mo);
    double *pl = malloc(N * sizeof *pl);
    if (!ef || !mf || !dec || !x || !g || !ex || !mo || !pl)
        return 1;

    double t0 = now();
    if (tp_gelu_tables_build(&m, ef, mf) != 0)
        return 1;
    double build_s = now() - t0;

    for (uint32_t h = 0; h < TP_GELU_TABLE_SIZE; h++)
        dec[h] = tp_f16_to_double((uint16_t)h);
    uint64_t s = 42;
    for (uint32_t i = 0; i < N; i++) {
        x[i] = tp_f16_from_double(uniform(&s, -8, 8));
        g[i] = tp_f16_from_double(uniform(&s, -4, 4));
    }

    /* Best of REPS: the least disturbed run of each loop. */
    double best_enc = 1e30, best_plain = 1e30;
    for (int r = 0; r < REPS; r++) {
        t0 = now();
        enclose(x, g, dec, ef, mf, ex, mo);
        double t1 = now();
        plain(x, g, dec, &m, pl);
        double t2 = now();
        best_enc = fmin(best_enc, t1 - t0);
        best_plain = fmin(best_plain, t2 - t1);
    }

    /* Consume every output; the plain value should sit within 1e-9 of
     * the exact enclosure (a check of the bench, not of anything else). */
    long far = 0;
    double model_width = 0;
    for (uint32_t i = 0; i < N; i++) {
        far += pl[i] < ex[i].lo - 1e-9 || pl[i] > ex[i].hi + 1e-9;
        model_width += mo[i].hi - mo[i].lo;
    }

    double enc_rate = N / best_enc, plain_rate = N / best_plain;
    printf("table build (exact_f + model_f, 65536 entries each): %.3f s\n", build_s);
    printf("gelu_bwd enclosure: %.3g elem/s, plain double: %.3g elem/s, ratio %.2f\n",
           enc_rate, plain_rate, enc_rate / plain_rate);
    printf("{\"bench\":\"gelu_bwd\",\"n\":%u,\"reps\":%d,\"table_build_s\":%.4f,"
           "\"enclosure_elem_per_s\":%.4g,\"plain_double_elem_per_s\":%.4g,"
           "\"ratio\":%.3f,\"plain_far_from_exact\":%ld,\"mean_model_width\":%.3g}\n",
           N, REPS, build_s, enc_rate, plain_rate, enc_rate / plain_rate, far,
           model_width / N);
    free(ef);
    free(mf);
    free(dec);
    free(x);
    free(g);
    free(ex);
    free(mo);
    free(pl);
    return 0;
}
