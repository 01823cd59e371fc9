/* op "rowwise" (issue 11, generic op families): reductions along the last
 * axis of each row (sum, max, min of a term, in any order), then each
 * output element an expression of the row's element, its column's
 * parameters and the reduced values, in binary32, rounded once to the
 * output's format. RMSNorm, softmax and LayerNorm are of this shape. The
 * contract's [model]:
 *
 *   arithmetic = "fp32"
 *   fma = "no" | "any"
 *   output_rounding = "nearest"
 *   [model.reduce]  NAME = { sum = "TERM", order = "any" }    (or max, min)
 *   [model.expr]    OUTPUT = "EXPRESSION"
 *   [model.ulp]     FUNCTION = { cuda = K, hip = K }
 *
 * oracles/generic/rw_model.h says what the expressions may name,
 * oracles/generic/rw_row.h how a row is bounded. */
#include "oracles/common/op_common.h"
#include "oracles/generic/ew_model.h"
#include "oracles/generic/rw_centred.h"
#include "oracles/generic/rw_row.h"

#include <ctype.h>
#include <stdlib.h>

static const char *const m_along[] = {"row", "column", NULL};

static const tp_model_key model_keys[] = {
    {"along", m_along, NULL},
    {"arithmetic", ew_arith_values, NULL},
    {"fma", ew_fma_values, NULL},
    {"output_rounding", ew_outr_values, NULL},
    {"reduce", NULL,
     "a table: each reduced value's name = { sum = \"term\", order = \"any\" } (or max, min), in the order they use "
     "each other (oracles/generic/rw_model.h)"},
    {"expr", NULL, "a table: each output tensor's name = its expression of the inputs, the reduced values and the dims"},
    {"ulp", NULL, "a table: each device function used = { cuda = K, hip = K }, its documented ulp bound per backend"},
    {NULL, NULL, NULL}};

static rw_setup *prepared(const tp_value *model, const tp_case *c, const char *output, char *err, size_t errlen)
{
    rw_setup *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errlen, "rowwise: out of memory");
        return NULL;
    }
    if (rw_setup_case(model, c, output, s, err, errlen) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Every row of s: with ref, the references (ref[r * per] for row r); 0, or
 * -1 with the first failing row named in err. */
static int all_rows(const rw_setup *s, tp_ref *ref, char *err, size_t errlen)
{
    int64_t bad = -1;
    rw_fail bf = {0};
    int nomem = 0;
#pragma omp parallel
    {
        rw_ws *w = malloc(sizeof *w);
        if (!w || rw_ws_init(w, s) != 0) {
#pragma omp atomic write
            nomem = 1;
            free(w);
            w = NULL;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t r = 0; r < s->lines; r++) {
            rw_fail f;
            if (!w || rw_row(s, w, r, ref, &f) == 0)
                continue;
#pragma omp critical(rw_bad)
            if (bad < 0 || r < bad)
                bad = r, bf = f;
        }
        if (w) {
            rw_ws_clear(w);
            free(w);
        }
    }
    if (nomem) {
        snprintf(err, errlen, "rowwise: out of memory");
        return -1;
    }
    if (bad < 0)
        return 0;
    char at[64] = "";
    if (bf.col >= 0)
        snprintf(at, sizeof at, ", %s %lld", s->by_column ? "row" : "column", (long long)bf.col);
    const int red = strcmp(bf.where, s->O->name) != 0;
    snprintf(err, errlen,
             "rowwise: %s, %s %lld%s: %s at operation %d of model.%s.%s: the binary32 model covers finite values "
             "within each function's domain and row sums the proven bound covers; expected inputs for which it does",
             s->O->name, s->by_column ? "column" : "row", (long long)bad, at, bf.why, bf.node + 1, red ? "reduce" : "expr", bf.where);
    return -1;
}

/* Refuses, before any launch, a case with a row the model cannot bound. */
static int rw_check_case(const tp_value *model, const tp_case *c, char *err, size_t errlen)
{
    for (int t = 0; t < c->ntensors; t++) {
        if (!c->tensors[t].initial)
            continue;
        rw_setup *s = prepared(model, c, c->tensors[t].name, err, errlen);
        if (!s)
            return -1;
        const int rc = all_rows(s, NULL, err, errlen);
        rw_setup_clear(s);
        free(s);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int rw_reference(const tp_value *model, const tp_case *c, const char *output, tp_ref *ref, char *err,
                        size_t errlen)
{
    rw_setup *s = prepared(model, c, output, err, errlen);
    if (!s)
        return -1;
    const int rc = all_rows(s, ref, err, errlen); /* check_case's refusals too: `tolproof check` calls none */
    rw_setup_clear(s);
    free(s);
    return rc;
}

static const tp_statement rw_exact_st = {
    "rowwise.exact.mpfi", TP_EVIDENCE,
    "each row's reductions and the contract's expressions over the reals, enclosed with MPFI at 256 bits "
    "(oracles/generic/rw_row.c, oracles/generic/ew_exact.c)"};
static const tp_statement rw_sum_st = {
    "rowwise.bound.row_sum", TP_EVIDENCE,
    "a row sum in any order: the proven any-order binary32 sum bound (oracles/common/proven/tp_sum_bound.c, T3; "
    "constant 2^-24*(1+2^-7), at most 65536 terms) around the sums of the terms' lower and upper ends, those sums "
    "rounded outward by MPFR's mpfr_sum; each term the binary32 model's hull, with the exact product where fma = "
    "\"any\" lets the kernel fuse it into its accumulator; max and min: the extreme ends, exact"};
static const tp_statement rw_sum_long_st = {
    "rowwise.bound.row_sum_long", TP_EVIDENCE,
    "a row sum of more than 65536 (at most 262144) terms: the proven bound for that length, constant "
    "2^-24*(1+2^-6+2^-11) (oracles/common/proven/dot_fp32.c, `bound_long`, T3), as the proven sum bound's interval "
    "for 1.0087890625 n terms of constant 2^-24*(1+2^-7) (tp_sum_bound_long_rn)"};
static const tp_statement rw_bound_st = {
    "rowwise.bound.binary32_model", TP_EVIDENCE,
    "admitted values: the hull of every binary32 evaluation of the expression with the row's reduced values as "
    "intervals (oracles/generic/ew_admit.c): + - * / fmaf sqrtf through the proven interval primitives "
    "(oracles/common/proven/tp_ival*.c, T3), device functions within their declared vendor ulps of the correctly "
    "rounded result (oracles/common/vendor_ulp.h, the ends proven in oracles/common/proven/tp_vendor_ulp.c, T3), "
    "then rounded outward to the output's format by the proven ends"};
static const tp_statement rw_dependence_st = {
    "rowwise.nonclaim.dependence", TP_NON_CLAIM,
    "a reduced value and the row element it was reduced from are bounded as independent intervals, as is a value "
    "used twice in an expression: the admitted interval can be wider than the kernel's real result set"};
static const tp_statement rw_order_st = {
    "rowwise.nonclaim.order", TP_NON_CLAIM,
    "a row sum is admitted in any order and tree of binary32 additions, with any grouping of terms: a kernel whose "
    "sum order is fixed gets no tighter bound for it"};
static const tp_statement rw_finite_st = {
    "rowwise.nonclaim.finite", TP_NON_CLAIM,
    "rows for which some binary32 intermediate may overflow or leave a function's domain, or a row sum leaves the "
    "proven bound's range, are refused before launch: infinities and NaNs produced inside the expression are not "
    "modelled"};
static const tp_statement rw_unproven_st = {
    "rowwise.nonclaim.unproven_evaluator", TP_NON_CLAIM,
    "the model reader, the row loop and the node-by-node evaluator that call the proven primitives are tested, not "
    "proven"};
static const tp_statement rw_column_st = {
    "rowwise.along_column", TP_EVIDENCE,
    "model.along = \"column\": every reduction runs down a column of the 2-D input (one sum per column, over the "
    "rows), so a \"row\" in the statements above is a column here"};
static const tp_statement rw_rn16_st = {
    "rowwise.bound.binary16_intermediate", TP_EVIDENCE,
    "__float2half inside the expression (a value stored as binary16 and read back): its binary16 result set is the "
    "proven ends of oracles/common/proven/tp_f16_round.c (T3) around the operand's interval; the exact value is the "
    "expression without that rounding"};
static const tp_statement rw_one_term_st = {
    "rowwise.bound.one_term", TP_EVIDENCE,
    "a row sum whose terms are all exactly 0 but at most one (a one-hot sum, select(index(col) == t, x, 0.0f)) is "
    "that term, exactly, whatever the row's length: in round to nearest, adding an exact 0 rounds nothing"};
static const tp_statement rw_centred_st = {
    "rowwise.bound.centred_sum", TP_EVIDENCE,
    "a sum of (x - c) * (x - c), c the same for the whole row (a variance: c = the row's mean): also bounded as a "
    "function of that one c (oracles/generic/rw_centred.c, tested, not proven): sum (x - c)^2 = Sxx - 2 c Sx + n c^2 "
    "over the row's exact moments, at its least and greatest over the binary32 c the model admits, times "
    "(1 -+ 2^-24)^3 for the rounded difference and square, then the proven any-order sum bound; the row's sum is "
    "admitted where this and the per-term bound both admit it. It takes every term of a row to use the same c, "
    "as the model's reductions are one value per row"};
static const tp_statement *const rw_statements[] = {&rw_exact_st,    &rw_sum_st,    &rw_bound_st,
                                                    &rw_dependence_st, &rw_order_st,  &rw_finite_st,
                                                    &rw_unproven_st, &rw_column_st, &rw_rn16_st,
                                                    &rw_one_term_st, &rw_sum_long_st, &rw_centred_st, NULL};
static const tp_statement *const rw_row_statements[] = {&rw_exact_st,  &rw_sum_st,    &rw_bound_st,   &rw_dependence_st,
                                                        &rw_order_st, &rw_finite_st, &rw_unproven_st, NULL};

/* Whether a sum reduction's term holds a select: the one way a model
 * makes most of a row's terms exactly 0 (a one-hot sum), where the
 * one-term rule decides the bound. Said only there: the rule applies to
 * every row, but statements are part of recorded results. */
static int sums_a_select(const tp_value *model)
{
    const tp_value *red = tp_value_get(model, "reduce");
    for (int q = 0; tp_value_is_table(red) && q < red->n; q++) {
        const char *t = tp_value_string(tp_value_get(&red->items[q], "sum"));
        for (const char *p = t ? strstr(t, "select") : NULL; p; p = strstr(p + 1, "select"))
            if ((p == t || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
                !(isalnum((unsigned char)p[6]) || p[6] == '_'))
                return 1;
    }
    return 0;
}

/* What the setups of c's outputs hold that a statement depends on: a row
 * longer than 65536 terms (the long-row bound decides its sums), a
 * centred sum (rw_centred.h). Both 0 without a case. */
static void scan_setups(const tp_value *model, const tp_case *c, int *long_rows, int *centred)
{
    char err[256];
    *long_rows = *centred = 0;
    for (int t = 0; c && t < c->ntensors; t++) {
        if (!c->tensors[t].initial)
            continue;
        rw_setup *s = prepared(model, c, c->tensors[t].name, err, sizeof err);
        if (!s)
            continue;
        *long_rows |= s->len > 65536;
        rw_centred m;
        for (int q = 0; q < s->nred; q++)
            *centred |= s->red[q].kind == RW_SUM && rw_centred_match(s, &s->red[q].term, &m);
        rw_setup_clear(s);
        free(s);
    }
}

static void rw_say(const tp_value *model, const tp_case *c, tp_statements *out)
{
    const char *along = tp_value_string(tp_value_get(model, "along"));
    tp_say_all(out, rw_row_statements);
    if (along && strcmp(along, "column") == 0)
        tp_say(out, &rw_column_st);
    if (ew_model_rounds_to_binary16(model))
        tp_say(out, &rw_rn16_st);
    if (sums_a_select(model))
        tp_say(out, &rw_one_term_st);
    int long_rows, centred;
    scan_setups(model, c, &long_rows, &centred);
    if (long_rows)
        tp_say(out, &rw_sum_long_st);
    if (centred)
        tp_say(out, &rw_centred_st);
}

const tp_op tp_op_rowwise = {
    "rowwise",
    "reductions along each row (sum, max, min of a term, any order), then y = an expression of the row's element, "
    "its column's parameters and the reduced values, in binary32 (contract model.reduce, model.expr)",
    rw_check_model, rw_reference, rw_say, rw_statements,
    TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_BF16) | TP_DTYPE_BIT(TP_F32) | TP_DTYPE_BIT(TP_I32), model_keys,
    TP_DTYPE_BIT(TP_F16) | TP_DTYPE_BIT(TP_BF16) | TP_DTYPE_BIT(TP_F32), NULL /* values compared */,
    NULL /* nonfinite_inputs: the model covers finite inputs only */, rw_check_case, NULL, NULL,
    NULL /* reference by ranges: none */, NULL, NULL};
