/* Checks the GPU exact reference's arithmetic on the host, and the exact
 * provider hook of op "gemm" (oracles/gemm/gemm_exact_provider.h).
 *  - tp_fx_pack on every finite binary16 value;
 *  - oracles/gemm/gemm_fixed.h is the very code the CUDA kernel runs
 *    (__host__ __device__); here it runs in the kernel's per-element order
 *    (k = 0 .. K-1) and must give, bit for bit, the CPU path's exact sum
 *    (tp_gemm_exact, normalized by TwoSum) and its exact sum of |products|,
 *    on adversarial inputs: every binade (subnormals to 65504), products
 *    near 2^32 summed to nearly 2^45 at K = 8192, cancellations leaving a
 *    sum of 2^-48, ties of the double-double rounding, lone signs;
 *  - the 128-bit accumulator at K = 65536 (beyond the CPU path's 8192)
 *    against __int128 and MPFR;
 *  - the hook: an emulated provider gives the same admitted intervals as
 *    the CPU path, its sample cross-check is logged (size, seed,
 *    disagreements), and a provider wrong in one element is an error naming
 *    it, not a verdict.
 * Build with -ffp-contract=off. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "tests/test_rng.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "oracles/common/tp_exact_log.h"
#include "oracles/gemm/gemm_exact_provider.h"
#include "oracles/gemm/gemm_fixed.h"
#include "oracles/gemm/proven/gemm.h"
#include "tests/case_tensor.h"
#include "tests/fixed_provider.h"
#include "tests/model_json.h"
#include "tests/tap.h"

#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x6a09e667f3bcc908ULL;
static uint64_t rnd(void) { return tp_test_splitmix64(&rng_state); }

static float wide_value(void) { return tp_test_finite_f16(&rng_state); }

/* Every element of A (MxK) B (KxN) through gemm_fixed.h against the CPU
 * path (tp_gemm_exact on A, B and on |A|, |B|, normalized): the count of
 * elements that differ in S or in the sum of |products|. */
static long compare_with_cpu(int M, int N, int K, const float *a, const float *b)
{
    size_t n = (size_t)M * N;
    double *h = malloc(n * sizeof *h), *l = malloc(n * sizeof *l), *ah = malloc(n * sizeof *ah),
           *al = malloc(n * sizeof *al);
    float *aa = malloc((size_t)M * K * sizeof *aa), *ab = malloc((size_t)K * N * sizeof *ab);
    for (size_t i = 0; i < (size_t)M * K; i++)
        aa[i] = fabsf(a[i]);
    for (size_t i = 0; i < (size_t)K * N; i++)
        ab[i] = fabsf(b[i]);
    tp_gemm_exact(M, N, K, a, b, h, l);
    tp_gemm_exact(M, N, K, aa, ab, ah, al);
    tp_gemm_exact_normalize(n, h, l);
    tp_gemm_exact_normalize(n, ah, al);
    long bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            size_t idx = (size_t)i * N + j;
            double fh, fl, fah, fal;
            fixed_element(K, a + (size_t)i * K, b, N, j, &fh, &fl, &fah, &fal);
            if (fh != h[idx] || fl != l[idx] || fah != ah[idx] || fal != al[idx]) {
                if (bad++ < 3)
                    tap_diag("[%d, %d]: fixed %a + %a (abs %a + %a), CPU %a + %a (abs %a + %a)", i, j, fh, fl, fah,
                             fal, h[idx], l[idx], ah[idx], al[idx]);
            }
        }
    free(h);
    free(l);
    free(ah);
    free(al);
    free(aa);
    free(ab);
    return bad;
}

static void shape_test(const char *what, int M, int N, int K, float (*gen)(int i, int k, int which))
{
    float *a = malloc((size_t)M * K * sizeof *a), *b = malloc((size_t)K * N * sizeof *b);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            a[(size_t)i * K + k] = gen(i, k, 0);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
            b[(size_t)k * N + j] = gen(j, k, 1);
    long bad = compare_with_cpu(M, N, K, a, b);
    tap_ok(bad == 0, "%s (%dx%dx%d): gemm_fixed.h equals the CPU path bit for bit (%ld elements differ)", what, M, N,
           K, bad);
    free(a);
    free(b);
}

static float g_wide(int i, int k, int which)
{
    (void)i, (void)k, (void)which;
    return wide_value();
}
static float g_max(int i, int k, int which)
{
    (void)k, (void)which;
    return i % 2 ? -65504.0f : 65504.0f; /* rows/columns of one sign: sums near +-2^45 */
}
/* pairs that cancel, one tiny product left: S = 2^-48 * (something small) */
static float g_cancel(int i, int k, int which)
{
    if (which == 0)
        return k == 0 ? 0x1p-24f * (float)(1 + i % 3) : (k % 2 ? 65504.0f : -65504.0f);
    return k == 0 ? 0x1p-24f * (float)(1 + i % 5) : 65504.0f;
}
static float g_subnormal(int i, int k, int which)
{
    (void)which;
    return (float)tp_f16_to_double((uint16_t)((rnd() % 1024) | ((i + k) % 2 ? 0x8000 : 0)));
}

/* tp_fx_to_dd on hand-made sums (products pm * 2^s in units of 2^-48):
 * ties to even of the double-double, signs, the smallest unit. */
static void tie_tests(void)
{
    struct {
        int32_t pm[3];
        int s[3];
        double hi, lo;
        const char *what;
    } t[] = {
        /* 2^78 + 2^25 units: half an ulp of 2^30 (2^-22), a tie: to even */
        {{1 << 20, 1, 0}, {58, 25, 0}, 0x1p30, 0x1p-23, "2^30 + 2^-23 (a tie) rounds to even 2^30"},
        {{1 << 20, 1, 1}, {58, 26, 25}, 0x1p30 + 0x1p-21, -0x1p-23, "2^30 + 3*2^-23 (a tie, odd) rounds up"},
        {{-(1 << 20), -1, 0}, {58, 25, 0}, -0x1p30, -0x1p-23, "-(2^30 + 2^-23) rounds to even -2^30"},
        {{1, 0, 0}, {0, 0, 0}, 0x1p-48, 0.0, "2^-48 is exact"},
        {{1 << 20, -1, 0}, {58, 0, 0}, 0x1p30, -0x1p-48, "2^30 - 2^-48 rounds to 2^30, remainder -2^-48"},
        {{3, 0, 0}, {50, 0, 0}, 0x3p2, 0.0, "3*2^2 has 2 significant bits: exact"},
        {{-1, 1, 0}, {40, 40, 0}, 0.0, 0.0, "x - x is +0"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        tp_fx128 acc = {0, 0};
        for (int j = 0; j < 3; j++)
            if (t[i].pm[j])
                tp_fx_add(&acc, t[i].pm[j], t[i].s[j]);
        double hi = 1, lo = 1;
        int rc = tp_fx_to_dd(acc, &hi, &lo);
        tap_ok(rc == 0 && hi == t[i].hi && lo == t[i].lo && (signbit(hi) != 0) == (signbit(t[i].hi) != 0),
               "tp_fx_to_dd: %s (got %a + %a)", t[i].what, hi, lo);
    }
}

/* K = 65536 products summed in the accumulator, against __int128 and the
 * double-double against MPFR. */
static void wide_k_test(const char *what, int K, int sign_mode)
{
    tp_fx128 acc = {0, 0}, aacc = {0, 0};
    __int128 ref = 0, aref = 0;
    for (int k = 0; k < K; k++) {
        float a = sign_mode == 0 ? 65504.0f : wide_value(), b = sign_mode == 0 ? 65504.0f : wide_value();
        if (sign_mode == 2 && k % 2)
            a = -a;
        int32_t pa = tp_fx_pack(a), pb = tp_fx_pack(b);
        tp_fx_mac(&acc, &aacc, tp_fx_mant(pa), tp_fx_exp(pa), tp_fx_mant(pb), tp_fx_exp(pb));
        __int128 term = (__int128)((int64_t)tp_fx_mant(pa) * tp_fx_mant(pb)) << (tp_fx_exp(pa) + tp_fx_exp(pb));
        ref += term;
        aref += term < 0 ? -term : term;
        /* the product itself, as a double: exact */
        double p = (double)a * (double)b;
        __int128 pu = (__int128)ldexp(p, 48); /* |p| 2^48 < 2^80: ldexp exact, conversion exact */
        if (pu != (__int128)((int64_t)tp_fx_mant(pa) * tp_fx_mant(pb)) << (tp_fx_exp(pa) + tp_fx_exp(pb))) {
            tap_ok(0, "%s: the packed product of %a and %a is not their product", what, (double)a, (double)b);
            return;
        }
    }
    int same = (uint64_t)ref == acc.lo && (int64_t)(ref >> 64) == acc.hi && (uint64_t)aref == aacc.lo &&
               (int64_t)(aref >> 64) == aacc.hi;
    mpfr_t x, h;
    mpfr_inits2(256, x, h, (mpfr_ptr)0);
    mpfr_set_si(x, (long)(int64_t)(ref >> 64), MPFR_RNDN);
    mpfr_mul_2si(x, x, 64, MPFR_RNDN);
    mpfr_add_ui(x, x, (unsigned long)(uint64_t)ref, MPFR_RNDN); /* exact at 256 bits */
    mpfr_mul_2si(x, x, -48, MPFR_RNDN);
    double want_hi = mpfr_get_d(x, MPFR_RNDN);
    mpfr_sub_d(h, x, want_hi, MPFR_RNDN);
    double want_lo = mpfr_get_d(h, MPFR_RNDN);
    int lo_exact = mpfr_cmp_d(h, want_lo) == 0;
    mpfr_clears(x, h, (mpfr_ptr)0);
    double hi = 0, lo = 0;
    int rc = tp_fx_to_dd(acc, &hi, &lo);
    tap_ok(same && rc == 0 && hi == want_hi && lo == want_lo && lo_exact,
           "%s, K = %d: 128-bit sums (of products and of |products|) equal __int128, double-double equals MPFR's RN and remainder (%a + %a)", what, K,
           hi, lo);
}

/* A 2-input gemm case on the hand: A MxK, B KxN, C MxN (outputs zero). */
static void gemm_case(tp_case *c, int M, int N, int K, uint16_t *A, uint16_t *B, uint16_t *C)
{
    memset(c, 0, sizeof *c);
    c->name = "t";
    c->backend = "cuda";
    case_add_tensor(c, "A", TP_F16, 2, M, K, A, 0);
    case_add_tensor(c, "B", TP_F16, 2, K, N, B, 0);
    case_add_tensor(c, "C", TP_F16, 2, M, N, C, 1);
}

static void hook_tests(void)
{
    const tp_op *op = tp_op_find("gemm");
    tp_value *model = model_of(json_pack("{s:s, s:s, s:s}", "accumulation", "fp32", "order", "any", "fma", "any"));
    if (!tap_ok(op && model, "op gemm and a model"))
        return;
    static const int shapes[][3] = {{7, 9, 33}, {40, 50, 300}, {1, 1, 8192}};
    for (int sh = 0; sh < 3; sh++) {
        int M = shapes[sh][0], N = shapes[sh][1], K = shapes[sh][2];
        uint16_t *A = malloc((size_t)M * K * 2), *B = malloc((size_t)K * N * 2), *C = calloc((size_t)M * N, 2);
        for (size_t i = 0; i < (size_t)M * K; i++)
            A[i] = tp_f16_from_double(wide_value());
        for (size_t i = 0; i < (size_t)K * N; i++)
            B[i] = tp_f16_from_double(wide_value());
        tp_case c;
        gemm_case(&c, M, N, K, A, B, C);
        size_t n = (size_t)M * N;
        tp_ref *cpu = calloc(n, sizeof *cpu), *emu = calloc(n, sizeof *emu);
        char err[800] = "";
        tp_gemm_exact_provider_set(NULL);
        tp_exact_log_reset();
        int rc_cpu = tp_op_reference(op, model, &c, "C", cpu, err, sizeof err);
        int logged_cpu = tp_exact_log_count();
        tp_gemm_exact_provider_set(&fixed_provider);
        fixed_provider_wrong_at = -1;
        int rc_emu = tp_op_reference(op, model, &c, "C", emu, err, sizeof err);
        tap_ok(rc_cpu == 0 && rc_emu == 0 && logged_cpu == 0 && memcmp(cpu, emu, n * sizeof *cpu) == 0,
               "%dx%dx%d: a provider's sums give the CPU path's references bit for bit; the CPU path logs nothing "
               "(%s)",
               M, N, K, err);
        /* two provider calls per output: the exact sum S and the exact sum
         * of |products| (an exact GEMM of |A| and |B|), each logged */
        const tp_exact_check *x = tp_exact_log_get(0), *y = tp_exact_log_get(1);
        int64_t want = n <= TP_GEMM_CROSS_CHECK_MIN ? (int64_t)n : TP_GEMM_CROSS_CHECK_MIN + 4;
        int both = 1;
        for (int e = 0; e < 2; e++) {
            const tp_exact_check *z = e ? y : x;
            both = both && z && strcmp(z->output, e ? "C.abs_sum" : "C") == 0 && z->sampled == want && z->elements == (int64_t)n &&
                   z->disagreements == 0 && z->seed == tp_gemm_cross_check_seed() &&
                   strcmp(z->device, "host emulation") == 0;
        }
        tap_ok(tp_exact_log_count() == 2 && both,
               "%dx%dx%d: logged: outputs C and C.abs_sum, %lld of %lld elements cross-checked (want %lld), seed 0x%llx, 0 "
               "disagreements",
               M, N, K, x ? (long long)x->sampled : -1LL, (long long)n, (long long)want,
               x ? (unsigned long long)x->seed : 0ULL);
        /* wrong in one element, in S and then in the abs sum: an error naming
         * it (n <= 1000: every element sampled; else a corner) */
        for (int in_abs = 0; in_abs < 2; in_abs++) {
            tp_exact_log_reset();
            fixed_provider_wrong_at = n <= TP_GEMM_CROSS_CHECK_MIN ? (long)(n / 2) : (long)(n - 1);
            fixed_provider_wrong_abs = in_abs;
            err[0] = 0;
            int rc_bad = tp_op_reference(op, model, &c, "C", emu, err, sizeof err);
            char name[64];
            snprintf(name, sizeof name, "%s[%ld, %ld]", in_abs ? "C.abs_sum" : "C", fixed_provider_wrong_at / N,
                     fixed_provider_wrong_at % N);
            const tp_exact_check *s_log = tp_exact_log_get(0), *a_log = tp_exact_log_get(1);
            tap_ok(rc_bad != 0 && strstr(err, "disagrees with the CPU exact path") && strstr(err, name) &&
                       tp_exact_log_count() == 2 && s_log && a_log && s_log->disagreements == !in_abs &&
                       a_log->disagreements == in_abs && s_log->sampled == a_log->sampled,
                   "%dx%dx%d: a provider wrong by 2^-48 in %s is an error naming it, logged against that sum: %s", M,
                   N, K, name, err);
        }
        fixed_provider_wrong_abs = 0;
        tp_gemm_exact_provider_set(NULL);
        fixed_provider_wrong_at = -1;
        free(cpu);
        free(emu);
        free(A);
        free(B);
        free(C);
    }
    tp_value_free(model);
}

/* Every finite binary16 value packs to m * 2^(e - 24) with |m| < 2^11 and
 * 0 <= e <= 29, equal to it. */
static void pack_all(void)
{
    long bad = 0;
    for (unsigned h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00)
            continue;
        double v = tp_f16_to_double((uint16_t)h);
        int32_t p = tp_fx_pack((float)v), m = tp_fx_mant(p);
        int e = tp_fx_exp(p);
        if (ldexp((double)m, e - 24) != v || e < 0 || e > 29 || m <= -2048 || m >= 2048)
            bad++;
    }
    tap_ok(bad == 0, "tp_fx_pack: all 63488 finite binary16 values as m * 2^(e - 24), |m| < 2^11, 0 <= e <= 29 (%ld wrong)",
           bad);
}

int main(void)
{
    setenv("TP_CROSS_CHECK_SEED", "0x5eed", 1);
    pack_all();
    shape_test("wide binades", 13, 17, 1000, g_wide);
    shape_test("wide binades, K = 8192", 3, 5, 8192, g_wide);
    shape_test("65504^2 products, one sign per row and column", 4, 4, 8192, g_max);
    shape_test("cancelling 65504^2 pairs around a subnormal product", 6, 10, 8191, g_cancel);
    shape_test("subnormals of both signs", 9, 9, 4096, g_subnormal);
    shape_test("K = 1", 5, 3, 1, g_wide);
    shape_test("K = 0", 2, 3, 0, g_wide);
    tie_tests();
    wide_k_test("65504^2 products of one sign", 65536, 0);
    wide_k_test("wide binades", 65536, 1);
    wide_k_test("wide binades, alternating signs", 65536, 2);
    hook_tests();
    tap_ok(tp_gemm_cross_check_seed() == 0x5eed, "TP_CROSS_CHECK_SEED sets the sample's seed");
    return tap_done();
}
