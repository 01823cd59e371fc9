/* See oracles/gemm/gemm_exact_provider.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "oracles/gemm/gemm_exact_provider.h"

#include "oracles/common/tp_exact_log.h"
#include "core/tp_timings.h"

#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const tp_gemm_exact_provider *provider;

void tp_gemm_exact_provider_set(const tp_gemm_exact_provider *p) { provider = p; }
const tp_gemm_exact_provider *tp_gemm_exact_provider_get(void) { return provider; }

/* TwoSum (Knuth): s = RN(a + b) and t = a + b - s exactly, in round to
 * nearest without FMA contraction (the library's -ffp-contract=off). */
static void two_sum(double a, double b, double *s, double *t)
{
    double x = a + b, bb = x - a;
    *t = (a - (x - bb)) + (b - bb);
    *s = x;
}

void tp_gemm_exact_normalize(size_t n, double *hi, double *lo)
{
    /* TwoSum is exact only in round-to-nearest: the caller's mode (to
     * nearest), given to each worker, which does not inherit it */
    const int mode = fegetround();
#pragma omp parallel if (n >= 65536)
    {
        int saved = fegetround();
        fesetround(mode);
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++)
            two_sum(hi[i], lo[i], &hi[i], &lo[i]);
        fesetround(saved);
    }
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t tp_gemm_cross_check_seed(void)
{
    static uint64_t seed;
    static int have;
    if (have)
        return seed;
    const char *env = getenv("TP_CROSS_CHECK_SEED");
    char *end = NULL;
    if (env && *env) {
        seed = (uint64_t)strtoull(env, &end, 0);
        if (*end) {
            fprintf(stderr, "TP_CROSS_CHECK_SEED=%s: expected an integer (decimal or 0x hex); using %llu\n", env,
                    (unsigned long long)seed);
        }
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec + ((uint64_t)getpid() << 32);
        seed = splitmix64(&x);
    }
    have = 1;
    return seed;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Element idx against the CPU path: 0 agree, 1 disagree (err says how). */
static int cross_check_one(const char *output, int N, int K, const float *a, const float *b, const double *hi,
                           const double *lo, const double *absum, size_t idx, float *col, tp_gemm_cpu_fn cpu,
                           char *err, size_t errlen)
{
    size_t i = idx / (size_t)N, j = idx % (size_t)N;
    for (int k = 0; k < K; k++)
        col[k] = b[(size_t)k * (size_t)N + j];
    double h, l, s;
    cpu(1, 1, K, a + i * (size_t)K, col, &h, &l, &s);
    two_sum(h, l, &h, &l);
    if (h == hi[idx] && l == lo[idx] && s == absum[idx])
        return 0;
    snprintf(err, errlen,
             "exact provider %s disagrees with the CPU exact path at %s[%zu, %zu]: provider %a + %a (sum|ab| %a), "
             "CPU %a + %a (sum|ab| %a)",
             provider->name, output, i, j, hi[idx], lo[idx], absum[idx], h, l, s);
    return 1;
}

/* The provider's sums, then the sample: 0, or -1 with err set. */
static int provided(const char *output, int M, int N, int K, const float *a, const float *b, double *hi, double *lo,
                    double *absum, tp_gemm_cpu_fn cpu, char *err, size_t errlen)
{
    tp_exact_check rec;
    memset(&rec, 0, sizeof rec);
    double t0 = now_seconds();
    char inner[600] = "";
    if (provider->sums(M, N, K, a, b, hi, lo, absum, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "exact provider %s: %s", provider->name, inner);
        return -1;
    }
    rec.seconds = now_seconds() - t0;
    tp_timing_end(t0, "gemm %s: exact sums by provider %s (transfers included)", output, provider->name);
    double t_cc = tp_timing_start();
    size_t n = (size_t)M * (size_t)N;
    /* The sample: every element, or the four corners (where tiling bugs
     * live) then TP_GEMM_CROSS_CHECK_MIN distinct elements (a random start
     * and a random step coprime to n). */
    size_t ns = n <= TP_GEMM_CROSS_CHECK_MIN ? n : 4 + TP_GEMM_CROSS_CHECK_MIN;
    size_t *sample = malloc((ns ? ns : 1) * sizeof *sample);
    char *verdict = calloc(ns ? ns : 1, 1);
    if (!sample || !verdict) {
        free(sample);
        free(verdict);
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
        return -1;
    }
    uint64_t seed = tp_gemm_cross_check_seed(), st = seed;
    if (n <= TP_GEMM_CROSS_CHECK_MIN) {
        for (size_t idx = 0; idx < n; idx++)
            sample[idx] = idx;
    } else {
        size_t corners[4] = {0, (size_t)N - 1, n - (size_t)N, n - 1};
        for (int c = 0; c < 4; c++)
            sample[c] = corners[c];
        uint64_t cur = splitmix64(&st) % n, step;
        do
            step = 1 + splitmix64(&st) % (n - 1);
        while (gcd64(step, n) != 1);
        for (int t = 0; t < TP_GEMM_CROSS_CHECK_MIN; t++) {
            sample[4 + t] = (size_t)cur;
            cur = (cur + step) % n; /* cur, step < n: no overflow below 2^63 */
        }
    }
    /* Elements in parallel (serially, 0.08 s per call at K = 4096 on the
     * GPU host), each worker in the caller's rounding mode; then the first
     * disagreement in sample order is the one reported, so the result and
     * the count of elements checked do not depend on the thread count. */
    const int mode = fegetround();
#pragma omp parallel
    {
        int saved = fegetround();
        fesetround(mode);
        float *col = malloc((size_t)(K ? K : 1) * sizeof *col);
#pragma omp for schedule(dynamic, 8)
        for (size_t q = 0; q < ns; q++)
            verdict[q] = col ? (char)cross_check_one(output, N, K, a, b, hi, lo, absum, sample[q], col, cpu, NULL, 0)
                             : 2;
        free(col);
        fesetround(saved);
    }
    int64_t checked = 0, bad = 0;
    int oom = 0;
    for (size_t q = 0; q < ns && !bad && !oom; q++, checked++) {
        oom = verdict[q] == 2;
        if (verdict[q] == 1) {
            float *col = malloc((size_t)(K ? K : 1) * sizeof *col);
            oom = !col;
            bad = col ? cross_check_one(output, N, K, a, b, hi, lo, absum, sample[q], col, cpu, err, errlen) : 0;
            free(col);
        }
    }
    free(sample);
    free(verdict);
    if (oom) {
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
        return -1;
    }
    tp_timing_end(t_cc, "gemm %s: %lld elements cross-checked on the CPU", output, (long long)checked);
    snprintf(rec.output, sizeof rec.output, "%s", output);
    snprintf(rec.provider, sizeof rec.provider, "%s", provider->name);
    snprintf(rec.device, sizeof rec.device, "%s", provider->device ? provider->device() : "");
    snprintf(rec.algorithm, sizeof rec.algorithm, "%s", provider->algorithm);
    snprintf(rec.against, sizeof rec.against,
             "op gemm's CPU path (tp_gemm_exact and tp_gemm_abs, oracles/gemm/proven/gemm.c), normalized");
    rec.elements = (int64_t)n;
    rec.sampled = checked;
    rec.disagreements = bad;
    rec.seed = seed;
    tp_exact_log_add(&rec);
    return bad ? -1 : 0;
}

int tp_gemm_exact_sums(const char *output, int M, int N, int K, const float *a, const float *b, double *hi,
                       double *lo, double *absum, tp_gemm_cpu_fn cpu, char *err, size_t errlen)
{
    if (provider) {
        if (provided(output, M, N, K, a, b, hi, lo, absum, cpu, err, errlen) != 0)
            return -1;
    } else
        cpu(M, N, K, a, b, hi, lo, absum);
    /* one representation of S for the bound code, whichever path gave it */
    double t = tp_timing_start();
    tp_gemm_exact_normalize((size_t)M * (size_t)N, hi, lo);
    tp_timing_end(t, "gemm %s: exact sums normalized", output);
    return 0;
}
