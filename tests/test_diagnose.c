/* The diagnosis of model mismatches (harness/tp_diagnose.c) and the
 * bit-exact comparison of copies, through the ops and tp_check_case:
 *
 *  1. A correctly rounded softmax (float64, rounded once to binary16)
 *     checked against softmax_fwd's declared double rounding (intermediate
 *     = "binary16"): its violations are flagged more accurate than the
 *     model admits, the op's alternative intermediate = "fp32" is named as
 *     admitting every one of them ("admitted_by"), and that model passes
 *     the whole output. The case line (TAP, replay) and results.md say so.
 *  2. embedding_fwd through tp_check_case: a NaN in W copied bit for bit
 *     passes, a changed payload fails, -0 written as +0 fails, and the
 *     Evidence says the patterns were compared (outputs.compared_bits,
 *     embedding_fwd.bound.bit_pattern). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "tests/tap.h"
#include "tests/model_json.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "core/tp_plan.h"
#include "core/tp_rng.h"
#include "harness/tp_check.h"
#include "harness/tp_diagnose.h"
#include "harness/tp_report.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_int_t jint(const json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

/* ---- 1. softmax: more accurate than the double rounding admits ---------- */

enum { R = 8, N = 256 };

static void softmax_correctly_rounded(const uint16_t *x, uint16_t *y)
{
    for (int r = 0; r < R; r++) {
        double m = -INFINITY, s = 0, e[N];
        for (int j = 0; j < N; j++)
            m = fmax(m, tp_f16_to_double(x[r * N + j]));
        for (int j = 0; j < N; j++)
            s += e[j] = exp(tp_f16_to_double(x[r * N + j]) - m);
        for (int j = 0; j < N; j++)
            y[r * N + j] = tp_f16_from_double(e[j] / s);
    }
}

static tp_value *softmax_model(const char *intermediate)
{
    return model_of(json_pack("{s:s,s:s,s:s,s:s,s:{s:i}}", "arithmetic", "fp32", "order", "any", "intermediate", intermediate,
                     "output_rounding", "nearest", "expf_ulp", "cuda", 2));
}

static void test_softmax(void)
{
    const tp_op *op = tp_op_find("softmax_fwd");
    char err[600];
    uint16_t *x = calloc(R * N, 2), *y = calloc(R * N, 2), *init = calloc(R * N, 2);
    int64_t shape[2] = {R, N};
    tap_ok(tp_fill_f16(x, 2, shape, "normal(0, 8)", 11, "x", err, sizeof err) == 0, "softmax: wide logits filled");
    softmax_correctly_rounded(x, y);
    tp_case c = {.name = "cr", .seed = 11, .ndims = 2, .dim_names = {"R", "n"}, .dims = {R, N}, .ntensors = 2,
                 .backend = "cuda"};
    c.tensors[0] = (tp_tensor){"x", TP_F16, 2, {R, N}, R * N, x, NULL};
    c.tensors[1] = (tp_tensor){"y", TP_F16, 2, {R, N}, R * N, y, init};
    tp_ref *ref = malloc(R * N * sizeof *ref);
    tp_value *model = softmax_model("binary16");
    int rc = op->check_model(model, err, sizeof err) || tp_op_reference(op, model, &c, "y", ref, err, sizeof err);
    tap_ok(rc == 0, "softmax_fwd reference under intermediate = binary16%s%s", rc ? ": " : "", rc ? err : "");
    json_t *o = tp_check_output(&c.tensors[1], ref, 1e-2, 0);
    json_int_t viol = jint(o, "violations"), more = jint(o, "more_accurate");
    tap_ok(viol > 0 && more > 0 && more <= viol,
           "the correctly rounded softmax violates the double-rounding model on %lld elements, %lld of them more "
           "accurate than it admits",
           (long long)viol, (long long)more);
    /* every flagged element is closer to the exact value than its admitted
     * interval, err < distance to the nearer end */
    int flagged_ok = 1;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(o, "first_violations"), i, e)
    {
        if (!json_is_true(json_object_get(e, "more_accurate")))
            continue;
        double got = tp_json_to_num(json_object_get(e, "got")), ex = tp_json_to_num(json_object_get(e, "exact"));
        double lo = tp_json_to_num(json_array_get(json_object_get(e, "allowed"), 0));
        double hi = tp_json_to_num(json_array_get(json_object_get(e, "allowed"), 1));
        flagged_ok &= fabs(got - ex) < fmin(fabs(lo - ex), fabs(hi - ex)) && (got < lo || got > hi);
    }
    tap_ok(flagged_ok, "each flagged element lies outside its interval and closer to the exact value than either end");
    tp_diagnose_output(op, model, &c, &c.tensors[1], ref, o);
    json_t *by = json_object_get(o, "admitted_by"), *a0 = json_array_get(by, 0);
    tap_ok(json_array_size(by) == 1 && strcmp(json_string_value(json_object_get(a0, "key")), "intermediate") == 0 &&
               strcmp(json_string_value(json_object_get(a0, "value")), "fp32") == 0 && jint(a0, "elements") == more,
           "the diagnosis names intermediate = fp32 (the op's other value of a model key) as admitting all %lld",
           (long long)more);
    char text[300];
    tp_admitted_by_text(text, sizeof text, by, more);
    tap_ok(strcmp(text, "; --model intermediate=fp32 would admit them") == 0, "tp_admitted_by_text: '%s'", text);
    json_t *part = json_pack("[{s:s,s:s,s:i}]", "key", "intermediate", "value", "fp32", "elements", 1);
    tp_admitted_by_text(text, sizeof text, part, 3);
    tap_ok(strcmp(text, "; --model intermediate=fp32 would admit 1 of them") == 0, "and for some of them: '%s'", text);
    json_decref(part);
    /* the case line (TAP, results.md, replay) says so */
    json_t *cr = json_pack("{s:s,s:{s:O}}", "verdict", "fail", "outputs", "y", o);
    char line[600];
    tp_case_line(line, sizeof line, cr);
    char want[200];
    snprintf(want, sizeof want, "(%lld more accurate than the declared model admits; --model intermediate=fp32 would "
                                "admit them)", (long long)more);
    if (!tap_ok(strstr(line, want) != NULL, "the case line says which model admits them"))
        tap_diag("%s", line);
    /* results.md: the violations cell, and a note after the table */
    json_t *results = json_pack("{s:s,s:{s:s,s:s},s:[O]}", "contract", "softmax_fwd", "device", "name", "GPU", "arch",
                                "sm_90", "cases", cr);
    json_object_set_new(cr, "case", json_string("cr"));
    json_object_set_new(cr, "dims", json_object());
    char *md;
    size_t mdlen;
    FILE *f = open_memstream(&md, &mdlen);
    tp_write_markdown(f, results, NULL);
    fclose(f);
    char cell[100], note[200];
    snprintf(cell, sizeof cell, "| fail | %lld (%lld more accurate) |", (long long)viol, (long long)more);
    snprintf(note, sizeof note, "\n- cr: %lld elements; --model intermediate=fp32 would admit them\n", (long long)more);
    if (!tap_ok(strstr(md, cell) && strstr(md, note), "results.md: '%s' and a note after the table", cell))
        tap_diag("%s", md);
    free(md);
    json_decref(results);
    json_decref(cr);
    json_decref(o);
    /* under the alternative, the whole output passes */
    tp_value *fp32 = softmax_model("fp32");
    rc = tp_op_reference(op, fp32, &c, "y", ref, err, sizeof err);
    o = tp_check_output(&c.tensors[1], ref, 1e-2, 0);
    tap_ok(rc == 0 && strcmp(json_string_value(json_object_get(o, "verdict")), "pass") == 0 &&
               !json_object_get(o, "more_accurate"),
           "with intermediate = fp32 the correctly rounded softmax passes");
    json_decref(o);
    /* an output the model admits but for one element far off: a plain
     * violation, neither more accurate nor diagnosed */
    tp_op_reference(op, model, &c, "y", ref, err, sizeof err);
    for (int k = 0; k < R * N; k++)
        y[k] = tp_f16_from_double(ref[k].allow_lo);
    y[0] ^= 0x0400; /* an exponent bit */
    json_t *one = tp_check_output(&c.tensors[1], ref, 1e-2, 0);
    tp_diagnose_output(op, model, &c, &c.tensors[1], ref, one);
    tap_ok(jint(one, "violations") == 1 && !json_object_get(one, "more_accurate") &&
               !json_object_get(one, "admitted_by"),
           "one element far off: a violation, not more accurate, no diagnosis");
    json_decref(one);
    tp_value_free(fp32);
    tp_value_free(model);
    free(ref);
    free(x), free(y), free(init);
}

/* ---- 2. embedding_fwd: a copy compared bit for bit ---------------------- */

/* The plan of a contract embedding_fwd (idx, W -> out, init const(7)), as
 * tp_check_case reads it: op, model, claim, tensors' roles, kernel. */
static tp_plan *embedding_plan(void)
{
    tp_plan *plan = calloc(1, sizeof *plan);
    plan->contract = "embedding_fwd";
    plan->op = "embedding_fwd";
    plan->model = model_of(json_pack("{s:s,s:s}", "copy", "exact", "out_of_range", "unchanged"));
    plan->claim.atol = 1e-2;
    plan->kernel.source = "kernels/embedding_fwd.hip";
    plan->kernel.sha256 = "0123456789abcdef0123";
    plan->ntensors = 3;
    plan->tensors[0] = (tp_plan_tensor){.name = "idx", .role = TP_ROLE_INPUT, .dtype = TP_I32};
    plan->tensors[1] = (tp_plan_tensor){.name = "W", .role = TP_ROLE_INPUT, .dtype = TP_F16};
    plan->tensors[2] = (tp_plan_tensor){.name = "out", .role = TP_ROLE_OUTPUT, .dtype = TP_F16, .init = "const(7)"};
    return plan;
}

static void embedding_plan_free(tp_plan *plan)
{
    tp_value_free(plan->model);
    free(plan);
}

/* Checks out against the gather of W (2 x 2) by idx = {1, 0}. */
static json_t *check_embedding(const tp_plan *plan, uint16_t W[4], uint16_t out[4])
{
    static int32_t idx[2] = {1, 0};
    static uint16_t init[4] = {0x4700, 0x4700, 0x4700, 0x4700};
    tp_case c = {.name = "c", .seed = 1, .ndims = 3, .dim_names = {"n", "V", "D"}, .dims = {2, 2, 2}, .ntensors = 3,
                 .backend = "cuda"};
    c.tensors[0] = (tp_tensor){"idx", TP_I32, 1, {2}, 2, idx, NULL};
    c.tensors[1] = (tp_tensor){"W", TP_F16, 2, {2, 2}, 4, W, NULL};
    c.tensors[2] = (tp_tensor){"out", TP_F16, 2, {2, 2}, 4, out, init};
    char err[600];
    json_t *r = tp_check_case(plan, &c, NULL, err, sizeof err);
    if (!r)
        tap_diag("tp_check_case: %s", err);
    return r;
}

static const char *verdict(const json_t *r) { return r ? json_string_value(json_object_get(r, "verdict")) : "(none)"; }

static int has_id(const json_t *list, const char *id)
{
    size_t i;
    json_t *s;
    json_array_foreach(list, i, s) if (strcmp(json_string_value(json_object_get(s, "id")), id) == 0) return 1;
    return 0;
}

static void test_embedding(void)
{
    tp_plan *plan = embedding_plan();
    /* W = [[NaN with payload 0x101, -0], [1, 2]]; out = W[idx] = [W[1], W[0]] */
    uint16_t W[4] = {0x7f01, 0x8000, 0x3c00, 0x4000};
    uint16_t copy[4] = {0x3c00, 0x4000, 0x7f01, 0x8000};
    json_t *r = check_embedding(plan, W, copy);
    tap_ok(strcmp(verdict(r), "pass") == 0, "embedding_fwd: a NaN and a -0 in W copied bit for bit pass (%s)",
           verdict(r));
    json_t *ev = json_object_get(r, "evidence"), *nc = json_object_get(r, "non_claims");
    tap_ok(has_id(ev, "outputs.compared_bits") && has_id(ev, "embedding_fwd.bound.bit_pattern") &&
               !has_id(nc, "embedding_fwd.nonclaim.bit_patterns"),
           "its Evidence says the patterns were compared (outputs.compared_bits, embedding_fwd.bound.bit_pattern)");
    json_decref(r);
    uint16_t payload[4] = {0x3c00, 0x4000, 0x7e00, 0x8000};
    r = check_embedding(plan, W, payload);
    json_t *out = json_object_get(json_object_get(r, "outputs"), "out");
    json_t *f0 = json_array_get(json_object_get(out, "first_violations"), 0);
    tap_ok(strcmp(verdict(r), "fail") == 0 && jint(out, "violations") == 1 &&
               strcmp(json_string_value(json_object_get(f0, "got_bits")), "0x7e00") == 0 &&
               strcmp(json_string_value(json_object_get(f0, "admitted_bits")), "0x7f01") == 0,
           "a NaN whose payload changed fails, with both patterns");
    json_decref(r);
    uint16_t plus0[4] = {0x3c00, 0x4000, 0x7f01, 0x0000};
    r = check_embedding(plan, W, plus0);
    out = json_object_get(json_object_get(r, "outputs"), "out");
    tap_ok(strcmp(verdict(r), "fail") == 0 && jint(out, "violations") == 1, "-0 written as +0 fails");
    json_decref(r);
    /* a computing op says nothing of patterns */
    const tp_op *gemm = tp_op_find("gemm");
    tap_ok(gemm && !gemm->reference_bits && tp_op_find("embedding_fwd")->reference_bits,
           "embedding_fwd gives bit patterns, gemm does not");
    embedding_plan_free(plan);
}

int main(void)
{
    test_softmax();
    test_embedding();
    return tap_done();
}
