/* See oracles/gemm/gemm_exact_provider.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "oracles/gemm/gemm_exact_provider.h"

#include "oracles/common/tp_exact_log.h"
#include "oracles/gemm/gemm_admitted.h"
#include "core/tp_timings.h"

#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const tp_gemm_exact_provider *provider;

void tp_gemm_exact_provider_set(const tp_gemm_exact_provider *p) { provider = p; }
const tp_gemm_exact_provider *tp_gemm_exact_provider_get(void) { return provider; }

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
            tp_two_sum(hi[i], lo[i], &hi[i], &lo[i]);
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

/* Element idx against the CPU path, which computes S from a's row i and
 * b's column j and A from their |x| copies (scratch: 3K floats); v: the
 * provider's hi, lo, ahi, alo of the element. 0 both agree, else bit 1 S
 * differs, bit 2 A differs (err, when given, says how, S first). */
static int cross_check_one(const char *output, int N, int K, const float *a, const float *b, const double v[4],
                           size_t idx, float *scratch, tp_gemm_cpu_fn cpu, char *err, size_t errlen)
{
    size_t i = idx / (size_t)N, j = idx % (size_t)N;
    float *col = scratch, *arow_abs = scratch + K, *col_abs = scratch + 2 * (size_t)K;
    const float *arow = a + i * (size_t)K;
    for (int k = 0; k < K; k++) {
        col[k] = b[(size_t)k * (size_t)N + j];
        col_abs[k] = fabsf(col[k]);
        arow_abs[k] = fabsf(arow[k]);
    }
    double h, l, ah, al;
    cpu(1, 1, K, arow, col, &h, &l);
    cpu(1, 1, K, arow_abs, col_abs, &ah, &al);
    tp_two_sum(h, l, &h, &l);
    tp_two_sum(ah, al, &ah, &al);
    int bad = (h != v[0] || l != v[1]) | (ah != v[2] || al != v[3]) << 1;
    if (bad & 1)
        snprintf(err, errlen,
                 "exact provider %s disagrees with the CPU exact path at %s[%zu, %zu]: provider %a + %a, CPU %a + %a",
                 provider->name, output, i, j, v[0], v[1], h, l);
    else if (bad)
        snprintf(err, errlen,
                 "exact provider %s disagrees with the CPU exact path at %s.abs_sum[%zu, %zu] (the sum of "
                 "|products|): provider %a + %a, CPU %a + %a",
                 provider->name, output, i, j, v[2], v[3], ah, al);
    return bad;
}

/* The log entry of one of the two sums. */
static void log_sums(const char *output, const char *suffix, size_t n, int64_t checked, int64_t bad, uint64_t seed,
                     double seconds)
{
    tp_exact_check rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.output, sizeof rec.output, "%s%s", output, suffix);
    snprintf(rec.provider, sizeof rec.provider, "%s", provider->name);
    snprintf(rec.device, sizeof rec.device, "%s", provider->device ? provider->device() : "");
    snprintf(rec.algorithm, sizeof rec.algorithm, "%s", provider->algorithm);
    snprintf(rec.against, sizeof rec.against,
             "op gemm's CPU path (tp_gemm_exact on the operands, or on their |x| for the abs sum, "
             "oracles/gemm/proven/gemm.c), normalized");
    rec.elements = (int64_t)n;
    rec.sampled = checked;
    rec.disagreements = bad;
    rec.seed = seed;
    rec.seconds = seconds;
    tp_exact_log_add(&rec);
}

/* The sample: every element, or the four corners (where tiling bugs
 * live) then TP_GEMM_CROSS_CHECK_MIN distinct elements (a random start
 * and a random step coprime to n). NULL when out of memory. */
static size_t *make_sample(int M, int N, uint64_t seed, size_t *ns_out)
{
    size_t n = (size_t)M * (size_t)N;
    size_t ns = n <= TP_GEMM_CROSS_CHECK_MIN ? n : 4 + TP_GEMM_CROSS_CHECK_MIN;
    size_t *sample = malloc((ns ? ns : 1) * sizeof *sample);
    if (!sample)
        return NULL;
    uint64_t st = seed;
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
    *ns_out = ns;
    return sample;
}

/* The provider's values of sample element q: v[0..3] = hi, lo, ahi, alo. */
typedef void (*sample_values_fn)(const void *arg, size_t q, size_t idx, double v[4]);

typedef struct {
    const double *hi, *lo, *ahi, *alo;
} sums_arrays;

static void values_whole(const void *arg, size_t q, size_t idx, double v[4])
{
    (void)q;
    const sums_arrays *s = arg;
    v[0] = s->hi[idx];
    v[1] = s->lo[idx];
    v[2] = s->ahi[idx];
    v[3] = s->alo[idx];
}

static void values_gathered(const void *arg, size_t q, size_t idx, double v[4])
{
    (void)idx;
    values_whole(arg, 0, q, v);
}

/* The sample against cpu: 0, or -1 with err set; logged either way
 * (seconds: the provider's call). */
static int cross_check(const char *output, int M, int N, int K, const float *a, const float *b, const size_t *sample,
                       size_t ns, uint64_t seed, sample_values_fn values, const void *arg, tp_gemm_cpu_fn cpu,
                       double seconds, char *err, size_t errlen)
{
    double t_cc = tp_timing_start();
    size_t n = (size_t)M * (size_t)N;
    char *verdict = calloc(ns ? ns : 1, 1);
    if (!verdict) {
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
        return -1;
    }
    /* Elements in parallel (serially, 0.08 s per sum at K = 4096 on the
     * GPU host), each worker in the caller's rounding mode; then the first
     * disagreement in sample order is the one reported, so the result and
     * the count of elements checked do not depend on the thread count. */
    const int mode = fegetround();
    const size_t scratch_n = 3 * (size_t)(K ? K : 1);
#pragma omp parallel
    {
        int saved = fegetround();
        fesetround(mode);
        float *scratch = malloc(scratch_n * sizeof *scratch);
#pragma omp for schedule(dynamic, 8)
        for (size_t q = 0; q < ns; q++) {
            double v[4];
            values(arg, q, sample[q], v);
            verdict[q] = scratch ? (char)cross_check_one(output, N, K, a, b, v, sample[q], scratch, cpu, NULL, 0) : 4;
        }
        free(scratch);
        fesetround(saved);
    }
    int64_t checked = 0;
    int bad = 0, oom = 0;
    for (size_t q = 0; q < ns && !bad && !oom; q++, checked++) {
        oom = verdict[q] == 4;
        if (!oom && verdict[q]) {
            float *scratch = malloc(scratch_n * sizeof *scratch);
            double v[4];
            values(arg, q, sample[q], v);
            oom = !scratch;
            bad = scratch ? cross_check_one(output, N, K, a, b, v, sample[q], scratch, cpu, err, errlen) : 0;
            free(scratch);
        }
    }
    free(verdict);
    if (oom) {
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
        return -1;
    }
    tp_timing_end(t_cc, "gemm %s: %lld elements cross-checked on the CPU (both sums)", output, (long long)checked);
    log_sums(output, "", n, checked, bad & 1, seed, seconds);
    log_sums(output, ".abs_sum", n, checked, (bad & 2) >> 1, seed, seconds);
    return bad ? -1 : 0;
}

/* The provider's sums, then the sample: 0, or -1 with err set. */
static int provided(const char *output, int M, int N, int K, const float *a, const float *b, double *hi, double *lo,
                    double *ahi, double *alo, tp_gemm_cpu_fn cpu, char *err, size_t errlen)
{
    double t0 = now_seconds();
    char inner[600] = "";
    if (provider->sums(M, N, K, a, b, hi, lo, ahi, alo, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "exact provider %s: %s", provider->name, inner);
        return -1;
    }
    double seconds = now_seconds() - t0;
    tp_timing_end(t0, "gemm %s: exact sums and abs sums by provider %s (transfers included)", output,
                  provider->name);
    uint64_t seed = tp_gemm_cross_check_seed();
    size_t ns = 0, *sample = make_sample(M, N, seed, &ns);
    if (!sample) {
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
        return -1;
    }
    const sums_arrays arrays = {hi, lo, ahi, alo};
    int rc = cross_check(output, M, N, K, a, b, sample, ns, seed, values_whole, &arrays, cpu, seconds, err, errlen);
    free(sample);
    return rc;
}

int tp_gemm_exact_sums_kept(const char *output, int M, int N, int K, const float *a, const float *b,
                            tp_gemm_cpu_fn cpu, size_t **sample_out, size_t *nsample, double **shi, double **slo,
                            double **sahi, double **salo, char *err, size_t errlen)
{
    double t0 = now_seconds();
    char inner[600] = "";
    if (provider->sums_kept(M, N, K, a, b, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "exact provider %s: %s", provider->name, inner);
        return -1;
    }
    double seconds = now_seconds() - t0;
    tp_timing_end(t0, "gemm %s: exact sums and abs sums by provider %s, kept on the device", output, provider->name);
    uint64_t seed = tp_gemm_cross_check_seed();
    size_t ns = 0, *sample = make_sample(M, N, seed, &ns);
    double *v = malloc(4 * (ns ? ns : 1) * sizeof *v);
    if (!sample || !v) {
        free(sample);
        free(v);
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
        return -1;
    }
    const sums_arrays g = {v, v + ns, v + 2 * ns, v + 3 * ns};
    int rc = provider->gather(ns, sample, v, v + ns, v + 2 * ns, v + 3 * ns, inner, sizeof inner);
    if (rc != 0)
        snprintf(err, errlen, "exact provider %s: %s", provider->name, inner);
    else {
        /* the pairs the bound code sees, normalized as whole sums are */
        tp_gemm_exact_normalize(ns, v, v + ns);
        tp_gemm_exact_normalize(ns, v + 2 * ns, v + 3 * ns);
        rc = cross_check(output, M, N, K, a, b, sample, ns, seed, values_gathered, &g, cpu, seconds, err, errlen);
    }
    if (rc != 0) {
        free(sample);
        free(v);
        return -1;
    }
    *sample_out = sample;
    *nsample = ns;
    *shi = v;
    *slo = v + ns;
    *sahi = v + 2 * ns;
    *salo = v + 3 * ns;
    return 0;
}

float *tp_gemm_abs_copy(const float *x, size_t n)
{
    float *y = malloc(n * sizeof *y + 1);
    if (y) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            y[i] = fabsf(x[i]);
    }
    return y;
}

int tp_gemm_exact_sums(const char *output, int M, int N, int K, const float *a, const float *b, double *hi,
                       double *lo, double *ahi, double *alo, tp_gemm_cpu_fn cpu, char *err, size_t errlen)
{
    if (provider) {
        if (provided(output, M, N, K, a, b, hi, lo, ahi, alo, cpu, err, errlen) != 0)
            return -1;
    } else {
        float *aa = tp_gemm_abs_copy(a, (size_t)M * (size_t)K), *ab = tp_gemm_abs_copy(b, (size_t)K * (size_t)N);
        if (!aa || !ab) {
            free(aa);
            free(ab);
            snprintf(err, errlen, "gemm %s: out of memory for the |x| copies", output);
            return -1;
        }
        cpu(M, N, K, a, b, hi, lo);
        cpu(M, N, K, aa, ab, ahi, alo);
        free(aa);
        free(ab);
    }
    /* one representation of each sum for the bound code, whichever path gave it */
    double t = tp_timing_start();
    tp_gemm_exact_normalize((size_t)M * (size_t)N, hi, lo);
    tp_gemm_exact_normalize((size_t)M * (size_t)N, ahi, alo);
    tp_timing_end(t, "gemm %s: exact sums normalized", output);
    return 0;
}
