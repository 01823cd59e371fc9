/* The gemm op's admitted intervals against CPU emulations of the kernel.
 *
 * Every emulated kernel that accumulates in binary32 (in any order, with or
 * without FMA) and rounds the result to binary16 once must pass the real
 * checker (tp_op_find("gemm")->reference + tp_check_output) with model
 * {"accumulation":"fp32","order":"any","fma":"any"}: sequential, reversed,
 * a fixed random permutation, pairwise, 16-wide tiles then combined,
 * split-K with 2/4/8 contiguous partial sums, 8 interleaved (strided)
 * partial sums, each with fmaf and with an explicit float multiply then
 * add. Emulations of wrong kernels -- one that accumulates in binary16
 * (every step rounded), one that drops the last k -- must be caught on at
 * least one input distribution.
 *
 * Note: the product of two binary16 values is exact in binary32, so fmaf
 * and mul-then-add give the same bits here; both are run because the model
 * promises both. Build with -ffp-contract=off: the emulations must round
 * exactly where C says. */
#include "oracles/gemm/proven/gemm.h"
#include "tests/model_json.h"
#include "tests/tap.h"
#include "harness/tp_check.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "core/tp_rng.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- emulated kernels: one output element from the K products --------- */

typedef float (*sum_fn)(int K, const float *a, const float *b, int fma);

static float step(float acc, float a, float b, int fma) { return fma ? fmaf(a, b, acc) : acc + a * b; }

static float seq_range(int lo, int hi, const float *a, const float *b, int fma)
{
    float acc = 0.0f;
    for (int k = lo; k < hi; k++)
        acc = step(acc, a[k], b[k], fma);
    return acc;
}

static float k_sequential(int K, const float *a, const float *b, int fma) { return seq_range(0, K, a, b, fma); }

static float k_reversed(int K, const float *a, const float *b, int fma)
{
    float acc = 0.0f;
    for (int k = K - 1; k >= 0; k--)
        acc = step(acc, a[k], b[k], fma);
    return acc;
}

static int perm[8192];
static float k_permuted(int K, const float *a, const float *b, int fma)
{
    float acc = 0.0f;
    for (int i = 0; i < 8192; i++) /* perm is a permutation of 0..8191: keep those below K */
        if (perm[i] < K)
            acc = step(acc, a[perm[i]], b[perm[i]], fma);
    return acc;
}

static float pairwise(int lo, int hi, const float *a, const float *b, int fma)
{
    if (hi - lo <= 2)
        return seq_range(lo, hi, a, b, fma);
    int mid = lo + (hi - lo) / 2;
    return pairwise(lo, mid, a, b, fma) + pairwise(mid, hi, a, b, fma);
}
static float k_pairwise(int K, const float *a, const float *b, int fma) { return pairwise(0, K, a, b, fma); }

/* 16-wide tiles summed sequentially, the tile sums combined pairwise. */
static float k_tiles16(int K, const float *a, const float *b, int fma)
{
    float part[8192 / 16 + 1];
    int nt = 0;
    for (int k0 = 0; k0 < K; k0 += 16)
        part[nt++] = seq_range(k0, k0 + 16 < K ? k0 + 16 : K, a, b, fma);
    while (nt > 1) {
        int m = 0;
        for (int i = 0; i < nt; i += 2)
            part[m++] = i + 1 < nt ? part[i] + part[i + 1] : part[i];
        nt = m;
    }
    return nt ? part[0] : 0.0f;
}

/* split-K: P contiguous chunks, each sequential, then added in order. */
static float split_k(int P, int K, const float *a, const float *b, int fma)
{
    float acc = 0.0f;
    int chunk = (K + P - 1) / P;
    for (int p = 0; p < P; p++) {
        int lo = p * chunk, hi = lo + chunk < K ? lo + chunk : K;
        acc += lo < hi ? seq_range(lo, hi, a, b, fma) : 0.0f;
    }
    return acc;
}
static float k_split2(int K, const float *a, const float *b, int fma) { return split_k(2, K, a, b, fma); }
static float k_split4(int K, const float *a, const float *b, int fma) { return split_k(4, K, a, b, fma); }
static float k_split8(int K, const float *a, const float *b, int fma) { return split_k(8, K, a, b, fma); }

/* 8 interleaved accumulators (k mod 8), as lanes of a warp, then a tree. */
static float k_strided8(int K, const float *a, const float *b, int fma)
{
    float acc[8] = {0};
    for (int k = 0; k < K; k++)
        acc[k % 8] = step(acc[k % 8], a[k], b[k], fma);
    for (int w = 4; w >= 1; w /= 2)
        for (int i = 0; i < w; i++)
            acc[i] += acc[i + w];
    return acc[0];
}

/* WRONG: accumulates in binary16, every step rounded (as hfma would). */
static float k_fp16_acc(int K, const float *a, const float *b, int use_fma)
{
    (void)use_fma;
    double acc = 0.0;
    for (int k = 0; k < K; k++)
        acc = tp_f16_to_double(tp_f16_from_double(fma((double)a[k], (double)b[k], acc)));
    return (float)acc;
}

/* WRONG: drops the last term. */
static float k_drop_last(int K, const float *a, const float *b, int fma) { return seq_range(0, K - 1, a, b, fma); }

static const struct {
    const char *name;
    sum_fn f;
    int correct;
} kernels[] = {
    {"sequential", k_sequential, 1}, {"reversed", k_reversed, 1}, {"permuted", k_permuted, 1},
    {"pairwise", k_pairwise, 1},     {"tiles16", k_tiles16, 1},   {"split-K 2", k_split2, 1},
    {"split-K 4", k_split4, 1},      {"split-K 8", k_split8, 1},  {"strided 8", k_strided8, 1},
    {"fp16 accumulation", k_fp16_acc, 0}, {"drop last k", k_drop_last, 0},
};
#define NKERNELS (int)(sizeof kernels / sizeof kernels[0])

/* ---- cases -------------------------------------------------------------- */

static const struct {
    const char *name, *fill_a, *fill_b;
} dists[] = {
    {"normal", "normal(0, 1)", "normal(0, 1)"},
    {"cancelling", "mirror(1, normal(0, 1))", "antimirror(0, normal(0, 8), 0.01)"},
    {"positive", "uniform(0, 1)", "uniform(0, 2)"},
    {"wide", "wide(-12, 4)", "wide(-12, 4)"},
    {"special", "special", "special"},
};
#define NDISTS (int)(sizeof dists / sizeof dists[0])

static const int Ks[] = {1, 16, 100, 1024};
#define NK (int)(sizeof Ks / sizeof Ks[0])
#define M 24
#define N 40

static tp_case *make_case(const char *dist, int K, const char *fa, const char *fb, uint64_t seed)
{
    tp_case *c = calloc(1, sizeof *c);
    char err[512];
    c->name = dist;
    c->seed = seed;
    c->ndims = 3;
    c->dim_names[0] = "M", c->dim_names[1] = "N", c->dim_names[2] = "K";
    c->dims[0] = M, c->dims[1] = N, c->dims[2] = K;
    c->ntensors = 3;
    const char *names[3] = {"A", "B", "C"};
    int64_t shapes[3][2] = {{M, K}, {K, N}, {M, N}};
    for (int t = 0; t < 3; t++) {
        tp_tensor *T = &c->tensors[t];
        T->name = names[t];
        T->dtype = TP_F16;
        T->rank = 2;
        T->shape[0] = shapes[t][0];
        T->shape[1] = shapes[t][1];
        T->numel = shapes[t][0] * shapes[t][1];
        T->data = calloc((size_t)T->numel, 2);
    }
    if (tp_fill_f16(c->tensors[0].data, 2, c->tensors[0].shape, fa, seed, "A", err, sizeof err) ||
        tp_fill_f16(c->tensors[1].data, 2, c->tensors[1].shape, fb, seed, "B", err, sizeof err)) {
        tap_diag("fill failed: %s", err);
        return NULL;
    }
    c->backend = "cuda";
    return c;
}

static void free_case(tp_case *c)
{
    for (int t = 0; t < c->ntensors; t++)
        free(c->tensors[t].data);
    free(c);
}

static json_int_t jint(const json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }
static double jnum(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    if (json_is_string(v)) /* "inf", "nan" */
        return strcmp(json_string_value(v), "inf") == 0 ? INFINITY : NAN;
    return json_number_value(v);
}

int main(void)
{
    /* a fixed random permutation of 0..8191 (Fisher-Yates, SplitMix64) */
    uint64_t st = 42;
    for (int i = 0; i < 8192; i++)
        perm[i] = i;
    for (int i = 8191; i > 0; i--) {
        uint64_t z = (st += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        int j = (int)(z % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }

    const tp_op *op = tp_op_find("gemm");
    char err[512];
    json_error_t jerr;
    tp_value *model = model_of(json_loads("{\"accumulation\":\"fp32\",\"order\":\"any\",\"fma\":\"any\"}", 0, &jerr));
    if (!tap_ok(op != NULL && op->check_model(model, err, sizeof err) == 0, "gemm op found, model accepted")) {
        tp_value_free(model);
        return tap_done();
    }

    long caught[NKERNELS] = {0};      /* cases with violations, per kernel */
    long fp16_k16 = 0, fp16_k16_caught = 0; /* fp16 accumulation, K >= 16 */
    long false_alarms[NKERNELS] = {0};
    double max_ratio = 0, max_raw = 0; /* correct kernels: err/bound after and before output rounding */
    char max_ratio_where[160] = "", max_raw_where[160] = "";
    float *a = malloc(8192 * sizeof *a), *b = malloc(8192 * sizeof *b);
    for (int d = 0; d < NDISTS; d++)
        for (int ki = 0; ki < NK; ki++) {
            int K = Ks[ki];
            tp_case *c = make_case(dists[d].name, K, dists[d].fill_a, dists[d].fill_b, 1000 + (uint64_t)d * 10 + ki);
            if (!c) {
                tap_ok(0, "%s K=%d: case built", dists[d].name, K);
                continue;
            }
            const uint16_t *A16 = c->tensors[0].data, *B16 = c->tensors[1].data;
            uint16_t *C16 = c->tensors[2].data;
            tp_ref *ref = malloc((size_t)M * N * sizeof *ref);
            int rc = op->reference(model, c, "C", ref, err, sizeof err);
            if (!tap_ok(rc == 0, "%s K=%d: reference computed%s%s", dists[d].name, K, rc ? ": " : "", rc ? err : "")) {
                free(ref);
                free_case(c);
                continue;
            }
            /* exact sums and sum|ab| for the raw (pre-rounding) ratio */
            float *Af = malloc((size_t)M * K * sizeof *Af), *Bf = malloc((size_t)K * N * sizeof *Bf);
            for (int i = 0; i < M * K; i++)
                Af[i] = (float)tp_f16_to_double(A16[i]);
            for (int i = 0; i < K * N; i++)
                Bf[i] = (float)tp_f16_to_double(B16[i]);
            double hi[M * N], lo[M * N], ab[M * N], ahi[M * N], alo[M * N];
            tp_gemm_exact(M, N, K, Af, Bf, hi, lo);
            float *Aa = malloc((size_t)M * K * sizeof *Aa), *Ba = malloc((size_t)K * N * sizeof *Ba);
            for (int i = 0; i < M * K; i++)
                Aa[i] = fabsf(Af[i]);
            for (int i = 0; i < K * N; i++)
                Ba[i] = fabsf(Bf[i]);
            tp_gemm_exact(M, N, K, Aa, Ba, ahi, alo); /* sum |a b|, exact */
            for (int i = 0; i < M * N; i++)
                ab[i] = ahi[i] + alo[i];
            free(Aa);
            free(Ba);
            long bad_correct = 0;
            for (int kn = 0; kn < NKERNELS; kn++)
                for (int fma = 0; fma < 2; fma++) {
                    if (!kernels[kn].correct && fma) /* the wrong kernels once */
                        continue;
                    for (int i = 0; i < M; i++)
                        for (int j = 0; j < N; j++) {
                            for (int k = 0; k < K; k++) {
                                a[k] = Af[i * K + k];
                                b[k] = Bf[k * N + j];
                            }
                            float s = kernels[kn].f(K, a, b, fma);
                            C16[i * N + j] = tp_f16_from_float(s);
                            if (kernels[kn].correct) {
                                double e = K * TP_DOT_C * ab[i * N + j] + K * TP_DOT_ETA;
                                double raw = fabs(((double)s - hi[i * N + j]) - lo[i * N + j]) / e;
                                if (raw > max_raw) {
                                    max_raw = raw;
                                    snprintf(max_raw_where, sizeof max_raw_where, "%s K=%d %s%s [%d,%d]",
                                             dists[d].name, K, kernels[kn].name, fma ? " fma" : "", i, j);
                                }
                            }
                        }
                    json_t *r = tp_check_output(&c->tensors[2], ref, 1e-2, 0.0);
                    json_int_t v = jint(r, "violations");
                    if (kernels[kn].correct) {
                        double ratio = jnum(r, "max_err_over_bound");
                        if (ratio > max_ratio) {
                            max_ratio = ratio;
                            snprintf(max_ratio_where, sizeof max_ratio_where, "%s K=%d %s%s", dists[d].name, K,
                                     kernels[kn].name, fma ? " fma" : "");
                        }
                        if (v) {
                            bad_correct++;
                            false_alarms[kn]++;
                            char *txt = json_dumps(json_object_get(r, "first_violations"), JSON_COMPACT);
                            tap_diag("%s K=%d %s%s: %lld violations: %.300s", dists[d].name, K, kernels[kn].name,
                                     fma ? " fma" : "", (long long)v, txt);
                            free(txt);
                        }
                    } else {
                        if (v)
                            caught[kn]++;
                        if (kernels[kn].f == k_fp16_acc && K >= 16) {
                            fp16_k16++;
                            fp16_k16_caught += v > 0;
                        }
                        tap_diag("%s K=%d %s (wrong kernel): %lld of %d elements violate", dists[d].name, K,
                                 kernels[kn].name, (long long)v, M * N);
                    }
                    json_decref(r);
                }
            tap_ok(bad_correct == 0, "%s K=%d: 9 fp32 orders x {fma, mul+add} never violate the admitted interval",
                   dists[d].name, K);
            free(Af);
            free(Bf);
            free(ref);
            free_case(c);
        }
    for (int kn = 0; kn < NKERNELS; kn++)
        if (kernels[kn].correct && false_alarms[kn])
            tap_diag("order %s had violations on %ld cases", kernels[kn].name, false_alarms[kn]);
    tap_ok(max_raw <= 1.0, "fp32 accumulation error <= K*TP_DOT_C*sum|ab| + K*TP_DOT_ETA before output rounding "
                           "(max ratio %.4g at %s)",
           max_raw, max_raw_where);
    tap_diag("bound tightness: largest err/bound over correct orders %.4g (%s) after the binary16 output rounding;"
             " %.4g (%s) for the fp32 accumulation error alone",
             max_ratio, max_ratio_where, max_raw, max_raw_where);
    for (int kn = 0; kn < NKERNELS; kn++)
        if (!kernels[kn].correct)
            tap_ok(caught[kn] > 0, "wrong kernel '%s' is caught on %ld of %d cases", kernels[kn].name, caught[kn],
                   NDISTS * NK);
    /* A bound much looser than needed would still catch a dropped term
     * somewhere; fp16 accumulation at K >= 16 (errors of a few binary16
     * ulps) must be caught on EVERY distribution. */
    tap_ok(fp16_k16_caught == fp16_k16, "fp16 accumulation is caught on every case with K >= 16 (%ld of %ld)",
           fp16_k16_caught, fp16_k16);
    free(a);
    free(b);
    tp_value_free(model);
    return tap_done();
}
