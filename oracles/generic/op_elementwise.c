/* op "elementwise" (issue 11, generic op families): each output element
 * is an expression, written in the contract, of the input elements at the
 * same position, evaluated by the kernel in binary32 and rounded once to
 * the output's format. The contract's [model]:
 *
 *   arithmetic = "fp32"
 *   fma = "no" | "any"              may the compiler contract x*y + z
 *   output_rounding = "nearest"
 *   [model.expr]  OUTPUT = "EXPRESSION"     (oracles/generic/ew_prog.h)
 *   [model.ulp]   FUNCTION = { cuda = K, hip = K }   the vendor's documented
 *                                   ulp bound of each device function used
 *
 * An input is read at the output element's position when it has as many
 * elements as the output, at its column when it is a vector of the
 * output's last extent (a per-column parameter), and as a scalar when it
 * has one element.
 *
 * Exact value: the expression over the reals, an MPFI enclosure
 * (oracles/generic/ew_exact.c). Admitted values: the binary32 model's hull
 * (oracles/generic/ew_admit.c: the proven interval primitives, the vendor
 * ulps), rounded outward to the output's format by the proven ends
 * (oracles/common/round_ends.h). */
#include "oracles/common/op_common.h"
#include "oracles/common/round_ends.h"
#include "oracles/generic/ew_admit.h"
#include "oracles/generic/ew_exact.h"
#include "oracles/generic/ew_model.h"
#include "oracles/generic/ew_read.h"
#include "core/tp_expr.h"
#include "core/tp_format.h"

#include <fenv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const tp_model_key model_keys[] = {
    {"arithmetic", ew_arith_values, NULL},
    {"fma", ew_fma_values, NULL},
    {"output_rounding", ew_outr_values, NULL},
    {"expr", NULL, "a table: each output tensor's name = its expression of the inputs (oracles/generic/ew_prog.h)"},
    {"ulp", NULL, "a table: each device function used = { cuda = K, hip = K }, its documented ulp bound per backend"},
    {NULL, NULL, NULL}};

static int ew_check_model(const tp_value *model, char *err, size_t errlen)
{
    return ew_check_shared_keys(model, err, errlen);
}

/* What one output of one case needs: its program, model and inputs.
 * Input slots: the case's inputs (in[k], fmt[k]; fmt NULL for int32),
 * then the program's indexed reads (in NULL for index()). */
typedef struct {
    ew_prog prog;
    ew_model m;
    ew_tabs tabs; /* single-input subtrees, tabulated (oracles/generic/ew_tab.h) */
    int ninputs;
    const tp_tensor *in[EW_MAX_INPUTS];
    const tp_format *fmt[EW_MAX_INPUTS];
    int64_t numel, cols; /* the output's: elements, last extent */
    int rd_on[EW_MAX_READS];      /* INDEX over: EW_ON_NONE, EW_ON_COL, EW_ON_ROW */
    int rd_same[EW_MAX_READS];    /* the tensor has the output's shape: INDEX is a column of the row */
    int64_t *rd_at[EW_MAX_READS]; /* INDEX per column, per row or once */
} ew_setup;

static void free_reads(ew_setup *s)
{
    for (int k = 0; k < EW_MAX_READS; k++)
        free(s->rd_at[k]), s->rd_at[k] = NULL;
}

/* Evaluates read k's INDEX over the case: once, per column or per row,
 * and checks every value against what it indexes. */
static int resolve_read(const tp_case *c, const char *output, ew_setup *s, int k, const tp_tensor *O, char *err,
                        size_t errlen)
{
    const ew_read *r = &s->prog.read[k];
    const int slot = s->prog.ninputs + k;
    const tp_tensor *T = r->tensor >= 0 ? s->in[r->tensor] : NULL;
    const char *what = T ? T->name : "index";
    char where[160];
    snprintf(where, sizeof where, "model.expr.%s", output);
    ew_read_vals v;
    if (ew_read_eval(r->index, c, s->numel / s->cols, s->cols, "elementwise", where, what, &v, err, errlen) != 0)
        return -1;
    s->rd_same[k] = T && T->rank == O->rank && !memcmp(T->shape, O->shape, sizeof(int64_t) * (size_t)O->rank);
    if (T && !s->rd_same[k] && T->rank != 1) {
        free(v.at);
        snprintf(err, errlen, "elementwise: model.expr.%s: %s[%s]: %s has rank %d and not the shape of %s; expected "
                 "an indexed input of the output's shape (INDEX a column) or a vector", output, what, r->index, what,
                 T->rank, output);
        return -1;
    }
    s->rd_on[k] = v.axis;
    s->rd_at[k] = v.at;
    s->in[slot] = T;
    s->fmt[slot] = T ? tp_format_of(T->dtype) : NULL;
    if (!T)
        return ew_index_exact(&v, r->index, "elementwise", where, err, errlen);
    const int64_t limit = s->rd_same[k] ? s->cols : T->numel;
    for (int64_t j = 0; j < v.n; j++)
        if (!(v.at[j] >= 0 && v.at[j] < limit)) {
            snprintf(err, errlen, "elementwise: model.expr.%s: %s[%s] is %lld at %s %lld; expected an index in "
                     "0 .. %lld (%s of %s)", output, what, r->index, (long long)v.at[j],
                     v.axis == EW_ON_ROW ? "row" : "col", (long long)j, (long long)limit - 1,
                     s->rd_same[k] ? "a column" : "an element", what);
            return -1;
        }
    return 0;
}

static int setup(const tp_value *model, const tp_case *c, const char *output, ew_setup *s, char *err, size_t errlen)
{
    memset(s->rd_at, 0, sizeof s->rd_at);
    if (ew_check_model(model, err, errlen) != 0)
        return -1;
    const tp_tensor *O = tp_case_tensor(c, output);
    if (!O || !tp_format_of(O->dtype)) {
        snprintf(err, errlen, "elementwise: output %s must be a floating-point tensor", output);
        return -1;
    }
    s->numel = O->numel;
    s->cols = O->rank ? O->shape[O->rank - 1] : 1;
    const char *names[EW_MAX_INPUTS];
    s->ninputs = 0;
    for (int t = 0; t < c->ntensors; t++) {
        const tp_tensor *T = &c->tensors[t];
        if (T->initial)
            continue; /* an output */
        if (!tp_format_of(T->dtype) && T->dtype != TP_I32) {
            snprintf(err, errlen, "elementwise: input %s is %s; expected f16, bf16, f32 or i32", T->name,
                     tp_dtype_name(T->dtype));
            return -1;
        }
        if (T->dtype == TP_I32 && ew_int_input_exact(T, "elementwise", err, errlen) != 0)
            return -1;
        if (s->ninputs == EW_MAX_INPUTS) {
            snprintf(err, errlen, "elementwise: more than %d inputs", EW_MAX_INPUTS);
            return -1;
        }
        names[s->ninputs] = T->name;
        s->fmt[s->ninputs] = tp_format_of(T->dtype);
        s->in[s->ninputs++] = T;
    }
    const char *text = tp_value_string(tp_value_get(tp_value_get(model, "expr"), output));
    if (!text) {
        snprintf(err, errlen, "elementwise: model.expr has no expression for output %s", output);
        return -1;
    }
    tp_grammar_error e;
    if (ew_parse(text, s->ninputs, names, &s->prog, &e) != 0) {
        snprintf(err, errlen, "elementwise: model.expr.%s: %s; expected %s", output, e.what, e.expected);
        return -1;
    }
    /* an input read without an index: at the element, at its column or the one element */
    for (int i = 0; i < s->prog.n; i++) {
        const ew_node *nd = &s->prog.node[i];
        if (nd->kind != EW_INPUT || nd->input >= s->ninputs)
            continue;
        const tp_tensor *T = s->in[nd->input];
        if (T->numel != O->numel && !(T->rank == 1 && T->numel == s->cols) && T->numel != 1) {
            snprintf(err, errlen,
                     "elementwise: input %s has %lld elements; expected %lld (the output's), %lld (a vector of its "
                     "last extent) or 1, or a read %s[INDEX]",
                     T->name, (long long)T->numel, (long long)O->numel, (long long)s->cols, T->name);
            return -1;
        }
    }
    for (int k = 0; k < s->prog.nreads; k++)
        if (resolve_read(c, output, s, k, O, err, errlen) != 0) {
            free_reads(s);
            return -1;
        }
    const char *backend = c->backend ? c->backend : "cuda";
    char where[160];
    snprintf(where, sizeof where, "model.expr.%s", output);
    if (ew_prog_check(&s->prog, "elementwise", where, err, errlen) != 0 ||
        ew_model_read(model, backend, "elementwise", &s->m, err, errlen) != 0 ||
        ew_check_declared_ulps(&s->prog, &s->m, "elementwise", where, backend, err, errlen) != 0) {
        free_reads(s);
        return -1;
    }
    ew_tabs_plan(&s->prog, s->fmt, &s->tabs);
    return 0;
}

/* Slot k's value at flat index at, as binary32: a float format widens
 * exactly, int32 converts exactly (setup checked it is within 2^24). */
static float load(const ew_setup *s, int k, int64_t at, uint16_t *bits)
{
    const tp_tensor *T = s->in[k];
    if (!s->fmt[k]) {
        *bits = 0;
        return (float)((const int32_t *)T->data)[at];
    }
    *bits = s->fmt[k]->size == 2 ? ((const uint16_t *)T->data)[at] : 0; /* the pattern tables index */
    return (float)tp_format_load(s->fmt[k], T->data, at);
}

/* The inputs of element i, as binary32 values: at i for an input of the
 * output's size, at its column for a vector of the last extent, else the
 * one element (setup accepted nothing else); then the indexed reads. */
static void gather(const ew_setup *s, int64_t i, float *x, uint16_t *bits)
{
    for (int k = 0; k < s->ninputs; k++) {
        const tp_tensor *T = s->in[k];
        const int64_t at = T->numel == s->numel ? i : T->numel == 1 ? 0 : i % s->cols;
        x[k] = load(s, k, at, &bits[k]);
    }
    const int64_t row = i / s->cols, col = i % s->cols;
    for (int k = 0; k < s->prog.nreads; k++) {
        const int slot = s->ninputs + k;
        const int on = s->rd_on[k];
        const int64_t v = s->rd_at[k][on == EW_ON_COL ? col : on == EW_ON_ROW ? row : 0];
        if (!s->in[slot]) {
            x[slot] = (float)v, bits[slot] = 0;
            continue;
        }
        x[slot] = load(s, slot, s->rd_same[k] ? row * s->cols + v : v, &bits[slot]);
    }
}

/* setup() and the tables (with the MPFI ones when exact): NULL with a
 * message when either fails. */
static ew_setup *prepared(const tp_value *model, const tp_case *c, const char *output, int exact, char *err,
                          size_t errlen)
{
    ew_setup *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errlen, "elementwise: out of memory");
        return NULL;
    }
    if (setup(model, c, output, s, err, errlen) != 0) {
        free(s);
        return NULL;
    }
    if (ew_tabs_build(&s->tabs, &s->prog, &s->m, s->fmt, exact) != 0) {
        free_reads(s);
        free(s);
        snprintf(err, errlen, "elementwise: out of memory");
        return NULL;
    }
    return s;
}

static void release(ew_setup *s)
{
    ew_tabs_free(&s->tabs);
    free_reads(s);
    free(s);
}

/* -1 with a message naming the first element of output O the model
 * cannot bound (an overflow, a function outside its domain), its inputs
 * and the reason; 0 when there is none. */
static int unbounded_element(const ew_setup *s, const tp_tensor *O, char *err, size_t errlen)
{
    int64_t bad = -1;
    int node = 0;
    const char *why = "";
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < O->numel; i++) {
        float x[EW_MAX_INPUTS];
        uint16_t bits[EW_MAX_INPUTS];
        tp_ival32 r;
        int nd;
        const char *w;
        gather(s, i, x, bits);
        if (ew_admit_nodes(&s->prog, &s->m, x, s->prog.n - 1, NULL, &s->tabs, bits, &r, &nd, &w) != 0) {
#pragma omp critical(ew_bad)
            if (bad < 0 || i < bad)
                bad = i, node = nd, why = w;
        }
    }
    if (bad < 0)
        return 0;
    float x[EW_MAX_INPUTS];
    uint16_t bits[EW_MAX_INPUTS];
    gather(s, bad, x, bits);
    char ins[256];
    size_t o = 0;
    for (int k = 0; k < s->ninputs && o < sizeof ins; k++)
        o += (size_t)snprintf(ins + o, sizeof ins - o, "%s%s = %.9g", k ? ", " : "", s->in[k]->name, (double)x[k]);
    snprintf(err, errlen,
             "elementwise: %s[%lld] (%s): %s at operation %d of model.expr.%s: the binary32 model covers finite "
             "values within each function's domain only; expected inputs for which it does",
             O->name, (long long)bad, ins, why, node + 1, O->name);
    return -1;
}

/* Refuses, before any launch, a case with an element of some output the
 * model cannot bound. */
static int ew_check_case(const tp_value *model, const tp_case *c, char *err, size_t errlen)
{
    for (int t = 0; t < c->ntensors; t++) {
        const tp_tensor *O = &c->tensors[t];
        if (!O->initial)
            continue;
        ew_setup *s = prepared(model, c, O->name, 0, err, errlen);
        if (!s)
            return -1;
        const int rc = unbounded_element(s, O, err, errlen);
        release(s);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int ew_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                        size_t errlen)
{
    ew_setup *s = prepared(model, c, output, 1, err, errlen);
    if (!s)
        return -1;
    /* check_case's refusal again, on the same tables: `tolproof check`
     * calls no check_case */
    if (unbounded_element(s, tp_case_tensor(c, output), err, errlen) != 0) {
        release(s);
        return -1;
    }
    const tp_tensor *O = tp_case_tensor(c, output);
    const tp_format *fo = tp_format_of(O->dtype);
    int64_t failed = -1;
#pragma omp parallel
    {
        ew_exact_ws *w = malloc(sizeof *w);
        ew_exact_init(w, &s->prog);
#pragma omp for schedule(dynamic, 4096)
        for (int64_t i = 0; i < O->numel; i++) {
            float x[EW_MAX_INPUTS];
            uint16_t bits[EW_MAX_INPUTS];
            tp_ival32 r;
            int nd;
            const char *why;
            gather(s, i, x, bits);
            tp_ref *e = &ref[i];
            if (ew_admit_nodes(&s->prog, &s->m, x, s->prog.n - 1, NULL, &s->tabs, bits, &r, &nd, &why) != 0 ||
                ew_exact(w, &s->prog, x, &s->tabs, bits, &e->exact_lo, &e->exact, &e->exact_hi) != 0) {
#pragma omp critical(ew_failed)
                if (failed < 0 || i < failed)
                    failed = i;
                continue;
            }
            double lo = r.lo, hi = r.hi;
            tp_bound_shrink(e->exact, &lo, &hi); /* test-only; a no-op at its default scale 1 */
            e->allow_lo = tp_round_lower(fo, tp_round_lower(&tp_binary32, lo));
            e->allow_hi = tp_round_upper(fo, tp_round_upper(&tp_binary32, hi));
        }
        ew_exact_clear(w);
        free(w);
    }
    release(s);
    if (failed >= 0) {
        snprintf(err, errlen,
                 "elementwise: %s[%lld]: the real expression is undefined or unbounded there (a division by a "
                 "value that may be 0, a logarithm or square root outside its domain)",
                 output, (long long)failed);
        return -1;
    }
    return 0;
}

static const tp_statement ew_exact_st = {
    "elementwise.exact.mpfi", TP_EVIDENCE,
    "the contract's expression over the reals, enclosed with MPFI at 256 bits (oracles/generic/ew_exact.c; erf "
    "through MPFR's correctly rounded erf at the ends)"};
static const tp_statement ew_bound_st = {
    "elementwise.bound.binary32_model", TP_EVIDENCE,
    "admitted values: the hull of every binary32 evaluation of the expression (oracles/generic/ew_admit.c): + - * / "
    "fmaf sqrtf through the proven interval primitives (oracles/common/proven/tp_ival*.c, T3), x*y + z fused or not "
    "as model.fma says, device functions within their declared vendor ulps of the correctly rounded result "
    "(oracles/common/vendor_ulp.h, the ends proven in oracles/common/proven/tp_vendor_ulp.c, T3), then rounded "
    "outward to the output's format by the proven ends"};
static const tp_statement ew_dependence_st = {
    "elementwise.nonclaim.dependence", TP_NON_CLAIM,
    "each operation's operands are bounded by intervals, as if independent: a value used twice, or an fma choice "
    "made at two places, can make the admitted interval wider than the kernel's real result set"};
static const tp_statement ew_select_st = {
    "elementwise.nonclaim.select", TP_NON_CLAIM,
    "select compares reals in the exact value and binary32 values in the model: where they decide differently, the "
    "exact value follows the real comparison"};
static const tp_statement ew_finite_st = {
    "elementwise.nonclaim.finite", TP_NON_CLAIM,
    "inputs for which some binary32 intermediate may overflow or leave a function's domain are refused before "
    "launch: infinities and NaNs produced inside the expression are not modelled"};
static const tp_statement ew_unproven_st = {
    "elementwise.nonclaim.unproven_evaluator", TP_NON_CLAIM,
    "the expression parser and the node-by-node evaluator that calls the proven primitives are tested, not proven"};
static const tp_statement ew_rn16_st = {
    "elementwise.bound.binary16_intermediate", TP_EVIDENCE,
    "__float2half inside the expression (a value stored as binary16 and read back): its binary16 result set is the "
    "proven ends of oracles/common/proven/tp_f16_round.c (T3) around the operand's interval; the exact value is the "
    "expression without that rounding"};
static const tp_statement *const ew_statements[] = {&ew_exact_st,  &ew_bound_st,    &ew_dependence_st, &ew_select_st,
                                                    &ew_finite_st, &ew_unproven_st, &ew_rn16_st,       NULL};
static const tp_statement *const ew_always[] = {&ew_exact_st,  &ew_bound_st,    &ew_dependence_st,
                                                &ew_select_st, &ew_finite_st, &ew_unproven_st, NULL};

static void ew_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    (void)c;
    tp_say_all(out, ew_always);
    if (ew_model_rounds_to_binary16(model))
        tp_say(out, &ew_rn16_st);
}

const tp_op tp_op_elementwise = {
    "elementwise", "y = an expression of the inputs at the same position, in binary32 (contract model.expr)",
    ew_check_model, ew_reference, ew_say, ew_statements,
    TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_BF16) | TP_DTYPE_BIT(TP_F32) | TP_DTYPE_BIT(TP_I32), model_keys,
    TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_BF16) | TP_DTYPE_BIT(TP_F32), NULL /* values compared */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, ew_check_case, NULL, NULL,
    NULL /* reference by ranges: none */, NULL, NULL};
