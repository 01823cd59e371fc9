/* Throughput of the exact GEMM reference against plain double
 * accumulation of the same products (loop order i, k, j), single thread,
 * same data, same run:
 *  - the one-pass tile kernel (oracles/gemm/proven/gemm_tile.c: for each
 *    product, both exact sums an admitted interval needs, sum a b and
 *    sum |a b|, split-double: seven double additions and two products by
 *    +-1 where plain accumulation has one addition), on panels of 8
 *    columns and rows of A already widened to double;
 *  - the whole reference of op gemm (tp_op_reference, one thread: B packed
 *    into panels, A widened, the tiles, the admitted intervals), the part
 *    of a `tolproof check` that grows with M*N*K. Issue 10's target: at
 *    least 0.5 times plain double;
 *  - tp_gemm_exact (oracles/gemm/proven/gemm.c), the proven S-only
 *    kernel the GPU provider's cross-check uses, for comparison.
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), best of 5
 * interleaved runs: on a shared machine the time a thread waits for a core
 * is not its own (the caches are still shared).
 *
 * Usage: bench_gemm [M N K]   (default 256 1024 1024)
 * Prints a line for people and a JSON line for tools. Build with the
 * project flags (-O2 -ffp-contract=off ...); the plain loop gets the same
 * target_clones and vectoriser settings as the kernels, so all may use
 * AVX2 and none is handicapped by -O2. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "oracles/gemm/proven/gemm.h"
#include "oracles/gemm/proven/gemm_tile.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "core/tp_plan_json.h"

#include <jansson.h>
#include <omp.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Plain double accumulation: acc[i][j] += (double)a[i][k] * b[k][j]. */
__attribute__((target_clones("avx2", "default"))) __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
__attribute__((noinline)) static void
plain_gemm(int M, int N, int K, const float *restrict A, const float *restrict B, double *restrict C)
{
    for (int i = 0; i < M; i++) {
        double *restrict acc = C + (size_t)i * N;
        for (int j = 0; j < N; j++)
            acc[j] = 0.0;
        for (int k = 0; k < K; k++) {
            const double a = A[(size_t)i * K + k];
            const float *restrict b = B + (size_t)k * N;
            for (int j = 0; j < N; j++)
                acc[j] += a * (double)b[j];
        }
    }
}

/* Both exact sums by the one-pass tile: B (K x N) in panels of 8 columns
 * of doubles (pb, the last padded with zeros), the rows of A as doubles
 * (ad); hi, lo, ahi, alo of element (i, j) left at 4 * (i * N + j). */
__attribute__((noinline)) static void tile_gemm(int M, int N, int K, const double *ad, const double *pb, double *out,
                                                tp_gemm_quad *acc)
{
    for (int j0 = 0; j0 < N; j0 += TP_GEMM_TILE_W) {
        const double *panel = pb + (size_t)j0 * K;
        for (int i = 0; i < M; i++) {
            tp_gemm_quad *t = acc + (size_t)i * 2;
            memset(t, 0, 2 * sizeof *t);
            tp_gemm_exact_tile(K, 0, ad + (size_t)i * K, panel, t);
        }
        for (int i = 0; i < M; i++)
            for (int c = 0; c < TP_GEMM_TILE_W && j0 + c < N; c++) {
                const tp_gemm_quad *q = acc + (size_t)i * 2 + c / 4;
                double *o = out + 4 * ((size_t)i * N + j0 + c);
                o[0] = q->hi[c % 4];
                o[1] = q->lo[c % 4];
                o[2] = q->ahi[c % 4];
                o[3] = q->alo[c % 4];
            }
    }
}

static uint64_t st = 0x9e3779b97f4a7c15ULL;
static double unif(void)
{
    uint64_t z = (st += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

int main(int argc, char **argv)
{
    int M = 256, N = 1024, K = 1024;
    if (argc == 4) {
        M = atoi(argv[1]);
        N = atoi(argv[2]);
        K = atoi(argv[3]);
    }
    if (M <= 0 || N <= 0 || K <= 0 || K > TP_GEMM_K_MAX_EXACT) {
        fprintf(stderr, "usage: %s [M N K] with K <= %d\n", argv[0], TP_GEMM_K_MAX_EXACT);
        return 2;
    }
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B);
    double *hi = malloc(nc * sizeof *hi), *lo = malloc(nc * sizeof *lo), *pl = malloc(nc * sizeof *pl);
    if (!A || !B || !hi || !lo || !pl) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* binary16 values, roughly normal(0, 1) */
    for (size_t i = 0; i < na; i++)
        A[i] = (float)tp_f16_to_double(tp_f16_from_double(2 * (unif() + unif() + unif() + unif() - 2)));
    for (size_t i = 0; i < nb; i++)
        B[i] = (float)tp_f16_to_double(tp_f16_from_double(2 * (unif() + unif() + unif() + unif() - 2)));

    /* the tile kernel's operands: A as doubles, B in panels of 8 doubles */
    const int np = (N + TP_GEMM_TILE_W - 1) / TP_GEMM_TILE_W;
    double *ad = malloc(na * sizeof *ad), *pb = calloc((size_t)np * TP_GEMM_TILE_W * K, sizeof *pb);
    double *four = malloc(4 * nc * sizeof *four);
    tp_gemm_quad *acc = malloc((size_t)M * 2 * sizeof *acc);
    if (!ad || !pb || !four || !acc) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < na; i++)
        ad[i] = A[i];
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
            pb[(size_t)(j / TP_GEMM_TILE_W) * TP_GEMM_TILE_W * K + (size_t)k * TP_GEMM_TILE_W + j % TP_GEMM_TILE_W] =
                B[(size_t)k * N + j];

    double macs = (double)M * N * K, best_exact = 1e30, best_plain = 1e30, best_tile = 1e30, best_ref = 1e30;
    for (int rep = 0; rep < 5; rep++) { /* interleaved, best of 5 each; the reference's below */
        double t0 = now();
        tp_gemm_exact(M, N, K, A, B, hi, lo);
        double t1 = now();
        plain_gemm(M, N, K, A, B, pl);
        double t2 = now();
        tile_gemm(M, N, K, ad, pb, four, acc);
        double t3 = now();
        if (t1 - t0 < best_exact)
            best_exact = t1 - t0;
        if (t2 - t1 < best_plain)
            best_plain = t2 - t1;
        if (t3 - t2 < best_tile)
            best_tile = t3 - t2;
    }
    size_t tile_off = 0; /* the tile's sums against tp_gemm_exact's and against |a| |b| */
    for (size_t i = 0; i < nc; i++)
        tile_off += four[4 * i] + four[4 * i + 1] != hi[i] + lo[i];
    {
        float *aa = malloc(na * sizeof *aa), *ab = malloc(nb * sizeof *ab);
        double *h2 = malloc(nc * sizeof *h2), *l2 = malloc(nc * sizeof *l2);
        if (!aa || !ab || !h2 || !l2) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        for (size_t i = 0; i < na; i++)
            aa[i] = fabsf(A[i]);
        for (size_t i = 0; i < nb; i++)
            ab[i] = fabsf(B[i]);
        tp_gemm_exact(M, N, K, aa, ab, h2, l2);
        for (size_t i = 0; i < nc; i++)
            tile_off += four[4 * i + 2] + four[4 * i + 3] != h2[i] + l2[i];
        free(aa);
        free(ab);
        free(h2);
        free(l2);
    }
    if (tile_off) {
        fprintf(stderr, "bench_gemm: the tile's exact sums differ from tp_gemm_exact's on %zu entries\n", tile_off);
        return 1;
    }
    /* the op's whole reference on the same operands, one thread, and the
     * plain loop again between its runs */
    {
        const tp_op *op = tp_op_find("gemm");
        char err[300] = "";
        json_t *mj = json_pack("{s:s,s:s,s:s}", "accumulation", "fp32", "order", "any", "fma", "any");
        tp_value *model = mj ? tp_value_from_json(mj, "model", err, sizeof err) : NULL;
        json_decref(mj);
        static tp_case c;
        c.name = "bench";
        c.backend = "cuda";
        c.ntensors = 3;
        const char *names[3] = {"A", "B", "C"};
        int64_t shapes[3][2] = {{M, K}, {K, N}, {M, N}};
        for (int t = 0; t < 3; t++) {
            tp_tensor *x = &c.tensors[t];
            x->name = names[t];
            x->dtype = TP_F16;
            x->rank = 2;
            x->shape[0] = shapes[t][0];
            x->shape[1] = shapes[t][1];
            x->numel = shapes[t][0] * shapes[t][1];
            x->data = calloc((size_t)x->numel, 2);
            x->initial = t == 2 ? calloc((size_t)x->numel, 2) : NULL;
        }
        for (size_t i = 0; i < na; i++)
            ((uint16_t *)c.tensors[0].data)[i] = tp_f16_from_double(A[i]);
        for (size_t i = 0; i < nb; i++)
            ((uint16_t *)c.tensors[1].data)[i] = tp_f16_from_double(B[i]);
        tp_ref *ref = malloc(nc * sizeof *ref);
        if (!op || !model || !ref) {
            fprintf(stderr, "bench_gemm: op gemm: %s\n", op ? err : "not registered");
            return 1;
        }
        omp_set_num_threads(1);
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now();
            if (tp_op_reference(op, model, &c, "C", ref, err, sizeof err) != 0) {
                fprintf(stderr, "bench_gemm: %s\n", err);
                return 1;
            }
            double t1 = now();
            plain_gemm(M, N, K, A, B, pl);
            double t2 = now();
            if (t1 - t0 < best_ref)
                best_ref = t1 - t0;
            if (t2 - t1 < best_plain)
                best_plain = t2 - t1;
        }
        size_t off = 0; /* the reference's exact values are the kernel's pairs, rounded */
        for (size_t i = 0; i < nc; i++)
            off += ref[i].exact != hi[i] + lo[i];
        if (off) {
            fprintf(stderr, "bench_gemm: the op's exact values differ from tp_gemm_exact's on %zu entries\n", off);
            return 1;
        }
        free(ref);
        for (int t = 0; t < 3; t++) {
            free(c.tensors[t].data);
            free(c.tensors[t].initial);
        }
        tp_value_free(model);
    }
    /* use the results (and report how often plain double is inexact) */
    size_t differ = 0;
    double check = 0;
    for (size_t i = 0; i < nc; i++) {
        differ += pl[i] != hi[i] + lo[i];
        check += hi[i] + lo[i];
    }
    double xr = macs / best_exact, dr = macs / best_plain, tr = macs / best_tile, rr = macs / best_ref;
    printf("gemm %dx%dx%d (checksum %.6g; plain double != exact on %zu of %zu entries)\n", M, N, K, check, differ,
           nc);
    printf("plain double: %.3g MAC/s per core\n", dr);
    printf("one-pass tile kernel (both exact sums): %.3g MAC/s per core, ratio %.3f\n", tr, tr / dr);
    printf("op gemm reference (packing, tiles, admitted intervals): %.3g MAC/s per core, ratio %.3f%s\n", rr, rr / dr,
           rr / dr >= 0.5 ? "" : " (below issue 10's 0.5)");
    printf("tp_gemm_exact (sum a b only): %.3g MAC/s per core, ratio %.3f\n", xr, xr / dr);
    printf("{\"bench\":\"gemm_exact\",\"M\":%d,\"N\":%d,\"K\":%d,\"double_macs\":%.6g,\"tile_macs\":%.6g,"
           "\"tile_ratio\":%.4f,\"reference_macs\":%.6g,\"reference_ratio\":%.4f,\"exact_s_macs\":%.6g,"
           "\"exact_s_ratio\":%.4f}\n",
           M, N, K, dr, tr, tr / dr, rr, rr / dr, xr, xr / dr);
    free(ad);
    free(pb);
    free(four);
    free(acc);
    free(A);
    free(B);
    free(hi);
    free(lo);
    free(pl);
    return 0;
}
