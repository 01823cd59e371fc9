/* The reference of op gemm as oracles/gemm/op_gemm.c drives the proven
 * kernels: row blocks of A widened where they are used, B cut into
 * L2-sized column panels (the last one narrower), K-chunks beyond 8192,
 * transposed operands, several threads.
 *  - every exact value is RN(sum_k a_k b_k), the sum taken in 128-bit
 *    integers (binary16 values are integers times 2^-24);
 *  - the whole reference (exact values, enclosures, admitted intervals) is
 *    bit for bit the same on 1, 2 and 3 threads;
 *  - every admitted interval holds RN16(exact) and its ends are binary16
 *    values;
 *  - K = 65537 is refused, naming the limit.
 * Shapes: N = 1000 and K = 1024 give panels of 128 columns with a last one
 * of 104; K = 4000 panels of 64 (the narrowest) with a last one of 44;
 * K = 65536 runs eight chunks. */
#include "tests/test_rng.h"
#include "tests/tap.h"
#include "tests/rn_units48.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
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
    long wrong = 0, outside = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            __int128 s = 0;
            for (int k = 0; k < K; k++)
                s += (__int128)units24(a[ta ? (size_t)k * M + i : (size_t)i * K + k]) *
                     units24(b[tb ? (size_t)j * K + k : (size_t)k * N + j]);
            const tp_ref *r = &ref[0][(size_t)i * N + j];
            if (r->exact != rn_units48(s) && wrong++ < 3)
                tap_diag("%s [%d,%d]: exact %a, the 128-bit sum rounds to %a", what, i, j, r->exact, rn_units48(s));
            double y = tp_f16_to_double(tp_f16_from_double(r->exact));
            outside += !(r->allow_lo <= y && y <= r->allow_hi) ||
                       tp_f16_to_double(tp_f16_from_double(r->allow_lo)) != r->allow_lo ||
                       tp_f16_to_double(tp_f16_from_double(r->allow_hi)) != r->allow_hi;
        }
    tap_ok(wrong == 0, "%s: every exact value is the correctly rounded 128-bit integer sum (%ld are not)", what, wrong);
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
            run(op, 33, 1000, 1024, ta, tb); /* panels of 128, the last of 104 */
            run(op, 5, 300, 4000, ta, tb);   /* panels of 64, the last of 44 */
        }
    run(op, 3, 70, TP_GEMM_K_MAX, 0, 0); /* eight K-chunks, one panel */
    run(op, 19, 2, TP_GEMM_K_MAX, 1, 1);
    run(op, 2, 200, TP_GEMM_K_MAX - 5, 0, 1); /* chunks and panels of 64 (the last of 8) */

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
