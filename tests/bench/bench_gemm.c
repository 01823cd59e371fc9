/* Throughput of the exact GEMM reference (oracles/gemm/proven/gemm.c, split-double
 * accumulation) against plain double accumulation of the same products,
 * single thread, same data, same run, same loop order (i, k, j).
 * The target is exact/plain >= 0.4 (each product is split into a high
 * and a low part: five double additions where plain accumulation has one).
 *
 * It also times the whole reference of op gemm (tp_op_reference, one
 * thread: the exact sums, the |product| sums the bound needs, which are a
 * second pass over the products, and the admitted intervals), the part of
 * a `tolproof check` that grows with M*N*K, against the same plain loop.
 *
 * Usage: bench_gemm [M N K]   (default 256 1024 1024)
 * Prints a line for people and a JSON line for tools. Build with the
 * project flags (-O2 -ffp-contract=off ...); the plain loop gets the same
 * target_clones and vectoriser settings as tp_gemm_exact, so both may use
 * AVX2 and neither is handicapped by -O2. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "oracles/gemm/proven/gemm.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "core/tp_plan_json.h"

#include <jansson.h>
#include <omp.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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

    double macs = (double)M * N * K, best_exact = 1e30, best_plain = 1e30;
    for (int rep = 0; rep < 3; rep++) { /* interleaved, best of 3 each */
        double t0 = now();
        tp_gemm_exact(M, N, K, A, B, hi, lo);
        double t1 = now();
        plain_gemm(M, N, K, A, B, pl);
        double t2 = now();
        if (t1 - t0 < best_exact)
            best_exact = t1 - t0;
        if (t2 - t1 < best_plain)
            best_plain = t2 - t1;
    }
    /* the op's whole reference on the same operands, one thread */
    double best_ref = 1e30;
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
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now();
            if (tp_op_reference(op, model, &c, "C", ref, err, sizeof err) != 0) {
                fprintf(stderr, "bench_gemm: %s\n", err);
                return 1;
            }
            double t1 = now();
            if (t1 - t0 < best_ref)
                best_ref = t1 - t0;
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
    double xr = macs / best_exact, dr = macs / best_plain, ratio = xr / dr, rr = macs / best_ref;
    printf("gemm %dx%dx%d (checksum %.6g; plain double != exact on %zu of %zu entries)\n", M, N, K, check, differ,
           nc);
    printf("gemm exact: %.3g MAC/s per core, plain double: %.3g MAC/s per core, ratio %.3f%s\n", xr, dr, ratio,
           ratio >= 0.4 ? "" : " (below the 0.4 target)");
    printf("op gemm reference (exact sums, |product| sums, admitted intervals): %.3g MAC/s per core, ratio %.3f "
           "to plain double\n",
           rr, rr / dr);
    printf("{\"bench\":\"gemm_exact\",\"M\":%d,\"N\":%d,\"K\":%d,\"exact_macs\":%.6g,\"double_macs\":%.6g,\"ratio\":%.4f,"
           "\"reference_macs\":%.6g,\"reference_ratio\":%.4f}\n",
           M, N, K, xr, dr, ratio, rr, rr / dr);
    free(A);
    free(B);
    free(hi);
    free(lo);
    free(pl);
    return 0;
}
