/* The reference of op gemm as oracles/gemm/op_gemm.c drives the proven
 * one-pass tiles (oracles/gemm/gemm_tiles.c): row blocks of A widened
 * where they are used, B packed into panels of 8 columns (the last one
 * padded), K-blocks of 256 terms, K-chunks beyond 8192 combined in
 * integers, transposed operands, several threads.
 *  - every exact value is RN(sum_k a_k b_k), the sum taken in 128-bit
 *    integers (binary16 values are integers times 2^-24);
 *  - every admitted interval is the one the bound code
 *    (oracles/gemm/gemm_admitted.h) gives from that sum and from
 *    sum_k |a_k b_k|, also taken in 128-bit integers: the one-pass abs
 *    sum is exact;
 *  - the whole reference (exact values, enclosures, admitted intervals) is
 *    bit for bit the same on 1, 2 and 3 threads;
 *  - every admitted interval holds RN16(exact) and its ends are binary16
 *    values;
 *  - K = 65537 is refused, naming the limit.
 * Shapes: N = 1000 ends with a panel of 0 padding columns, N = 300 with 4,
 * N = 70 with 2; K = 1024 and 4000 end with a K-block of 0 and 160 terms;
 * K = 65536 runs eight chunks, K = 65531 a short last one. */
#include "tests/test_rng.h"
#include "tests/tap.h"
#include "tests/rn_units48.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "oracles/gemm/gemm_admitted.h"
#include "oracles/gemm/gemm_long.h"

#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0xa4093822299f31d0ULL;
static uint64_t rnd(void) { return tp_test_splitmix64(&rng_state); }

/* binary16 patterns: mostly normal(ish) magnitudes, some of every binade */
static uint16_t value(void)
{
    if (rnd() % 8 == 0) {
        uint16_t h;
        do
            h = (uint16_t)rnd();
        while ((h & 0x7c00) == 0x7c00);
        return h;
    }
    return tp_f16_from_double(((double)(rnd() >> 11) * 0x1p-53 - 0.5) * 8);
}

static int64_t units24(uint16_t h) { return (int64_t)(tp_f16_to_double(h) * 0x1p24); }

/* The admitted interval of an element from its sums in units of 2^-48,
 * through the same code as the op (K terms, round to nearest). */
static void expected_ref(__int128 s, __int128 a, int K, tp_ref *r)
{
    double h, l, ah, al, hi, lo, ahi, alo, blo, bhi;
    tp_gemm_split_exact(s, &h, &l);
    tp_gemm_split_exact(a, &ah, &al);
    tp_two_sum(h, l, &hi, &lo);
    tp_two_sum(ah, al, &ahi, &alo);
    tp_gemm_bound(hi, lo, ahi, alo, (double)K, r, &blo, &bhi);
    tp_gemm_admit_f16(blo, bhi, r);
}

static tp_tensor *tensor(tp_case *c, const char *name, int64_t r, int64_t cols, int output)
{
    tp_tensor *t = &c->tensors[c->ntensors++];
    t->name = name;
    t->dtype = TP_F16;
    t->rank = 2;
    t->shape[0] = r;
    t->shape[1] = cols;
    t->numel = r * cols;
    t->data = calloc((size_t)t->numel, 2);
    t->initial = output ? calloc((size_t)t->numel, 2) : NULL;
    return t;
}

static void run(const tp_op *op, int M, int N, int K, int ta, int tb)
{
    char what[120];
    snprintf(what, sizeof what, "%s%s (%dx%dx%d)", ta ? "A^T" : "A", tb ? " @ B^T" : " @ B", M, N, K);
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = what;
    c.backend = "cuda";
    tp_tensor *A = tensor(&c, "A", ta ? K : M, ta ? M : K, 0), *B = tensor(&c, "B", tb ? N : K, tb ? K : N, 0);
    tensor(&c, "C", M, N, 1);
    uint16_t *a = A->data, *b = B->data;
    for (int64_t i = 0; i < A->numel; i++)
        a[i] = value();
    for (int64_t i = 0; i < B->numel; i++)
        b[i] = value();
    tp_value *model = model_of(json_pack("{s:s,s:s,s:s,s:b,s:b}", "accumulation", "fp32", "order", "any", "fma",
                                         "any", "transpose_a", ta, "transpose_b", tb));
    size_t n = (size_t)M * N;
    tp_ref *ref[3] = {malloc(n * sizeof(tp_ref)), malloc(n * sizeof(tp_ref)), malloc(n * sizeof(tp_ref))};
    char err[400] = "";
    int rc = 0;
    for (int t = 0; t < 3; t++) {
        omp_set_num_threads(t + 1);
        rc |= tp_op_reference(op, model, &c, "C", ref[t], err, sizeof err);
    }
    omp_set_num_threads(2);
    if (!tap_ok(rc == 0, "%s: the reference is computed%s%s", what, rc ? ": " : "", rc ? err : "")) {
        for (int t = 0; t < 3; t++)
            free(ref[t]);
        return;
    }
    long wrong = 0, outside = 0, other = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            __int128 s = 0, sa = 0;
            for (int k = 0; k < K; k++) {
                const __int128 p = (__int128)units24(a[ta ? (size_t)k * M + i : (size_t)i * K + k]) *
                                   units24(b[tb ? (size_t)j * K + k : (size_t)k * N + j]);
                s += p;
                sa += p < 0 ? -p : p;
            }
            const tp_ref *r = &ref[0][(size_t)i * N + j];
            if (r->exact != rn_units48(s) && wrong++ < 3)
                tap_diag("%s [%d,%d]: exact %a, the 128-bit sum rounds to %a", what, i, j, r->exact, rn_units48(s));
            tp_ref want;
            expected_ref(s, sa, K, &want);
            if ((want.allow_lo != r->allow_lo || want.allow_hi != r->allow_hi || want.exact_lo != r->exact_lo ||
                 want.exact_hi != r->exact_hi) &&
                other++ < 3)
                tap_diag("%s [%d,%d]: admitted [%a, %a], from the 128-bit sums [%a, %a]", what, i, j, r->allow_lo,
                         r->allow_hi, want.allow_lo, want.allow_hi);
            double y = tp_f16_to_double(tp_f16_from_double(r->exact));
            outside += !(r->allow_lo <= y && y <= r->allow_hi) ||
                       tp_f16_to_double(tp_f16_from_double(r->allow_lo)) != r->allow_lo ||
                       tp_f16_to_double(tp_f16_from_double(r->allow_hi)) != r->allow_hi;
        }
    tap_ok(wrong == 0, "%s: every exact value is the correctly rounded 128-bit integer sum (%ld are not)", what, wrong);
    tap_ok(other == 0,
           "%s: every admitted interval and enclosure is the bound code's from the 128-bit sums of a b and |a b| "
           "(%ld are not)",
           what, other);
    tap_ok(outside == 0, "%s: every admitted interval has binary16 ends and holds RN16(exact) (%ld do not)", what,
           outside);
    tap_ok(memcmp(ref[0], ref[1], n * sizeof(tp_ref)) == 0 && memcmp(ref[0], ref[2], n * sizeof(tp_ref)) == 0,
           "%s: the reference is bit for bit the same on 1, 2 and 3 threads", what);
    for (int t = 0; t < 3; t++)
        free(ref[t]);
    for (int t = 0; t < c.ntensors; t++) {
        free(c.tensors[t].data);
        free(c.tensors[t].initial);
    }
    tp_value_free(model);
}

int main(void)
{
    const tp_op *op = tp_op_find("gemm");
    if (!tap_ok(op != NULL, "op gemm is registered"))
        return tap_done();
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            run(op, 33, 1000, 1024, ta, tb); /* 125 full panels */
            run(op, 5, 300, 4000, ta, tb);   /* a padded last panel, a short last K-block */
        }
    run(op, 3, 70, TP_GEMM_K_MAX, 0, 0); /* eight K-chunks, a padded last panel */
    run(op, 19, 2, TP_GEMM_K_MAX, 1, 1);  /* one panel of 2 columns */
    run(op, 2, 200, TP_GEMM_K_MAX - 5, 0, 1); /* a short last chunk */

    /* above the limit: refused before any work, naming it */
    {
        tp_case c;
        memset(&c, 0, sizeof c);
        c.name = "too long";
        c.backend = "cuda";
        tensor(&c, "A", 1, TP_GEMM_K_MAX + 1, 0);
        tensor(&c, "B", TP_GEMM_K_MAX + 1, 1, 0);
        tensor(&c, "C", 1, 1, 1);
        tp_value *model = model_of(json_pack("{s:s,s:s,s:s}", "accumulation", "fp32", "order", "any", "fma", "any"));
        tp_ref r;
        char err[400] = "";
        int rc = tp_op_reference(op, model, &c, "C", &r, err, sizeof err);
        tap_ok(rc != 0 && strstr(err, "K = 65537") && strstr(err, "K <= 65536"), "K = 65537 is refused: %s", err);
        for (int t = 0; t < c.ntensors; t++) {
            free(c.tensors[t].data);
            free(c.tensors[t].initial);
        }
        tp_value_free(model);
    }
    return tap_done();
}
