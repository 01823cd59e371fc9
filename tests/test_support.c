/* Checks the support code a case is built from:
 *  - tp_expr_eval: precedence, associativity, the functions, errors
 *    (unknown dim named in the message, division by zero, syntax);
 *  - tp_expr_check (a contract's expressions): the C rendering plans
 *    carry, which evaluates to the same value, and the refusals the
 *    generator reports (unknown dims and functions, arity, comparisons
 *    where a value is expected, operators and constants the language
 *    lacks, C keywords as names); tp_fill_check per dtype and rank;
 *  - tp_rng: fixed values (from the formula in tp_rng.h, computed
 *    independently) so that any change to the generator is caught; fills
 *    are reproducible, depend on seed and tensor name, normal(0, 1) has
 *    mean 0 and variance 1, all_f16 enumerates every finite pattern once,
 *    mirror/antimirror, bad fill expressions are refused with a message;
 *  - tp_npy: write -> read round trip for every dtype and ranks 1..3, a
 *    file laid out as numpy writes it, and refusals (bad magic, Fortran
 *    order, '<f8', truncated data, trailing bytes, an overflowing shape).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "tests/tap.h"
#include "core/tp_expr.h"
#include "core/tp_fp16.h"
#include "core/tp_npy.h"
#include "core/tp_rng.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- tp_expr ------------------------------------------------------------ */

static const char *const dim_names[] = {"M", "N", "K", "block_k"};
static const int64_t dim_values[] = {128, 96, 1000, 64};

static int ev(const char *e, int64_t *v, char *err, size_t n)
{
    err[0] = 0;
    return tp_expr_eval(e, 4, dim_names, dim_values, v, err, n);
}

static void expr_value(const char *e, int64_t want)
{
    int64_t v = -999999;
    char err[256];
    int rc = ev(e, &v, err, sizeof err);
    if (!tap_ok(rc == 0 && v == want, "expr \"%s\" == %lld", e, (long long)want))
        tap_diag("  got rc %d value %lld err \"%s\"", rc, (long long)v, err);
}

/* A refusal whose message contains `needle`. */
static void expr_refused(const char *e, const char *needle)
{
    int64_t v = -999999;
    char err[256];
    int rc = ev(e, &v, err, sizeof err);
    if (!tap_ok(rc == -1 && strstr(err, needle) != NULL, "expr \"%s\" refused, message mentions \"%s\"", e, needle))
        tap_diag("  got rc %d value %lld err \"%s\"", rc, (long long)v, err);
}

static void test_expr(void)
{
    expr_value("2 + 3 * 4", 14);
    expr_value("(2 + 3) * 4", 20);
    expr_value("10 - 4 - 3", 3);        /* left associative */
    expr_value("100 / 10 / 5", 2);      /* left associative */
    expr_value("2 * 9 % 4", 2);         /* (2*9)%4 */
    expr_value("7 / 2", 3);             /* C division truncates */
    expr_value("-7 / 2", -3);
    expr_value("-3 + 5", 2);
    expr_value("2 * -3", -6);
    expr_value("--4", 4);
    expr_value("!0 + 1", 2);            /* ! binds tighter than + */
    expr_value("!(K - 1000)", 1);
    expr_value("1 + 2 < 4", 1);         /* arithmetic before comparison */
    expr_value("M * N <= 12288 && K >= 1000", 1);
    expr_value("M * N < 12288 || K > 999", 1);
    expr_value("1 || 0 && 0", 1);       /* && binds tighter than || */
    expr_value("0 && 1 || 1", 1);
    expr_value("K % block_k == 0", 0);
    expr_value("K % 8 == 0 && M != N", 1);
    expr_value("  M+N  ", 224);
    expr_value("ceil_div(K, block_k)", 16);
    expr_value("ceil_div(1024, 64)", 16);
    expr_value("ceil_div(1, 64)", 1);
    expr_value("ceil_div(0, 64)", 0);
    expr_value("min(M, N) + max(M, N)", 224);
    expr_value("min(3, -4)", -4);
    expr_value("max(min(M, K), block_k)", 128);
    expr_value("next_pow2(K)", 1024);
    expr_value("next_pow2(1024)", 1024);
    expr_value("next_pow2(1)", 1);
    expr_value("next_pow2(0)", 1);
    expr_value("next_pow2(65)", 128);
    expr_value("ceil_div(0 - 8, 2)", -4);
    expr_value("ceil_div(0 - 7, 2)", -3);
    expr_value("ceil_div(7, 0 - 2)", -3);
    expr_refused("next_pow2(4611686018427387905)", "2^62");
    expr_refused("99999999999999999999", "too large");
    expr_refused("frob(1, 2)", "frob");
    expr_value("tp_ceil_div(K, 3) * 3 >= K", 1);
    /* C precedence puts == below < and >: 2 == (2 > 0) is 2 == 1, false */
    {
        int64_t v = -1;
        char err[256];
        int rc = ev("2 == 2 > 0", &v, err, sizeof err);
        char d[96];
        snprintf(d, sizeof d, "expr \"2 == 2 > 0\" == 0 as in C (got %lld)", (long long)v);
        tap_ok(rc == 0 && v == 0, "%s", d);
    }
    expr_refused("Q + 1", "Q");                  /* unknown dim, named */
    expr_refused("2 * Q", "unknown dim");
    expr_refused("M * blockk", "blockk");
    expr_refused("K / 0", "division by zero");
    expr_refused("K % (M - M)", "division by zero");
    expr_refused("ceil_div(K, N - 96)", "division by zero");
    expr_refused("1 +", "expected");
    expr_refused("(1 + 2", "')'");
    expr_refused("1 2", "unexpected");
    expr_refused("min(1)", "argument");
    expr_refused("foo(1, 2)", "unknown function");
    expr_refused("", "expected");
    /* issue 14's probe: INT64_MIN / -1 trapped (SIGFPE) and wrapped
     * products made a requirement true; both are refused by name now */
    expr_refused("((0 - 4611686018427387904) - 4611686018427387904) / (0 - 1)",
                 "integer overflow: -9223372036854775808 / -1 is beyond the 64-bit range");
    expr_refused("((0 - 4611686018427387904) - 4611686018427387904) % (0 - 1)", "integer overflow");
    expr_refused("ceil_div((0 - 4611686018427387904) - 4611686018427387904, 0 - 1)", "integer overflow: ceil_div(");
    expr_refused("((65536 * 65536) * 65536) * 65536 <= 2147483647",
                 "integer overflow: 281474976710656 * 65536 is beyond the 64-bit range");
    expr_refused("9223372036854775807 + 1", "integer overflow: 9223372036854775807 + 1");
    expr_refused("(0 - 9223372036854775807) - 2", "integer overflow");
    expr_refused("-((0 - 9223372036854775807) - 1)", "integer overflow: -(-9223372036854775808)");
    expr_value("(0 - 9223372036854775807) - 1 < 0", 1); /* INT64_MIN itself is fine */
    /* nesting: refused by a depth limit, not by running out of stack */
    {
        static char deep[200010];
        memset(deep, '-', 100000);
        strcpy(deep + 100000, "1");
        expr_refused(deep, "nested too deeply (more than 64 levels");
        memset(deep, '(', 100000);
        deep[100000] = '1';
        memset(deep + 100001, ')', 100000);
        deep[200001] = 0;
        expr_refused(deep, "nested too deeply");
        size_t n = 0;
        for (int i = 0; i < 100000; i++)
            n += (size_t)snprintf(deep + n, sizeof deep - n, i ? "+1" : "1");
        expr_refused(deep, "expression too long (more than 256 terms)");
        char ok[256] = "";
        for (int i = 0; i < 60; i++)
            strcat(ok, "(");
        strcat(ok, "1");
        for (int i = 0; i < 60; i++)
            strcat(ok, ")");
        expr_value(ok, 1);
    }
}

/* ---- tp_expr_check: a contract's expressions ---------------------------- */

static void check_renders(const char *text, tp_expr_kind kind, const char *want_c)
{
    char c[256] = "";
    tp_grammar_error e;
    int rc = tp_expr_check(text, kind, 4, dim_names, c, sizeof c, &e);
    if (!tap_ok(rc == 0 && strcmp(c, want_c) == 0, "contract expr \"%s\" renders as \"%s\"", text, want_c))
        tap_diag("  got rc %d c \"%s\" what \"%s\"", rc, c, e.what);
}

static void check_refused(const char *text, tp_expr_kind kind, const char *needle)
{
    char c[256] = "";
    tp_grammar_error e;
    int rc = tp_expr_check(text, kind, 4, dim_names, c, sizeof c, &e);
    if (!tap_ok(rc == -1 && strstr(e.what, needle) && strstr(e.expected, "over the dims (M, N, K, block_k)"),
                "contract expr \"%s\" refused: \"%s\"", text, needle))
        tap_diag("  got rc %d c \"%s\" what \"%s\" expected \"%s\"", rc, c, e.what, e.expected);
}

static void test_expr_check(void)
{
    const tp_expr_kind V = TP_EXPR_VALUE, C = TP_EXPR_CONDITION;
    check_renders("M", V, "M");
    check_renders("16", V, "16");
    check_renders("ceil_div(N, 16)", V, "tp_ceil_div(N, 16)");
    check_renders("(M + N) * 2", V, "(M + N) * 2");
    check_renders("M + N * 2", V, "M + (N * 2)");
    check_renders("-M * 2", V, "(-M) * 2");
    check_renders("-(-M)", V, "-(-M)");
    check_renders("+K", V, "+K");
    check_renders("max(min(M, K), next_pow2(block_k))", V, "tp_max(tp_min(M, K), tp_next_pow2(block_k))");
    check_renders("K <= 8192 and M >= 1", C, "(K <= 8192) && (M >= 1)");
    check_renders("K % 16 == 0 and N % 16 == 0", C, "((K % 16) == 0) && ((N % 16) == 0)");
    check_renders("1 <= M <= 64", C, "(1 <= M) && (M <= 64)");
    check_renders("M == 1 or N == 1 or K == 1", C, "(M == 1) || (N == 1) || (K == 1)");
    check_renders("(M == 1 or N == 1) and K > 0", C, "((M == 1) || (N == 1)) && (K > 0)");
    check_renders("M < N", C, "M < N");
    {
        /* the contract spelling has the same depth limit (gen/ asks it
         * through build/tp_registry, which ran out of stack) */
        static char deep[200010];
        memset(deep, '(', 100000);
        deep[100000] = 'M';
        memset(deep + 100001, ')', 100000);
        deep[200001] = 0;
        check_refused(deep, V, "nested too deeply");
        memset(deep, '-', 100000);
        strcpy(deep + 100000, "M");
        check_refused(deep, V, "nested too deeply");
        for (int i = 0; i < 40000; i++)
            memcpy(deep + 4 * i, "not ", 4);
        strcpy(deep + 160000, "M < 1");
        check_refused(deep, C, "nested too deeply");
    }

    /* what a plan carries evaluates as the contract meant it */
    static const struct {
        const char *text;
        tp_expr_kind kind;
        int64_t want;
    } same[] = {{"1 <= M <= 64", TP_EXPR_CONDITION, 0},     {"1 <= M <= 128", TP_EXPR_CONDITION, 1},
                {"2 == 2 > 0", TP_EXPR_CONDITION, 1},        {"-M * 2 + K % 7", TP_EXPR_VALUE, -256 + 6},
                {"ceil_div(K, block_k) * block_k", TP_EXPR_VALUE, 1024}};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        char c[256], err[256] = "";
        tp_grammar_error e;
        int64_t v = -1;
        int rc = tp_expr_check(same[i].text, same[i].kind, 4, dim_names, c, sizeof c, &e);
        rc = rc || tp_expr_eval(c, 4, dim_names, dim_values, &v, err, sizeof err);
        if (!tap_ok(rc == 0 && v == same[i].want, "\"%s\" -> \"%s\" evaluates to %lld", same[i].text, c,
                    (long long)same[i].want))
            tap_diag("  rc %d value %lld: %s %s", rc, (long long)v, e.what, err);
    }

    check_refused("Q + 1", V, "unknown dim 'Q' in 'Q + 1'");
    check_refused("frob(1, 2)", V, "unknown function 'frob'");
    check_refused("tp_ceil_div(K, 2)", V, "unknown function 'tp_ceil_div'");
    check_refused("ceil_div(N)", V, "ceil_div takes 2 arguments");
    check_refused("next_pow2(M, N)", V, "next_pow2 takes 1 argument");
    check_refused("M < 2", V, "comparison in 'M < 2'");
    check_refused("max(M < 2, N) > 1", C, "comparison inside an integer expression");
    check_refused("M and N", V, "'and'/'or' inside an integer expression");
    check_refused("K + 1", C, "'K + 1' is not a condition");
    check_refused("K > 1 and N", C, "is not a condition");
    check_refused("not K > 1", C, "unary operator 'not'");
    check_refused("~M", V, "unary operator '~'");
    check_refused("2 ** 4", V, "operator '**'");
    check_refused("M // 2", V, "operator '//'");
    check_refused("M << 1", V, "operator '<<'");
    check_refused("M & 1", V, "operator '&'");
    check_refused("M.real", V, "attribute '.real' not allowed");
    check_refused("0.5", V, "constant 0.5 in '0.5' is not an integer");
    check_refused("'a'", V, "constant 'a'");
    check_refused("9223372036854775808", V, "does not fit in int64");
    check_refused("010", V, "leading zero");
    check_refused("0x10", V, "invalid number '0x10'");
    check_refused("ceil_div(N, ", V, "syntax error in 'ceil_div(N, ' (expected a number, a dim or '(' at the end)");
    check_refused("(M + 1", V, "expected ')'");
    check_refused("M N", V, "unexpected text at 'N'");
    check_refused("K > 1 && M > 1", C, "'&&' is written 'and'");
    check_refused("K > 1 || M > 1", C, "'||' is written 'or'");
    check_refused("!M", C, "'!' is not an operator");
    check_refused("M $ 2", V, "unexpected character '$'");
    check_refused("", V, "syntax error");
    check_refused("\"it's\"", V, "in '\"it\\'s\"'"); /* quoted as Python's repr() quotes it */

    static const struct {
        const char *name;
        int dim;
        const char *needle; /* NULL: accepted */
    } names[] = {{"M", 1, NULL},
                 {"block_k", 1, NULL},
                 {"int", 1, "dim name 'int' is not usable: a C keyword"},
                 {"class", 1, "a C keyword"},
                 {"and", 1, "a C keyword"},
                 {"min", 1, "a function of the expression language"},
                 {"tp_x", 1, "tp_ names belong to tolproof"},
                 {"1x", 1, "not a C identifier"},
                 {"", 1, "not a C identifier"},
                 {"min", 0, NULL},
                 {"double", 0, "tensor name 'double' is not usable: a C keyword"},
                 {"a-b", 0, "not a C identifier"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        tp_grammar_error e;
        int rc = tp_expr_check_name(names[i].name, names[i].dim, &e);
        int good = names[i].needle ? rc == -1 && strstr(e.what, names[i].needle) && e.expected[0] : rc == 0;
        if (!tap_ok(good, "%s name \"%s\" %s", names[i].dim ? "dim" : "tensor", names[i].name,
                    names[i].needle ? names[i].needle : "accepted"))
            tap_diag("  rc %d what \"%s\"", rc, e.what);
    }
}

/* ---- tp_fill_check: a contract's fills, per dtype and rank --------------- */

static void test_fill_check(void)
{
    static const struct {
        const char *fill;
        tp_dtype dt;
        int rank;
        const char *needle; /* NULL: accepted */
    } cases[] = {
        {"normal(0, 1)", TP_F16, 2, NULL},
        {"mirror(1, antimirror(0, normal(0, 8), 0.01))", TP_F16, 2, NULL},
        {"const(1.5)", TP_F32, 1, NULL},
        {"randint(0, 50)", TP_I32, 1, NULL},
        {"zipf(1000)", TP_I64, 1, NULL},
        {"const(-3)", TP_I32, 1, NULL},
        {"gauss(0, 1)", TP_F16, 2, "unknown fill 'gauss' in 'gauss(0, 1)'"},
        {"randint(0, 4)", TP_F16, 1, "fill 'randint' is for i32, i64 tensors, not f16"},
        {"normal(0, 1)", TP_I32, 1, "fill 'normal' is for f16, f32, bf16 tensors, not i32"},
        {"mirror(2, normal(0, 1))", TP_F16, 2, "axis 2 out of range for a rank-2 tensor"},
        {"mirror(1, normal(0, 1))", TP_F16, 1, "axis 1 out of range for a rank-1 tensor"},
        {"wide(-1.5, 3)", TP_F16, 1, "-1.5 is not an integer"},
        {"wide(3, 1)", TP_F16, 1, "wide needs integer exponents"},
        {"wide(-40, 0)", TP_F16, 1, "wide needs integer exponents -30 <= emin <= emax <= 16"},
        {"wide(-40, 0)", TP_BF16, 1, NULL},
        {"wide(-140, 127)", TP_BF16, 1, NULL},
        {"wide(-141, 0)", TP_BF16, 1, "wide needs integer exponents -140 <= emin <= emax <= 127 for bfloat16"},
        {"wide(0, 128)", TP_BF16, 1, "wide needs integer exponents -140 <= emin <= emax <= 127 for bfloat16"},
        {"all_bf16", TP_BF16, 1, NULL},
        {"all_bf16", TP_F32, 1, NULL},
        {"all_bf16", TP_F16, 1, "fill 'all_bf16' is for f32, bf16 tensors, not f16"},
        {"wide(-155, 126)", TP_F32, 1, NULL},
        {"wide(-156, 0)", TP_F32, 1, "wide needs integer exponents -155 <= emin <= emax <= 126 for binary32"},
        {"wide(0, 127)", TP_F32, 1, "wide needs integer exponents -155 <= emin <= emax <= 126 for binary32"},
        {"uniform(1, 1)", TP_F16, 1, "uniform needs lo < hi"},
        {"normal(0, -1)", TP_F16, 1, "normal sigma -1 < 0"},
        {"near(1, -0.5)", TP_F16, 1, "near width -0.5 < 0"},
        {"special special", TP_F16, 1, "trailing text 'special'"},
        {"antimirror(0, normal(0, 1))", TP_F16, 2, "expected ',' at ')'"},
        {"normal(0, inf)", TP_F16, 1, "expected a number at 'inf)'"},
        {"normal(0, 1e999)", TP_F16, 1, "1e999 is not a finite number"},
        {"const(1.5)", TP_I32, 1, "1.5 is not an integer"},
        {"randint(5, 5)", TP_I32, 1, "randint needs lo < hi"},
        {"zipf(0)", TP_I32, 1, "zipf needs 1 <= n <= 2^24"},
        {"const(99999999999999999999)", TP_I64, 1, "does not fit in int64"},
        {"normal 0, 1", TP_F16, 1, "expected '(' at '0, 1'"},
        {"", TP_F16, 1, "expected a fill name at the end"},
        {"!", TP_F16, 1, "unexpected character '!'"},
        /* issue 14's probe: a 5000-deep mirror() overflowed the generator's stack */
        {"mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, normal(0, 1)))))))))", TP_F16,
         1, NULL},
        {"mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, mirror(0, normal(0, "
         "1))))))))))",
         TP_F16, 1, "fills nested more than 8 deep"},
        {"randint(-9223372036854775807, 9223372036854775807)", TP_I64, 1, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_grammar_error e;
        int rc = tp_fill_check(cases[i].fill, cases[i].dt, cases[i].rank, &e);
        int good = cases[i].needle ? rc == -1 && strstr(e.what, cases[i].needle) != NULL : rc == 0;
        if (!tap_ok(good, "fill \"%s\" for a rank-%d %s tensor: %s", cases[i].fill, cases[i].rank,
                    tp_dtype_name(cases[i].dt), cases[i].needle ? cases[i].needle : "accepted"))
            tap_diag("  rc %d what \"%s\"", rc, e.what);
    }
    tp_grammar_error e;
    tp_fill_check("gauss", TP_F16, 1, &e);
    tap_ok(strcmp(e.expected, "normal(mu, sigma), uniform(lo, hi), wide(emin, emax), special, near(v, w), all_f16, "
                              "const(v), mirror(axis, F), antimirror(axis, F, sigma)") == 0,
           "a float fill's expected part lists the float forms: %s", e.expected);
    tp_fill_check("gauss", TP_BF16, 1, &e);
    tap_ok(strstr(e.expected, "all_f16, all_bf16, const(v)") != NULL,
           "a bf16 fill's expected part lists all_bf16 too: %s", e.expected);
    tp_fill_check("gauss", TP_I64, 1, &e);
    tap_ok(strcmp(e.expected, "randint(lo, hi) (lo <= v < hi), zipf(n) (P(v) ~ 1/(v+1), 0 <= v < n), const(v)") == 0,
           "an index fill's expected part lists the index forms: %s", e.expected);
}

/* ---- tp_rng ------------------------------------------------------------- */

/* wide over the whole binary32 range: every value finite, the tails
 * reached (values below the smallest normal, values above 2^120). */
static void test_wide_f32(void)
{
    enum { N = 100000 };
    static float v[N];
    int64_t shape[1] = {N};
    char err[200];
    int rc = tp_fill_f32(v, 1, shape, "wide(-155, 126)", 3, "m", err, sizeof err);
    int finite = 0, tiny = 0, huge = 0;
    for (int i = 0; i < N; i++) {
        finite += isfinite(v[i]) != 0;
        tiny += fabsf(v[i]) < 0x1p-126f;
        huge += fabsf(v[i]) >= 0x1p120f;
    }
    tap_ok(rc == 0 && finite == N && tiny > 0 && huge > 0,
           "fill wide(-155, 126) on binary32: %d of %d finite, %d below 2^-126, %d at or above 2^120", finite, N, tiny,
           huge);
}

/* FILL in a 16-bit format gives each finite pattern (exponent bits EXP
 * not all set) exactly once in its N elements. */
static void enumerates_finite(const tp_format *fmt, const char *fill, int64_t n, uint16_t exp)
{
    char err[256];
    uint16_t *w = malloc((size_t)n * 2);
    unsigned char *seen = calloc(65536, 1);
    int rc = tp_fill_float(fmt, w, 1, &n, fill, 5, "W", err, sizeof err);
    int dup = 0, nonfinite = 0, missing = 0;
    for (int64_t i = 0; i < n; i++) {
        dup += seen[w[i]]++ > 0;
        nonfinite += (w[i] & exp) == exp;
    }
    for (uint32_t h = 0; h < 65536; h++)
        missing += (h & exp) != exp && !seen[h];
    tap_ok(rc == 0 && dup == 0 && nonfinite == 0 && missing == 0,
           "%s enumerates every finite pattern once in %lld elements (%d dup, %d non-finite, %d missing)", fill,
           (long long)n, dup, nonfinite, missing);
    free(seen);
    free(w);
}

static int count_diff(const uint16_t *a, const uint16_t *b, size_t n)
{
    int d = 0;
    for (size_t i = 0; i < n; i++)
        d += a[i] != b[i];
    return d;
}

static void test_rng(void)
{
    {
        /* hi - lo beyond int64 (issue 14's fuzzing): drawn in uint64 */
        int64_t v[64];
        char err[300];
        int rc = tp_fill_int(v, 1, 64, "randint(-9223372036854775807, 9223372036854775807)", 3, "idx", err, sizeof err);
        int inside = rc == 0;
        for (int i = 0; inside && i < 64; i++)
            inside = v[i] >= -9223372036854775807LL && v[i] < 9223372036854775807LL;
        tap_ok(inside, "randint(-(2^63-1), 2^63-1) draws without overflow (%s)", rc ? err : "in range");
    }
    /* FNV-1a of the names and the generator, values computed from the
     * formula in tp_rng.h by an independent implementation */
    tap_ok(tp_rng_stream("A") == 0xaf63fc4c860222ecULL && tp_rng_stream("B") == 0xaf63ff4c86022805ULL &&
               tp_rng_stream("x") == 0xaf63f54c86021707ULL && tp_rng_stream("") == 0xcbf29ce484222325ULL,
           "tp_rng_stream is FNV-1a 64 of the tensor name");
    static const struct {
        uint64_t seed, stream, counter, want;
    } fixed[] = {
        {0, 0, 0, 0x818353aa52c3b0c2ULL},
        {1, 0xaf63fc4c860222ecULL, 0, 0x08e52d3b48bd1f9bULL},
        {42, 0xaf63ff4c86022805ULL, 7, 0xf943718cfcfce154ULL},
        {0xdeadbeef, 0xaf63f54c86021707ULL, 123456789, 0x4f927c5601049651ULL},
        {UINT64_MAX, UINT64_MAX, UINT64_MAX, 0x1df714082509aa93ULL},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        uint64_t got = tp_rng_u64(fixed[i].seed, fixed[i].stream, fixed[i].counter);
        if (got != fixed[i].want) {
            bad++;
            tap_diag("tp_rng_u64(%llu, %#llx, %llu) = %#llx, want %#llx", (unsigned long long)fixed[i].seed,
                     (unsigned long long)fixed[i].stream, (unsigned long long)fixed[i].counter,
                     (unsigned long long)got, (unsigned long long)fixed[i].want);
        }
        double u = tp_rng_uniform(fixed[i].seed, fixed[i].stream, fixed[i].counter);
        if (u != (double)(fixed[i].want >> 11) * 0x1p-53)
            bad++;
    }
    tap_ok(bad == 0, "tp_rng_u64 / tp_rng_uniform give the fixed values (%d differ)", bad);

    /* fills: reproducible, seed- and name-dependent */
    enum { R = 64, C = 96, NE = R * C };
    int64_t shape[2] = {R, C};
    uint16_t *x = malloc(NE * 2), *y = malloc(NE * 2), *z = malloc(NE * 2);
    char err[512];
    int rc = tp_fill_f16(x, 2, shape, "normal(0, 1)", 7, "A", err, sizeof err);
    rc |= tp_fill_f16(y, 2, shape, "normal(0, 1)", 7, "A", err, sizeof err);
    tap_ok(rc == 0 && count_diff(x, y, NE) == 0, "a fill is reproducible (same seed, same name)");
    tp_fill_f16(z, 2, shape, "normal(0, 1)", 8, "A", err, sizeof err);
    int dseed = count_diff(x, z, NE);
    tp_fill_f16(z, 2, shape, "normal(0, 1)", 7, "B", err, sizeof err);
    int dname = count_diff(x, z, NE);
    tap_ok(dseed > NE * 9 / 10 && dname > NE * 9 / 10,
           "another seed / another tensor name changes the values (%d, %d of %d differ)", dseed, dname, NE);
    /* counter-based: element i does not depend on the tensor's size */
    int64_t flat = NE / 2;
    tp_fill_f16(z, 1, &flat, "normal(0, 1)", 7, "A", err, sizeof err);
    tap_ok(count_diff(x, z, NE / 2) == 0, "element i of a fill does not depend on the shape");
    /* a value pinned down, so that a change to the normal generator shows:
     * element 0 of normal(0, 1), seed 7, tensor "A" */
    {
        uint64_t st = tp_rng_stream("A");
        double s = 0;
        for (int k = 0; k < 12; k++)
            s += tp_rng_uniform(7, st, (uint64_t)k);
        tap_ok(x[0] == tp_f16_from_double(s - 6.0), "normal(0, 1) element 0 is RN16(sum of 12 uniforms - 6)");
    }

    /* the first elements of two fills, pinned (computed from the formula in
     * tp_rng.h and the 16-counter block per element by an independent
     * implementation, rounded to binary16 by Python's struct 'e') */
    {
        static const uint16_t want_normal[8] = {0xbece, 0x38f4, 0xb396, 0xb92f, 0xa2c4, 0xb472, 0xb82b, 0x2cc9};
        static const uint16_t want_wide[8] = {0x38fc, 0xb9d0, 0x45e3, 0xbd86, 0xcfbb, 0xb62e, 0xb4a4, 0x4378};
        uint16_t w[8];
        int64_t eight = 8;
        int d1 = 0, d2 = 0;
        tp_fill_f16(w, 1, &eight, "normal(0, 1)", 7, "A", err, sizeof err);
        d1 = count_diff(w, want_normal, 8);
        tp_fill_f16(w, 1, &eight, "wide(-3, 4)", 9, "W", err, sizeof err);
        d2 = count_diff(w, want_wide, 8);
        tap_ok(d1 == 0 && d2 == 0, "pinned first 8 elements of normal(0, 1) seed 7 \"A\" and wide(-3, 4) seed 9 "
                                   "\"W\" (%d, %d differ)", d1, d2);
    }

    /* normal(0, 1): mean and variance over 1e5 samples */
    {
        int64_t n = 100000;
        uint16_t *w = malloc((size_t)n * 2);
        tp_fill_f16(w, 1, &n, "normal(0, 1)", 2024, "W", err, sizeof err);
        double m = 0, v = 0, mx = 0;
        for (int64_t i = 0; i < n; i++)
            m += tp_f16_to_double(w[i]);
        m /= (double)n;
        for (int64_t i = 0; i < n; i++) {
            double d = tp_f16_to_double(w[i]) - m;
            v += d * d;
            mx = fmax(mx, fabs(tp_f16_to_double(w[i])));
        }
        v /= (double)(n - 1);
        /* standard errors: mean 0.0032, variance 0.0045 (Irwin-Hall: kurtosis 2.9) */
        tap_ok(fabs(m) < 0.015 && fabs(v - 1) < 0.025 && mx <= 6.0,
               "normal(0, 1) over 1e5 samples: mean %.4f, variance %.4f, max |x| %.3f", m, v, mx);
        tp_fill_f16(w, 1, &n, "normal(3, 0.5)", 2024, "W", err, sizeof err);
        double m2 = 0;
        for (int64_t i = 0; i < n; i++)
            m2 += tp_f16_to_double(w[i]);
        m2 /= (double)n;
        tap_ok(fabs(m2 - 3) < 0.01, "normal(3, 0.5): mean %.4f", m2);
        /* uniform, wide, special, near, const: ranges */
        int out = 0;
        tp_fill_f16(w, 1, &n, "uniform(-2, 3)", 1, "W", err, sizeof err);
        for (int64_t i = 0; i < n; i++)
            out += !(tp_f16_to_double(w[i]) >= -2 && tp_f16_to_double(w[i]) <= 3);
        tp_fill_f16(w, 1, &n, "near(100, 0.5)", 1, "W", err, sizeof err);
        for (int64_t i = 0; i < n; i++)
            out += !(tp_f16_to_double(w[i]) >= 99.5 && tp_f16_to_double(w[i]) <= 100.5);
        int binades[8] = {0};
        tp_fill_f16(w, 1, &n, "wide(-3, 4)", 1, "W", err, sizeof err);
        for (int64_t i = 0; i < n; i++) {
            double a = fabs(tp_f16_to_double(w[i]));
            if (!(a >= 0.125 && a <= 32))
                out++;
            else if (a < 32)
                binades[(int)floor(log2(a)) + 3]++;
        }
        for (int k = 0; k < 8; k++)
            out += binades[k] < n / 8 * 9 / 10; /* each binade about 1/8 */
        tp_fill_f16(w, 1, &n, "special", 1, "W", err, sizeof err);
        int seen65504 = 0, seen_tiny = 0, seen_negzero = 0;
        for (int64_t i = 0; i < n; i++) {
            double a = tp_f16_to_double(w[i]);
            seen65504 |= a == -65504;
            seen_tiny |= a == 0x1p-24;
            seen_negzero |= w[i] == 0x8000;
            double aa = fabs(a);
            out += !(aa == 0 || aa == 0x1p-24 || aa == 0x3ffp-24 || aa == 0x1p-14 || aa == 1 || aa == 65504 ||
                     aa == 0.5 || aa == 32768);
        }
        out += !seen65504 + !seen_tiny + !seen_negzero;
        tp_fill_f16(w, 1, &n, "const(-1.5)", 1, "W", err, sizeof err);
        for (int64_t i = 0; i < n; i++)
            out += w[i] != tp_f16_from_double(-1.5);
        tap_ok(out == 0, "uniform, near, wide (every binade), special (the listed values), const stay in range (%d out)",
               out);
        free(w);
    }

    /* all_f16, all_bf16: each finite pattern exactly once */
    enumerates_finite(&tp_binary16, "all_f16", 63488, 0x7c00);
    enumerates_finite(&tp_bfloat16, "all_bf16", 65280, 0x7f80);

    /* special in bfloat16: its own extremes, each of the 16 values drawn */
    {
        static const uint16_t want[16] = {0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080,
                                          0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x3f00, 0xbf00, 0x7f00, 0xff00};
        int64_t n = 4096;
        uint16_t *w = malloc((size_t)n * 2);
        rc = tp_fill_float(&tp_bfloat16, w, 1, &n, "special", 9, "S", err, sizeof err);
        int other = 0, hit[16] = {0}, missing = 0;
        for (int64_t i = 0; i < n; i++) {
            int k = 0;
            while (k < 16 && want[k] != w[i])
                k++;
            if (k == 16)
                other++;
            else
                hit[k] = 1;
        }
        for (int k = 0; k < 16; k++)
            missing += !hit[k];
        tap_ok(rc == 0 && other == 0 && missing == 0,
               "special in a bf16 tensor draws bfloat16's extremes: subnormals, 2^-126, +-0x1.fep127 "
               "(%d other values, %d of 16 never drawn)", other, missing);
        free(w);
    }

    /* mirror / antimirror */
    {
        rc = tp_fill_f16(x, 2, shape, "mirror(1, normal(0, 1))", 3, "A", err, sizeof err);
        int bad_m = rc != 0;
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C / 2; j++)
                bad_m += x[i * C + j] != x[i * C + j + C / 2];
        rc = tp_fill_f16(y, 2, shape, "antimirror(0, normal(0, 8), 0)", 3, "B", err, sizeof err);
        bad_m += rc != 0;
        for (int i = 0; i < R / 2; i++)
            for (int j = 0; j < C; j++)
                bad_m += y[(i + R / 2) * C + j] != (y[i * C + j] ^ 0x8000);
        rc = tp_fill_f16(z, 2, shape, "antimirror(0, normal(0, 8), 0.01)", 3, "B", err, sizeof err);
        int close = 0, exact = 0;
        for (int i = 0; i < R / 2; i++)
            for (int j = 0; j < C; j++) {
                double s = tp_f16_to_double(z[(i + R / 2) * C + j]) + tp_f16_to_double(z[i * C + j]);
                close += fabs(s) <= 0.08; /* 6 sigma plus rounding of |x| < 48 */
                exact += s == 0;
            }
        tap_ok(bad_m == 0 && close == R / 2 * C && exact < R / 2 * C / 2,
               "mirror copies the first half along the axis; antimirror negates it (+ sigma noise: %d of %d exact)",
               exact, R / 2 * C);
    }

    /* bad fill expressions */
    static const char *const bad_fills[] = {
        "normal(0)",           "normal(0, 1",        "foo(1, 2)",          "normal(0, -1)",
        "wide(1.5, 3)",        "wide(3, 1)",         "wide(-40, 0)",       "mirror(5, normal(0, 1))",
        "normal(0, 1) extra",  "uniform(0, inf)",    "",                   "antimirror(0, normal(0, 1))",
        "mirror(1.5, const(1))", "const()",          "normal 0, 1",
    };
    int accepted = 0;
    for (size_t i = 0; i < sizeof bad_fills / sizeof bad_fills[0]; i++) {
        err[0] = 0;
        int r1 = tp_fill_parse_check(bad_fills[i], err, sizeof err);
        int ok1 = r1 == -1 && strstr(err, "expected") != NULL;
        err[0] = 0;
        int r2 = tp_fill_f16(x, 2, shape, bad_fills[i], 1, "A", err, sizeof err);
        int ok2 = r2 == -1 && strlen(err) > 0;
        if (!ok1 || !ok2) {
            accepted++;
            tap_diag("bad fill \"%s\": parse_check %d, fill %d, err \"%s\"", bad_fills[i], r1, r2, err);
        }
    }
    tap_ok(accepted == 0, "%zu bad fill expressions refused with a message saying what was expected (%d not)",
           sizeof bad_fills / sizeof bad_fills[0], accepted);
    err[0] = 0;
    rc = tp_fill_f16(x, 2, shape, "mirror(2, normal(0, 1))", 1, "A", err, sizeof err);
    tap_ok(rc == -1 && strstr(err, "rank") && strstr(err, "A"), "mirror along an axis the tensor lacks: \"%s\"", err);
    static const char *const good_fills[] = {"normal(0,1)", " uniform( -1 , 1 ) ", "wide(-24, 15)", "special",
                                             "near(1, 1e-3)", "all_f16", "const(65504)",
                                             "mirror(0, antimirror(1, normal(0, 1), 0.5))"};
    int refused = 0;
    for (size_t i = 0; i < sizeof good_fills / sizeof good_fills[0]; i++)
        if (tp_fill_parse_check(good_fills[i], err, sizeof err) != 0) {
            refused++;
            tap_diag("good fill \"%s\" refused: %s", good_fills[i], err);
        }
    tap_ok(refused == 0, "valid fill expressions accepted (%d refused)", refused);
    free(x);
    free(y);
    free(z);
}

/* ---- tp_npy ------------------------------------------------------------- */

static char tmpdir[64];

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(p, 1, n, f);
    fclose(f);
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* A version 1.0 file with the given header dict (padded as numpy pads)
 * followed by `data`. */
static void write_npy_raw(const char *path, const char *dict, const void *data, size_t n)
{
    char buf[4096];
    size_t dl = strlen(dict), total = 10 + dl + 1, pad = (64 - total % 64) % 64, hl = dl + pad + 1;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(hl & 0xff);
    buf[9] = (char)(hl >> 8);
    memcpy(buf + 10, dict, dl);
    memset(buf + 10 + dl, ' ', pad);
    buf[10 + dl + pad] = '\n';
    memcpy(buf + 10 + hl, data, n);
    write_bytes(path, buf, 10 + hl + n);
}

static void npy_refused(const char *what, const char *path, const char *needle)
{
    tp_dtype dt;
    int rank;
    int64_t shape[4];
    void *data = (void *)1;
    char err[512] = "";
    int rc = tp_npy_read(path, &dt, &rank, shape, &data, err, sizeof err);
    if (!tap_ok(rc == -1 && data == NULL && strstr(err, needle) != NULL, "npy: %s refused (\"%s\")", what, err))
        tap_diag("  rc %d, wanted a message mentioning \"%s\"", rc, needle);
    if (rc == 0)
        free(data);
}

static void test_npy(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/t.npy", tmpdir);
    int bad = 0, n = 0;
    for (int dt = TP_F16; dt <= TP_BF16; dt++)
        for (int rank = 1; rank <= 3; rank++) {
            int64_t shape[3] = {5, 3, 2}, numel = 1;
            for (int d = 0; d < rank; d++)
                numel *= shape[d];
            size_t es = tp_dtype_size((tp_dtype)dt), bytes = (size_t)numel * es;
            unsigned char *buf = malloc(bytes);
            for (size_t i = 0; i < bytes; i++)
                buf[i] = (unsigned char)(i * 37 + (size_t)dt * 11 + (size_t)rank);
            n++;
            if (tp_npy_write(path, (tp_dtype)dt, rank, shape, buf) != 0) {
                bad++;
                tap_diag("write %s rank %d failed", tp_dtype_name((tp_dtype)dt), rank);
                free(buf);
                continue;
            }
            long fs = file_size(path);
            tp_dtype rdt;
            int rrank;
            int64_t rshape[4];
            void *data;
            char err[512];
            int rc = tp_npy_read(path, &rdt, &rrank, rshape, &data, err, sizeof err);
            int same = rc == 0 && rdt == (tp_dtype)dt && rrank == rank && memcmp(data, buf, bytes) == 0 &&
                       (fs - (long)bytes) % 64 == 0; /* header padded to 64 bytes as numpy does */
            for (int d = 0; same && d < rank; d++)
                same = rshape[d] == shape[d];
            if (!same) {
                bad++;
                tap_diag("round trip %s rank %d: rc %d (%s), file %ld bytes", tp_dtype_name((tp_dtype)dt), rank, rc,
                         rc ? err : "", fs);
            }
            if (rc == 0)
                free(data);
            free(buf);
        }
    tap_ok(bad == 0, "npy write -> read round trip for f16/f32/i32/i64/bf16 x rank 1..3 (%d of %d bad)", bad, n);

    /* the bytes numpy itself would write: the header dict spelled as
     * numpy.lib.format spells it (a 1-tuple keeps its comma) */
    {
        static const struct {
            int rank;
            const char *dict;
        } hdr[] = {
            {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }"},
            {2, "{'descr': '<i4', 'fortran_order': False, 'shape': (5, 3), }"},
            {3, "{'descr': '<i4', 'fortran_order': False, 'shape': (5, 3, 2), }"},
        };
        int32_t v[30];
        for (int i = 0; i < 30; i++)
            v[i] = i - 7;
        int64_t shape[3] = {5, 3, 2};
        char p2[128];
        snprintf(p2, sizeof p2, "%s/bad.npy", tmpdir);
        int differ = 0;
        for (int r = 0; r < 3; r++) {
            int64_t numel = r == 0 ? 5 : r == 1 ? 15 : 30;
            tp_npy_write(path, TP_I32, hdr[r].rank, shape, v);
            write_npy_raw(p2, hdr[r].dict, v, (size_t)numel * 4);
            FILE *f1 = fopen(path, "rb"), *f2 = fopen(p2, "rb");
            int c1, c2;
            do {
                c1 = f1 ? fgetc(f1) : -2;
                c2 = f2 ? fgetc(f2) : -3;
            } while (c1 == c2 && c1 != EOF);
            if (c1 != c2) {
                differ++;
                tap_diag("rank %d: tp_npy_write differs from numpy's layout of %s", hdr[r].rank, hdr[r].dict);
            }
            if (f1)
                fclose(f1);
            if (f2)
                fclose(f2);
        }
        tap_ok(differ == 0, "npy: tp_npy_write writes byte for byte what numpy writes, ranks 1..3 (%d differ)",
               differ);
    }

    /* dtype names */
    tp_dtype t;
    tap_ok(tp_dtype_parse("f16", &t) == 0 && t == TP_F16 && tp_dtype_parse("i64", &t) == 0 && t == TP_I64 &&
               tp_dtype_parse("f64", &t) == -1 && strcmp(tp_dtype_name(TP_I32), "i32") == 0 &&
               tp_dtype_size(TP_F16) == 2 && tp_dtype_size(TP_F32) == 4 && tp_dtype_size(TP_I32) == 4 &&
               tp_dtype_size(TP_I64) == 8 && tp_dtype_parse("bf16", &t) == 0 && t == TP_BF16 &&
               tp_dtype_size(TP_BF16) == 2,
           "dtype names and sizes");

    /* a file as numpy 1.x writes it: np.save(f, np.arange(6, dtype='<i4').reshape(2, 3)) */
    {
        int32_t v[6] = {0, 1, 2, 3, 4, 5};
        write_npy_raw(path, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v);
        tp_dtype dt;
        int rank;
        int64_t shape[4];
        void *data = NULL;
        char err[512];
        int rc = tp_npy_read(path, &dt, &rank, shape, &data, err, sizeof err);
        tap_ok(rc == 0 && dt == TP_I32 && rank == 2 && shape[0] == 2 && shape[1] == 3 && data &&
                   memcmp(data, v, sizeof v) == 0,
               "npy: reads a numpy-written (2, 3) <i4 file");
        free(data);
        /* a 1-d shape with its trailing comma, and a version 2.0 header */
        uint16_t h[3] = {0x3c00, 0xc000, 0x7bff};
        const char *dict = "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }";
        char buf[256];
        size_t dl = strlen(dict), total = 12 + dl + 1, pad = (64 - total % 64) % 64, hl = dl + pad + 1;
        memcpy(buf, "\x93NUMPY\x02\x00", 8);
        buf[8] = (char)hl, buf[9] = 0, buf[10] = 0, buf[11] = 0;
        memcpy(buf + 12, dict, dl);
        memset(buf + 12 + dl, ' ', pad);
        buf[12 + dl + pad] = '\n';
        memcpy(buf + 12 + hl, h, sizeof h);
        write_bytes(path, buf, 12 + hl + sizeof h);
        data = NULL;
        rc = tp_npy_read(path, &dt, &rank, shape, &data, err, sizeof err);
        tap_ok(rc == 0 && dt == TP_F16 && rank == 1 && shape[0] == 3 && data && memcmp(data, h, sizeof h) == 0,
               "npy: reads a version 2.0 file with shape (3,)");
        free(data);
    }

    /* refusals */
    {
        int32_t v[6] = {0};
        char p2[128];
        snprintf(p2, sizeof p2, "%s/bad.npy", tmpdir);
        write_bytes(p2, "\x93NUMPZ\x01\x00\x10\x00{}              \n", 26);
        npy_refused("bad magic", p2, "magic");
        write_bytes(p2, "PK\x03\x04", 4);
        npy_refused("a 4-byte file", p2, "magic");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", v, sizeof v);
        npy_refused("Fortran order", p2, "fortran_order");
        write_npy_raw(p2, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", v, 24);
        npy_refused("dtype '<f8'", p2, "<f8");
        write_npy_raw(p2, "{'descr': '>i4', 'fortran_order': False, 'shape': (6,), }", v, sizeof v);
        npy_refused("big-endian '>i4'", p2, ">i4");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v - 1);
        npy_refused("truncated data", p2, "truncated");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", v, 0);
        npy_refused("no data at all", p2, "truncated");
        int32_t w[7] = {0};
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", w, sizeof w);
        npy_refused("trailing bytes", p2, "more");
        write_bytes(p2, "\x93NUMPY\x01\x00\x40\x00{'descr': '<i4'", 25);
        npy_refused("truncated header", p2, "truncated");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1), }", v, 4);
        npy_refused("rank 5", p2, "shape");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (-2, 3), }", v, 0);
        npy_refused("a negative extent", p2, "shape");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, }", v, 4);
        npy_refused("no shape", p2, "shape");
        write_bytes(p2, "\x93NUMPY\x04\x00\x10\x00", 10);
        npy_refused("format version 4.0", p2, "version");
        /* issue 14's probe: a 74-byte file declaring 2^40 elements made
         * the reader malloc 2 TiB; the size is checked against the file's */
        write_bytes(p2,
                    "\x93NUMPY\x01\x00\x3e\x00{'descr':'<f2','fortran_order':False,'shape':(1099511627776,)}\0\0",
                    74);
        npy_refused("a 74-byte file declaring shape (2^40,)", p2, "needs 2199023255552 data bytes, the file has 2");
        /* a 19-byte file whose header stops after the key: read out of
         * bounds before the header was parsed with explicit bounds */
        write_bytes(p2, "\x93NUMPY\x01\x00\x09\x00{'descr':", 19);
        npy_refused("a header that ends after 'descr':", p2, "ends before the value of 'descr'");
        write_bytes(p2, "\x93NUMPY\x01\x00\x06\x00{'desc", 16);
        npy_refused("a header that ends inside a key", p2, "ends inside the string");
        write_bytes(p2, "\x93NUMPY\x01\x00\x2a\x00{'descr':'<i4',\0'fortran_order':False,}\n", 52);
        npy_refused("a NUL byte in the header", p2, "NUL byte at byte 15");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 3), 'shape': (2, 3), }", v, sizeof v);
        npy_refused("'shape' given twice", p2, "gives 'shape' twice");
        write_npy_raw(p2, "{'descr': '<i4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v);
        npy_refused("'descr' given twice", p2, "gives 'descr' twice");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1, }", v, sizeof v);
        npy_refused("a key NumPy does not write", p2, "has a key 'extra'");
        write_npy_raw(p2, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v);
        npy_refused("a structured dtype", p2, "structured array");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), } x", v, sizeof v);
        npy_refused("text after the dict", p2, "text after the header dict");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': Maybe, 'shape': (2, 3), }", v, sizeof v);
        npy_refused("fortran_order neither True nor False", p2, "neither True nor False");
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2 3), }", v, sizeof v);
        npy_refused("a shape without commas", p2, "separated by ','");
        npy_refused("a directory", tmpdir, "is a directory");
        snprintf(p2, sizeof p2, "%s/does-not-exist.npy", tmpdir);
        npy_refused("a missing file", p2, "cannot open");
        /* 2^62 elements of 4 bytes: the byte count wraps to 0 in size_t,
         * so the 1-element buffer would be taken for a 2^62-element one */
        snprintf(p2, sizeof p2, "%s/bad.npy", tmpdir);
        write_npy_raw(p2, "{'descr': '<i4', 'fortran_order': False, 'shape': (4611686018427387904,), }", v, 0);
        tp_dtype dt;
        int rank;
        int64_t shape[4];
        void *data = NULL;
        char err[512] = "";
        int rc = tp_npy_read(p2, &dt, &rank, shape, &data, err, sizeof err);
        tap_ok(rc == -1, "npy: shape (2^62,) of '<i4' (byte count overflows) refused");
        if (rc == 0)
            free(data);
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tp_support_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_expr();
    test_expr_check();
    test_fill_check();
    test_wide_f32();
    test_rng();
    test_npy();
    char p[128];
    snprintf(p, sizeof p, "%s/t.npy", tmpdir);
    unlink(p);
    snprintf(p, sizeof p, "%s/bad.npy", tmpdir);
    unlink(p);
    if (rmdir(tmpdir) != 0)
        tap_diag("could not remove %s", tmpdir);
    return tap_done();
}
