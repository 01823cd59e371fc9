/* See oracles/gemm/gemm_exact_provider.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "oracles/gemm/gemm_exact_provider.h"

#include "oracles/common/tp_exact_log.h"
#include "oracles/gemm/gemm_admitted.h"
#include "core/tp_timings.h"

#include "core/tp_fp16.h"

#include <fenv.h>
#include <pthread.h>
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

/* op(A) and op(B) as the CPU side of the cross-check reads them: the
 * widened row-major M x K and K x N floats, or (fa NULL) the binary16
 * operands. */
typedef struct {
    const float *fa, *fb;
    const tp_gemm_f16_operand *ha, *hb;
    int N, K;
} operands;

static float op_a(const operands *o, size_t i, size_t k)
{
    return o->fa ? o->fa[i * (size_t)o->K + k] : (float)tp_f16_to_double(o->ha->h[(int64_t)i * o->ha->rs + (int64_t)k * o->ha->cs]);
}

static float op_b(const operands *o, size_t k, size_t j)
{
    return o->fb ? o->fb[k * (size_t)o->N + j] : (float)tp_f16_to_double(o->hb->h[(int64_t)k * o->hb->rs + (int64_t)j * o->hb->cs]);
}

/* The CPU path's sums of element idx, normalized, into v[0..3] = hi, lo,
 * ahi, alo: S from op(A)'s row i and op(B)'s column j, A from their |x|
 * (scratch: 4K floats). */
static void cpu_element(const operands *o, size_t idx, float *scratch, tp_gemm_cpu_fn cpu, double v[4])
{
    const int K = o->K;
    size_t i = idx / (size_t)o->N, j = idx % (size_t)o->N;
    float *row = scratch, *col = scratch + K, *row_abs = scratch + 2 * (size_t)K, *col_abs = scratch + 3 * (size_t)K;
    for (int k = 0; k < K; k++) {
        row[k] = op_a(o, i, (size_t)k);
        col[k] = op_b(o, (size_t)k, j);
        row_abs[k] = fabsf(row[k]);
        col_abs[k] = fabsf(col[k]);
    }
    cpu(1, 1, K, row, col, &v[0], &v[1]);
    cpu(1, 1, K, row_abs, col_abs, &v[2], &v[3]);
    tp_two_sum(v[0], v[1], &v[0], &v[1]);
    tp_two_sum(v[2], v[3], &v[2], &v[3]);
}

/* The CPU path's sums of every sampled element, v[4q .. 4q+3], in
 * parallel, each worker in rounding mode `mode`: 0, or -1 when out of
 * memory. */
static int sample_cpu(const operands *o, const size_t *sample, size_t ns, tp_gemm_cpu_fn cpu, int mode, double *v)
{
    const size_t scratch_n = 4 * (size_t)(o->K ? o->K : 1);
    int oom = 0;
#pragma omp parallel
    {
        int saved = fegetround();
        fesetround(mode);
        float *scratch = malloc(scratch_n * sizeof *scratch);
        if (!scratch) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(dynamic, 8)
        for (size_t q = 0; q < ns; q++)
            if (scratch)
                cpu_element(o, sample[q], scratch, cpu, v + 4 * q);
        free(scratch);
        fesetround(saved);
    }
    return oom ? -1 : 0;
}

/* The provider's values p (4 per element, as sample_cpu's) against the
 * CPU's c, in sample order: the first disagreement is the one reported,
 * so the result and the count checked do not depend on the thread count.
 * Returns 0, or bit 1 S differs, bit 2 A differs (err says how, S first);
 * *checked: the elements compared. */
static int compare_sample(const char *output, int N, const size_t *sample, size_t ns, const double *p, const double *c,
                          int64_t *checked, char *err, size_t errlen)
{
    int bad = 0;
    size_t q = 0;
    for (; q < ns && !bad; q++) {
        const double *v = p + 4 * q, *w = c + 4 * q;
        bad = (v[0] != w[0] || v[1] != w[1]) | (v[2] != w[2] || v[3] != w[3]) << 1;
        size_t i = sample[q] / (size_t)N, j = sample[q] % (size_t)N;
        if (bad & 1)
            snprintf(err, errlen,
                     "exact provider %s disagrees with the CPU exact path at %s[%zu, %zu]: provider %a + %a, CPU %a + %a",
                     provider->name, output, i, j, v[0], v[1], w[0], w[1]);
        else if (bad)
            snprintf(err, errlen,
                     "exact provider %s disagrees with the CPU exact path at %s.abs_sum[%zu, %zu] (the sum of "
                     "|products|): provider %a + %a, CPU %a + %a",
                     provider->name, output, i, j, v[2], v[3], w[2], w[3]);
    }
    *checked = (int64_t)q;
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

/* The provider's sums p (4 per sampled element) against the CPU's c,
 * logged (seconds: the provider's call): 0, or -1 with err set. */
static int judge(const char *output, int M, int N, const size_t *sample, size_t ns, uint64_t seed, const double *p,
                 const double *c, double seconds, char *err, size_t errlen)
{
    double t = tp_timing_start();
    int64_t checked = 0;
    int bad = compare_sample(output, N, sample, ns, p, c, &checked, err, errlen);
    tp_timing_end(t, "gemm %s: %lld elements cross-checked on the CPU (both sums)", output, (long long)checked);
    size_t n = (size_t)M * (size_t)N;
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
    double *v = malloc(8 * (ns ? ns : 1) * sizeof *v); /* the provider's 4 per element, then the CPU's */
    const operands o = {a, b, NULL, NULL, N, K};
    int rc = -1;
    if (!sample || !v || sample_cpu(&o, sample, ns, cpu, fegetround(), v + 4 * ns) != 0)
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
    else {
        for (size_t q = 0; q < ns; q++) {
            v[4 * q] = hi[sample[q]];
            v[4 * q + 1] = lo[sample[q]];
            v[4 * q + 2] = ahi[sample[q]];
            v[4 * q + 3] = alo[sample[q]];
        }
        rc = judge(output, M, N, sample, ns, seed, v, v + 4 * ns, seconds, err, errlen);
    }
    free(sample);
    free(v);
    return rc;
}

/* The CPU's side of a cross-check, in a thread of its own while the
 * provider computes. */
typedef struct {
    const operands *o;
    const size_t *sample;
    size_t ns;
    tp_gemm_cpu_fn cpu;
    int mode, rc;
    double *v;
} sample_job;

static void *sample_run(void *arg)
{
    sample_job *j = arg;
    j->rc = sample_cpu(j->o, j->sample, j->ns, j->cpu, j->mode, j->v);
    return NULL;
}

int tp_gemm_exact_sums_kept(const char *output, int M, int N, int K, const tp_gemm_f16_operand *a,
                            const tp_gemm_f16_operand *b, tp_gemm_cpu_fn cpu, size_t **sample_out, size_t *nsample,
                            double **shi, double **slo, double **sahi, double **salo, char *err, size_t errlen)
{
    uint64_t seed = tp_gemm_cross_check_seed();
    size_t ns = 0, *sample = make_sample(M, N, seed, &ns);
    double *g = malloc(4 * (ns ? ns : 1) * sizeof *g), *c = malloc(4 * (ns ? ns : 1) * sizeof *c),
           *v = malloc(4 * (ns ? ns : 1) * sizeof *v);
    if (!sample || !g || !c || !v) {
        free(sample);
        free(g);
        free(c);
        free(v);
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
        return -1;
    }
    const operands o = {NULL, NULL, a, b, N, K};
    sample_job job = {&o, sample, ns, cpu, fegetround(), 0, c};
    pthread_t th;
    const int threaded = pthread_create(&th, NULL, sample_run, &job) == 0;
    double t0 = now_seconds();
    char inner[600] = "";
    int rc = provider->sums_kept(M, N, K, a, b, inner, sizeof inner);
    double seconds = now_seconds() - t0;
    if (rc != 0)
        snprintf(err, errlen, "exact provider %s: %s", provider->name, inner);
    else
        tp_timing_end(t0, "gemm %s: exact sums and abs sums by provider %s, kept on the device", output,
                      provider->name);
    if (threaded)
        pthread_join(th, NULL);
    else
        sample_run(&job);
    if (rc == 0 && job.rc != 0) {
        snprintf(err, errlen, "exact provider %s: out of memory for the cross-check", provider->name);
        rc = -1;
    }
    if (rc == 0 && provider->gather(ns, sample, g, g + ns, g + 2 * ns, g + 3 * ns, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "exact provider %s: %s", provider->name, inner);
        rc = -1;
    }
    if (rc == 0) {
        /* the pairs the bound code sees, normalized as whole sums are */
        tp_gemm_exact_normalize(ns, g, g + ns);
        tp_gemm_exact_normalize(ns, g + 2 * ns, g + 3 * ns);
        for (size_t q = 0; q < ns; q++)
            for (int k = 0; k < 4; k++)
                v[4 * q + (size_t)k] = g[(size_t)k * ns + q];
        rc = judge(output, M, N, sample, ns, seed, v, c, seconds, err, errlen);
    }
    free(c);
    free(v);
    if (rc != 0) {
        provider->release(); /* whatever it kept */
        free(sample);
        free(g);
        return -1;
    }
    *sample_out = sample;
    *nsample = ns;
    *shi = g;
    *slo = g + ns;
    *sahi = g + 2 * ns;
    *salo = g + 3 * ns;
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
