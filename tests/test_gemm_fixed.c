/* Checks the GPU exact reference's arithmetic on the host, and the exact
 * provider hook of op "gemm" (oracles/gemm/gemm_exact_provider.h).
 *  - tp_sd_mac's split of every finite binary16 value times a set of
 *    others (exact: t + d = p, |t| + e = |p|, t on the grid of 2^-8);
 *  - tp_fx_add_double's refusals (off the grid of 2^-48, 2^75, NaN, inf);
 *  - oracles/gemm/gemm_split.h and gemm_fixed.h are the very code the CUDA
 *    kernel runs (__host__ __device__); here they run in the kernel's
 *    per-element order (k = 0 .. K-1 in chunks of 8192) and must give, bit
 *    for bit, the CPU path's exact sum
 *    (tp_gemm_exact, normalized by TwoSum) and its exact sum of |products|,
 *    on adversarial inputs: every binade (subnormals to 65504), products
 *    near 2^32 summed to nearly 2^45 at K = 8192, cancellations leaving a
 *    sum of 2^-48, ties of the double-double rounding, lone signs;
 *  - eight chunks combined at K = 65536 (beyond one chunk) against
 *    __int128 and MPFR;
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
#include "oracles/gemm/gemm_split.h"
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

/* Every element of A (MxK) B (KxN) through the GPU's arithmetic against the CPU
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
    tap_ok(bad == 0, "%s (%dx%dx%d): the GPU arithmetic equals the CPU path bit for bit (%ld elements differ)", what, M, N,
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

/* tp_fx_to_dd on hand-made sums of parts (multiples of 2^-48): ties to
 * even of the double-double, signs, the smallest unit. */
static void tie_tests(void)
{
    struct {
        double part[3];
        double hi, lo;
        const char *what;
    } t[] = {
        {{0x1p30, 0x1p-23, 0}, 0x1p30, 0x1p-23, "2^30 + 2^-23 (a tie) rounds to even 2^30"},
        {{0x1p30, 0x1p-22, 0x1p-23}, 0x1p30 + 0x1p-21, -0x1p-23, "2^30 + 3*2^-23 (a tie, odd) rounds up"},
        {{-0x1p30, -0x1p-23, 0}, -0x1p30, -0x1p-23, "-(2^30 + 2^-23) rounds to even -2^30"},
        {{0x1p-48, 0, 0}, 0x1p-48, 0.0, "2^-48 is exact"},
        {{0x1p30, -0x1p-48, 0}, 0x1p30, -0x1p-48, "2^30 - 2^-48 rounds to 2^30, remainder -2^-48"},
        {{0x3p2, 0, 0}, 0x3p2, 0.0, "3*2^2 has 2 significant bits: exact"},
        {{-0x1p-8, 0x1p-8, 0}, 0.0, 0.0, "x - x is +0"},
        {{0x1.fffffffffffffp45, 0x1.fffffffffffffp45, 0x1p-48}, 0x1.fffffffffffffp46, 0x1p-48,
         "two parts near 2^46 and 2^-48 (beyond 53 bits)"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        tp_fx128 acc = {0, 0};
        int rc = 0;
        for (int j = 0; j < 3; j++)
            rc |= tp_fx_add_double(&acc, t[i].part[j]);
        double hi = 1, lo = 1;
        rc |= tp_fx_to_dd(acc, &hi, &lo);
        tap_ok(rc == 0 && hi == t[i].hi && lo == t[i].lo && (signbit(hi) != 0) == (signbit(t[i].hi) != 0),
               "tp_fx_to_dd: %s (got %a + %a)", t[i].what, hi, lo);
    }
    /* what no chunk of binary16 products gives is refused, the total unchanged */
    static const struct {
        double x;
        const char *what;
    } bad[] = {{0x1p-49, "2^-49 (off the grid)"},
               {0x1.8p-48, "1.5 * 2^-48 (off the grid)"},
               {0x1p75, "2^75 (too large)"},
               {0x1p-1074, "the smallest subnormal"},
               {INFINITY, "infinity"},
               {NAN, "NaN"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tp_fx128 acc = {7, -3};
        int rc = tp_fx_add_double(&acc, bad[i].x);
        tap_ok(rc == -1 && acc.lo == 7 && acc.hi == -3, "tp_fx_add_double refuses %s", bad[i].what);
    }
    tp_fx128 acc = {0, 0};
    tap_ok(tp_fx_add_double(&acc, 0x1.fffffffffffffp74) == 0 && acc.hi == (int64_t)0x07ffffffffffffc0LL && acc.lo == 0,
           "tp_fx_add_double takes the largest double below 2^75 (2^123 - 2^70 units)");
}

/* K = 65536 products in eight chunks (the GPU's per-element order)
 * against __int128 sums of the products, and the double-doubles against
 * MPFR. */
static void wide_k_test(const char *what, int K, int sign_mode)
{
    float *a = malloc((size_t)K * sizeof *a), *b = malloc((size_t)K * sizeof *b);
    __int128 ref = 0, aref = 0;
    for (int k = 0; k < K; k++) {
        a[k] = sign_mode == 0 ? 65504.0f : wide_value();
        b[k] = sign_mode == 0 ? 65504.0f : wide_value();
        if (sign_mode == 2 && k % 2)
            a[k] = -a[k];
        /* the product, exact as a double, times 2^48: an integer below 2^80 */
        __int128 term = (__int128)ldexp((double)a[k] * (double)b[k], 48);
        ref += term;
        aref += term < 0 ? -term : term;
    }
    double want[4];
    int lo_exact = 1;
    for (int e = 0; e < 2; e++) {
        __int128 r = e ? aref : ref;
        mpfr_t x, h;
        mpfr_inits2(256, x, h, (mpfr_ptr)0);
        mpfr_set_si(x, (long)(int64_t)(r >> 64), MPFR_RNDN);
        mpfr_mul_2si(x, x, 64, MPFR_RNDN);
        mpfr_add_ui(x, x, (unsigned long)(uint64_t)r, MPFR_RNDN); /* exact at 256 bits */
        mpfr_mul_2si(x, x, -48, MPFR_RNDN);
        want[2 * e] = mpfr_get_d(x, MPFR_RNDN);
        mpfr_sub_d(h, x, want[2 * e], MPFR_RNDN);
        want[2 * e + 1] = mpfr_get_d(h, MPFR_RNDN);
        lo_exact &= mpfr_cmp_d(h, want[2 * e + 1]) == 0;
        mpfr_clears(x, h, (mpfr_ptr)0);
    }
    double hi = 0, lo = 0, ahi = 0, alo = 0;
    fixed_element(K, a, b, 1, 0, &hi, &lo, &ahi, &alo);
    tap_ok(lo_exact && hi == want[0] && lo == want[1] && ahi == want[2] && alo == want[3],
           "%s, K = %d: chunked sums (of products and of |products|) equal MPFR's RN and remainder of the __int128 "
           "sums (%a + %a, abs %a + %a)",
           what, K, hi, lo, ahi, alo);
    free(a);
    free(b);
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

/* One tp_sd_mac from zero, for every finite binary16 value a times each
 * of a set of binary16 values b (signs, extremes, subnormals, ties of the
 * split): exactly what gemm_split.h argues, checked in integers (units of
 * 2^-48): t + d = p, |t| + e = |p|, t a multiple of 2^-8, |d| <= 2^-9. */
static void split_all(void)
{
    static const double bs[] = {1.0,     -1.0,    65504.0, -65504.0, 0x1p-24, -0x1p-24, 0x1.ff8p-15,
                                0x1p-14, 1.5,     -0x1.8p-9, 0x1.004p0, 0.0,    -0.0,     3.0};
    long bad = 0, calls = 0;
    for (unsigned h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00)
            continue;
        double a = tp_f16_to_double((uint16_t)h);
        for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++) {
            tp_sd_acc s = {0.0, 0.0, 0.0, 0.0};
            tp_sd_mac(&s, a, bs[i]);
            __int128 p = (__int128)ldexp(a * bs[i], 48), t = (__int128)ldexp(s.hi, 48),
                     d = (__int128)ldexp(s.lo, 48), at = (__int128)ldexp(s.ahi, 48), e = (__int128)ldexp(s.alo, 48);
            int ok = t + d == p && at + e == (p < 0 ? -p : p) && t % ((__int128)1 << 40) == 0 &&
                     d <= ((__int128)1 << 39) && d >= -((__int128)1 << 39) && at == (t < 0 ? -t : t) &&
                     ldexp((double)d, -48) == s.lo && ldexp((double)e, -48) == s.alo;
            calls++;
            if (!ok && bad++ < 3)
                tap_diag("%a * %a: t %a d %a, abs %a + %a", a, bs[i], s.hi, s.lo, s.ahi, s.alo);
        }
    }
    tap_ok(bad == 0, "tp_sd_mac: %ld products of every finite binary16 value split exactly (%ld wrong)", calls, bad);
}

int main(void)
{
    setenv("TP_CROSS_CHECK_SEED", "0x5eed", 1);
    split_all();
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
