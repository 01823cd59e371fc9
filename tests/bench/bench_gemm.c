/* Throughput of the exact GEMM reference (oracles/gemm/proven/gemm.c, split-double
 * accumulation) against plain double accumulation of the same products,
 * single thread, same data, same run, same loop order (i, k, j).
 * The target is exact/plain >= 0.4 (each product is split into a high
 * and a low part: five double additions where plain accumulation has one).
 *
 * Usage: bench_gemm [M N K]   (default 256 1024 1024)
 * Prints a line for people and a JSON line for tools. Build with the
 * project flags (-O2 -ffp-contract=off ...); the plain loop gets the same
 * target_clones and vectoriser settings as tp_gemm_exact, so both may use
 * AVX2 and neither is handicapped by -O2. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "oracles/gemm/proven/gemm.h"
#include "core/tp_fp16.h"

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
    /* use the results (and report how often plain double is inexact) */
    size_t differ = 0;
    double check = 0;
    for (size_t i = 0; i < nc; i++) {
        differ += pl[i] != hi[i] + lo[i];
        check += hi[i] + lo[i];
    }
    double xr = macs / best_exact, dr = macs / best_plain, ratio = xr / dr;
    printf("gemm %dx%dx%d (checksum %.6g; plain double != exact on %zu of %zu entries)\n", M, N, K, check, differ,
           nc);
    printf("gemm exact: %.3g MAC/s per core, plain double: %.3g MAC/s per core, ratio %.3f%s\n", xr, dr, ratio,
           ratio >= 0.4 ? "" : " (below the 0.4 target)");
    printf("{\"bench\":\"gemm_exact\",\"M\":%d,\"N\":%d,\"K\":%d,\"exact_macs\":%.6g,\"double_macs\":%.6g,\"ratio\":%.4f}\n",
           M, N, K, xr, dr, ratio);
    free(A);
    free(B);
    free(hi);
    free(lo);
    free(pl);
    return 0;
}
