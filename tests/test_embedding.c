/* The embedding references and bounds (oracles/embedding/proven/embedding.c,
 * oracles/embedding/proven/embedding_scatter.c,
 * oracles/embedding/op_embedding_fwd.c, oracles/embedding/op_embedding_bwd.c):
 *  - the scatter's per-row sums are exact: equal, bit for bit, to MPFR sums
 *    at 200 bits, on uniform, Zipf-like and all-same indices with normal,
 *    wide and extreme binary16 values (up to 8192 terms of +-65504);
 *  - the gather equals the naive lookup pattern for pattern (signed zeros
 *    included) and keeps the initial content of out-of-range rows;
 *  - CPU emulations of the backward kernel's CAS loop (a = RN16(RN32(a+g))
 *    per add) under many random orders, and under the ascending and
 *    descending orders, never leave the fp16_per_step admitted interval;
 *  - the same emulations violate the pilot's fp32 model on duplicate-heavy
 *    rows, while an fp32-accumulate-once emulation passes it: the two
 *    contracts really differ;
 *  - a forward kernel that clamps out-of-range indices instead of skipping
 *    them is caught by the forward reference.
 * Build with -ffp-contract=off: the emulations must round where C says. */
#include "oracles/embedding/proven/embedding.h"
#include "oracles/embedding/proven/embedding_scatter.h"
#include "tests/model_json.h"
#include "tests/tap.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"

#include <jansson.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return rs;
}
static double unif(void) { return (double)(rnd() >> 11) * 0x1p-53; }

/* A binary16 value from one of the distributions the contracts use. */
enum { NORMAL, WIDE, EXTREME, POSITIVE };
static uint16_t draw(int kind)
{
    double x;
    switch (kind) {
    case NORMAL: {
        double z = 0;
        for (int i = 0; i < 12; i++)
            z += unif();
        x = z - 6;
        break;
    }
    case WIDE:
        x = ldexp(1 + unif(), (int)(rnd() % 19) - 14) * (rnd() & 1 ? -1 : 1);
        break;
    case EXTREME: {
        static const double v[] = {0.0, -0.0, 0x1p-24, 0x1p-14, 1.0, 65504.0, 32768.0, 0.5};
        x = v[rnd() % 8] * (rnd() & 1 ? -1 : 1);
        break;
    }
    default:
        x = unif();
    }
    return tp_f16_from_double(x);
}

/* Index i of n queries into V rows: uniform, Zipf-like (P(v) ~ 1/(v+1)), or all the same. */
enum { UNIFORM, ZIPF, SAME };
static int32_t pick(int kind, int V)
{
    if (kind == SAME)
        return V / 2;
    if (kind == UNIFORM)
        return (int32_t)(rnd() % (uint64_t)V);
    double h = 0, u;
    for (int v = 0; v < V; v++)
        h += 1.0 / (v + 1);
    u = unif() * h;
    for (int v = 0; v < V; v++) {
        u -= 1.0 / (v + 1);
        if (u < 0)
            return v;
    }
    return V - 1;
}

/* A case for the op interface: idx (n), in (n x D f16), out (V x D or n x D). */
typedef struct {
    tp_case c;
    int32_t *idx;
    uint16_t *in, *out, *init;
} tcase;

static void tcase_make(tcase *t, const char *inname, const char *outname, int n, int inrows, int outrows, int D)
{
    memset(t, 0, sizeof *t);
    t->idx = calloc((size_t)n, sizeof *t->idx);
    t->in = calloc((size_t)inrows * D, 2);
    t->out = calloc((size_t)outrows * D, 2);
    t->init = calloc((size_t)outrows * D, 2);
    t->c.name = "test";
    t->c.backend = "cuda";
    t->c.ntensors = 3;
    t->c.tensors[0] = (tp_tensor){"idx", TP_I32, 1, {n}, n, t->idx, NULL};
    t->c.tensors[1] = (tp_tensor){inname, TP_F16, 2, {inrows, D}, (int64_t)inrows * D, t->in, NULL};
    t->c.tensors[2] = (tp_tensor){outname, TP_F16, 2, {outrows, D}, (int64_t)outrows * D, t->out, t->init};
}
static void tcase_free(tcase *t)
{
    free(t->idx);
    free(t->in);
    free(t->out);
    free(t->init);
}

/* ---- exact sums against MPFR ---------------------------------------- */

static int scatter_vs_mpfr(int n, int V, int D, int ikind, int vkind)
{
    int32_t *idx = malloc((size_t)n * sizeof *idx);
    float *g = malloc((size_t)n * D * sizeof *g);
    double *S = malloc((size_t)V * D * sizeof *S);
    for (int i = 0; i < n; i++)
        idx[i] = pick(ikind, V);
    for (int k = 0; k < n * D; k++)
        g[k] = (float)tp_f16_to_double(draw(vkind));
    tp_embedding_scatter(n, V, D, idx, g, S);
    mpfr_t *acc = malloc((size_t)V * D * sizeof *acc);
    for (int k = 0; k < V * D; k++)
        mpfr_init2(acc[k], 200), mpfr_set_zero(acc[k], 1);
    for (int i = 0; i < n; i++)
        for (int d = 0; d < D; d++)
            mpfr_add_d(acc[idx[i] * D + d], acc[idx[i] * D + d], g[i * D + d], MPFR_RNDN);
    int bad = 0;
    for (int k = 0; k < V * D; k++) {
        if (mpfr_cmp_d(acc[k], S[k]) != 0)
            bad++;
        mpfr_clear(acc[k]);
    }
    free(acc);
    free(idx);
    free(g);
    free(S);
    return bad;
}

/* ---- backward: emulated CAS accumulation against the admitted sets --- */

static void shuffle(int *p, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1)), t = p[i];
        p[i] = p[j], p[j] = t;
    }
}

/* The kernel's arithmetic for every element, queries taken in order p. */
static void cas_emulate(const tcase *t, int n, int V, int D, const int *p)
{
    memcpy(t->out, t->init, (size_t)V * D * 2);
    for (int q = 0; q < n; q++) {
        int i = p[q];
        for (int d = 0; d < D; d++) {
            uint16_t *a = &t->out[t->idx[i] * D + d];
            float sum = (float)tp_f16_to_double(*a) + (float)tp_f16_to_double(t->in[i * D + d]);
            *a = tp_f16_from_float(sum);
        }
    }
}

static void fp32_once_emulate(const tcase *t, int n, int V, int D, const int *p)
{
    float *acc = calloc((size_t)V * D, sizeof *acc);
    for (int k = 0; k < V * D; k++)
        acc[k] = (float)tp_f16_to_double(t->init[k]);
    for (int q = 0; q < n; q++)
        for (int d = 0; d < D; d++)
            acc[t->idx[p[q]] * D + d] += (float)tp_f16_to_double(t->in[p[q] * D + d]);
    for (int k = 0; k < V * D; k++)
        t->out[k] = tp_f16_from_float(acc[k]);
    free(acc);
}

static int64_t outside(const tcase *t, const tp_ref *ref, int64_t numel)
{
    int64_t bad = 0;
    for (int64_t k = 0; k < numel; k++) {
        double y = tp_f16_to_double(t->out[k]);
        if (!(ref[k].allow_lo <= y && y <= ref[k].allow_hi))
            bad++;
    }
    return bad;
}

static tp_ref *bwd_ref(const tcase *t, const char *acc, int V, int D)
{
    tp_value *model = model_of(json_pack("{s:s,s:s,s:s}", "accumulation", acc, "order", "any", "output_rounding", "nearest"));
    const tp_op *op = tp_op_find("embedding_bwd");
    tp_ref *ref = malloc((size_t)V * D * sizeof *ref);
    char err[300];
    if (!op || op->check_model(model, err, sizeof err) || op->reference(model, &t->c, "gW", ref, err, sizeof err)) {
        tap_diag("embedding_bwd reference: %s", op ? err : "op not registered");
        free(ref);
        ref = NULL;
    }
    tp_value_free(model);
    return ref;
}

typedef struct {
    const char *what;
    int n, V, D, ikind, vkind, nonzero_init;
} bwd_input;

int main(void)
{
    /* exact sums */
    tap_ok(scatter_vs_mpfr(2000, 300, 8, UNIFORM, NORMAL) == 0, "scatter sums exact (uniform, normal)");
    tap_ok(scatter_vs_mpfr(4096, 1000, 4, ZIPF, WIDE) == 0, "scatter sums exact (zipf, wide)");
    tap_ok(scatter_vs_mpfr(8192, 4, 2, SAME, EXTREME) == 0,
           "scatter sums exact at the limit (8192 adds of +-65504, 2^15, subnormals into one row)");

    /* gather */
    {
        int n = 500, V = 40, D = 7;
        tcase t;
        tcase_make(&t, "W", "out", n, V, n, D);
        for (int i = 0; i < n; i++)
            t.idx[i] = (int32_t)(rnd() % (uint64_t)(V + 10)) - 5;
        for (int k = 0; k < V * D; k++)
            t.in[k] = draw(EXTREME);
        for (int k = 0; k < n * D; k++)
            t.init[k] = (uint16_t)rnd();
        uint16_t *g = malloc((size_t)n * D * 2);
        tp_embedding_gather(n, V, D, t.idx, t.in, t.init, g);
        int bad = 0;
        for (int i = 0; i < n; i++)
            for (int d = 0; d < D; d++) {
                uint16_t want = t.idx[i] >= 0 && t.idx[i] < V ? t.in[t.idx[i] * D + d] : t.init[i * D + d];
                bad += g[i * D + d] != want;
            }
        tap_ok(bad == 0, "gather equals the naive lookup bit for bit (signed zeros, out-of-range rows)");

        /* the clamped-index mutant against the forward reference */
        for (int k = 0; k < n * D; k++)
            t.init[k] = tp_f16_from_double(7.0);
        tp_value *model = model_of(json_pack("{s:s,s:s}", "copy", "exact", "out_of_range", "unchanged"));
        const tp_op *op = tp_op_find("embedding_fwd");
        tp_ref *ref = malloc((size_t)n * D * sizeof *ref);
        char err[300];
        int rc = !op || op->check_model(model, err, sizeof err) || op->reference(model, &t.c, "out", ref, err, sizeof err);
        tap_ok(rc == 0, "embedding_fwd reference runs");
        for (int pass = 0; pass < 2 && rc == 0; pass++) {
            memcpy(t.out, t.init, (size_t)n * D * 2);
            for (int i = 0; i < n; i++) {
                int r = t.idx[i];
                if (pass == 1)
                    r = r < 0 ? 0 : r >= V ? V - 1 : r;
                if (r >= 0 && r < V)
                    memcpy(t.out + i * D, t.in + r * D, (size_t)D * 2);
            }
            int64_t o = outside(&t, ref, (int64_t)n * D);
            if (pass == 0)
                tap_ok(o == 0, "a skipping copy passes the forward reference");
            else
                tap_ok(o > 0, "a clamping copy is caught by the forward reference (%lld elements)", (long long)o);
        }
        tp_value_free(model);
        free(ref);
        free(g);
        tcase_free(&t);
    }

    /* backward: orders */
    static const bwd_input inputs[] = {
        {"uniform, normal", 2048, 256, 16, UNIFORM, NORMAL, 0},
        {"zipf, normal", 4096, 1000, 4, ZIPF, NORMAL, 0},
        {"all same, positive (stagnation)", 1024, 4, 4, SAME, POSITIVE, 0},
        {"zipf, wide", 4096, 64, 4, ZIPF, WIDE, 0},
        {"uniform, extreme (overflow in some orders)", 256, 16, 8, UNIFORM, EXTREME, 0},
        {"all same, normal, non-zero initial gW", 600, 4, 8, SAME, NORMAL, 1},
    };
    const int norders = 60;
    int64_t pilot_violations = 0;
    for (size_t s = 0; s < sizeof inputs / sizeof inputs[0]; s++) {
        const bwd_input *in = &inputs[s];
        tcase t;
        tcase_make(&t, "gout", "gW", in->n, in->n, in->V, in->D);
        for (int i = 0; i < in->n; i++)
            t.idx[i] = pick(in->ikind, in->V);
        for (int k = 0; k < in->n * in->D; k++)
            t.in[k] = draw(in->vkind);
        for (int k = 0; in->nonzero_init && k < in->V * in->D; k++)
            t.init[k] = draw(NORMAL);
        tp_ref *per = bwd_ref(&t, "fp16_per_step", in->V, in->D), *pil = bwd_ref(&t, "fp32", in->V, in->D);
        if (!per || !pil) {
            tap_ok(0, "%s: references", in->what);
            continue;
        }
        int *p = malloc((size_t)in->n * sizeof *p);
        int64_t worst = 0, pv = 0, once_bad = 0;
        for (int o = 0; o < norders + 2; o++) {
            for (int i = 0; i < in->n; i++)
                p[i] = i;
            if (o < norders)
                shuffle(p, in->n);
            /* the last two orders: queries by ascending, then descending
             * gradient of column 0 (the orders that push partial sums
             * furthest in one direction) */
            for (int i = 1; o >= norders && i < in->n; i++)
                for (int j = i; j > 0; j--) {
                    double a = tp_f16_to_double(t.in[p[j - 1] * in->D]), b = tp_f16_to_double(t.in[p[j] * in->D]);
                    if (o == norders ? a <= b : a >= b)
                        break;
                    int x = p[j];
                    p[j] = p[j - 1], p[j - 1] = x;
                }
            cas_emulate(&t, in->n, in->V, in->D, p);
            int64_t b = outside(&t, per, (int64_t)in->V * in->D);
            worst = b > worst ? b : worst;
            pv += outside(&t, pil, (int64_t)in->V * in->D);
            if (o < 4) {
                fp32_once_emulate(&t, in->n, in->V, in->D, p);
                once_bad += outside(&t, pil, (int64_t)in->V * in->D);
            }
        }
        tap_ok(worst == 0, "%s: CAS emulation in %d orders never leaves the fp16_per_step interval", in->what,
               norders + 2);
        tap_ok(once_bad == 0, "%s: fp32-accumulate-once emulation passes the pilot's fp32 model", in->what);
        tap_diag("%s: CAS emulation outside the pilot's fp32 interval: %lld element-orders", in->what, (long long)pv);
        pilot_violations += pv;
        if (in->ikind != UNIFORM || in->vkind == NORMAL)
            tap_ok(pv > 0, "%s: the same CAS emulation violates the pilot's fp32 model", in->what);
        free(p);
        free(per);
        free(pil);
        tcase_free(&t);
    }
    tap_ok(pilot_violations > 0, "the fp16_per_step and fp32 contracts differ on the kernel's own arithmetic");
    return tap_done();
}
