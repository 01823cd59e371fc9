#include "oracles/generic/rw_model.h"

#include "oracles/common/op_common.h"
#include "oracles/generic/ew_admit.h"
#include "oracles/generic/ew_model.h"
#include "oracles/generic/ew_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"sum", "max", "min"};

int rw_line_constant(const rw_setup *s, int k)
{
    return s->where[k] == RW_AT_SCALAR || s->where[k] == (s->by_column ? RW_AT_COLUMN : RW_AT_ROW);
}

int rw_varies(const rw_setup *s, int k)
{
    if (k < s->nin)
        return !rw_line_constant(s, k);
    const int g = k - (s->nin + s->nred + s->ndims);
    if (g < 0 || g >= s->nread)
        return 0; /* a reduction, a dim, a row-invariant value */
    return s->read_on[g] == (s->by_column ? EW_ON_ROW : EW_ON_COL);
}

void rw_setup_clear(rw_setup *s)
{
    for (int g = 0; g < EW_MAX_READS; g++)
        free(s->read_at[g]), s->read_at[g] = NULL;
}

int rw_check_model(const tp_value *model, char *err, size_t errlen)
{
    if (ew_check_shared_keys(model, err, errlen) != 0)
        return -1;
    const char *along = tp_value_string(tp_value_get(model, "along"));
    if (tp_value_get(model, "along") && !(along && (strcmp(along, "row") == 0 || strcmp(along, "column") == 0))) {
        snprintf(err, errlen, "model.along must be \"row\" (the default: reduce along each row's last axis) or "
                 "\"column\" (along each column of a 2-D input)");
        return -1;
    }
    const tp_value *red = tp_value_get(model, "reduce");
    if (!tp_value_is_table(red) || red->n < 1 || red->n > RW_MAX_REDUCE) {
        snprintf(err, errlen,
                 "model.reduce must be a table of 1 to %d reductions: name = { sum = \"term\", order = \"any\" } "
                 "(or max, min)",
                 RW_MAX_REDUCE);
        return -1;
    }
    for (int q = 0; q < red->n; q++) {
        const tp_value *r = &red->items[q];
        int kinds = 0;
        for (int k = 0; k < 3; k++)
            kinds += tp_value_string(tp_value_get(r, kind_names[k])) != NULL;
        const char *order = tp_value_string(tp_value_get(r, "order"));
        if (!tp_value_is_table(r) || kinds != 1 || r->n != 2 || !order || strcmp(order, "any") != 0) {
            snprintf(err, errlen,
                     "model.reduce.%s must be { sum = \"term\", order = \"any\" } (or max, min in place of sum): one "
                     "reduction of a term, in any order",
                     red->keys[q]);
            return -1;
        }
    }
    return 0;
}

/* A parsed program's use of device functions without a bound, of later
 * reductions, of dims that binary32 does not hold, and (per_row) of
 * per-element or per-column inputs: 0, or -1 with a message. */
static int check_uses(const rw_setup *s, const ew_prog *p, const char *where, const char *const *names, int first_bad,
                      int per_row, const char *backend, char *err, size_t errlen)
{
    if (ew_check_declared_ulps(p, &s->m, "rowwise", where, backend, err, errlen) != 0)
        return -1;
    for (int i = 0; i < p->n; i++) {
        if (p->node[i].kind != EW_INPUT)
            continue;
        const int x = p->node[i].input;
        if (x >= first_bad && x < s->nin + s->nred) {
            snprintf(err, errlen, "rowwise: %s uses reduction %s, which is not declared before it; expected the "
                     "reductions of [model.reduce] in the order they use each other", where, names[x]);
            return -1;
        }
        if (x >= s->nin + s->nred && x < s->nin + s->nred + s->ndims && s->dim[x - s->nin - s->nred] > 16777216.0f) {
            snprintf(err, errlen, "rowwise: %s uses dim %s = %.0f, which binary32 does not hold exactly; expected "
                     "dims used in expressions to be at most 2^24", where, names[x],
                     (double)s->dim[x - s->nin - s->nred]);
            return -1;
        }
        if (per_row && x < s->nin && !rw_line_constant(s, x)) {
            snprintf(err, errlen, "rowwise: %s has one element per %s but reads %s, which varies along it; "
                     "expected only reductions, dims and inputs that do not", where, s->by_column ? "column" : "row",
                     names[x]);
            return -1;
        }
        if (per_row && x >= s->nin && rw_varies(s, x)) {
            snprintf(err, errlen, "rowwise: %s has one element per %s but reads index(%s), which varies along it; "
                     "expected only reductions, dims, inputs and indices that do not", where,
                     s->by_column ? "column" : "row", s->read_index[x - (s->nin + s->nred + s->ndims)]);
            return -1;
        }
    }
    return 0;
}

/* The index() reads of program p into the setup's shared ones (a read is
 * one name slot for every program: the reductions' terms and the output
 * are evaluated over one box), evaluated over the case when new; p's
 * nodes then read the shared slots. INPUT[INDEX] is refused. */
static int share_reads(rw_setup *s, const tp_case *c, ew_prog *p, const char *const *names, const char *where,
                       char *err, size_t errlen)
{
    const int base = s->nin + s->nred + s->ndims; /* = p->ninputs */
    int slot_of[EW_MAX_READS];
    for (int k = 0; k < p->nreads; k++) {
        const ew_read *r = &p->read[k];
        if (r->tensor >= 0) {
            snprintf(err, errlen, "rowwise: %s: %s[%s]: an indexed read of an input is op elementwise's; expected "
                     "the inputs by name, and index(INDEX) for a column or row number", where, names[r->tensor],
                     r->index);
            return -1;
        }
        int g = 0;
        while (g < s->nread && strcmp(s->read_index[g], r->index) != 0)
            g++;
        if (g == s->nread) {
            if (g == EW_MAX_READS || base + g >= EW_MAX_INPUTS) {
                snprintf(err, errlen, "rowwise: %s: index(%s): more index() reads than %d in the model; expected "
                         "fewer", where, r->index, g);
                return -1;
            }
            ew_read_vals v;
            if (ew_read_eval(r->index, c, s->rows, s->cols, "rowwise", where, "index", &v, err, errlen) != 0)
                return -1;
            s->read_at[g] = v.at;
            s->read_on[g] = v.axis;
            snprintf(s->read_index[g], sizeof s->read_index[g], "%s", r->index);
            s->nread++;
            if (ew_index_exact(&v, r->index, "rowwise", where, err, errlen) != 0)
                return -1;
        }
        slot_of[k] = base + g;
    }
    for (int i = 0; i < p->n; i++)
        if (p->node[i].kind == EW_INPUT && p->node[i].input >= base)
            p->node[i].input = slot_of[p->node[i].input - base];
    p->nreads = 0; /* its nodes read the shared slots now */
    return 0;
}

static int parse(const char *text, rw_setup *s, const tp_case *c, const char *const *names, ew_prog *p,
                 const char *where, char *err, size_t errlen)
{
    tp_grammar_error e;
    if (!text) {
        snprintf(err, errlen, "rowwise: %s has no expression", where);
        return -1;
    }
    if (ew_parse(text, s->nin + s->nred + s->ndims, names, p, &e) != 0) {
        snprintf(err, errlen, "rowwise: %s: %s; expected %s", where, e.what, e.expected);
        return -1;
    }
    if (share_reads(s, c, p, names, where, err, errlen) != 0)
        return -1;
    return ew_prog_check(p, "rowwise", where, err, errlen);
}

/* A node that depends on no per-element or per-column input. */
static void row_invariant(const rw_setup *s, const ew_prog *p, unsigned char *inv)
{
    for (int i = 0; i < p->n; i++) {
        const ew_node *nd = &p->node[i];
        if (nd->kind == EW_INPUT)
            inv[i] = !rw_varies(s, nd->input);
        else
            inv[i] = (nd->a < 0 || inv[nd->a]) && (nd->b < 0 || inv[nd->b]) && (nd->c < 0 || inv[nd->c]);
    }
}

/* Takes the row-invariant subtrees of s->out.full out (rw_out). A product
 * stays in: with fma = "any" its user reads its operands' values. */
static void extract(rw_setup *s)
{
    rw_out *o = &s->out;
    const ew_prog *p = &o->full;
    unsigned char inv[EW_MAX_NODES], cand[EW_MAX_NODES], user_cand[EW_MAX_NODES];
    row_invariant(s, p, inv);
    for (int i = 0; i < p->n; i++) {
        const ew_kind k = p->node[i].kind;
        cand[i] = inv[i] && k != EW_INPUT && k != EW_CONST && k != EW_MUL && !EW_IS_COMPARISON(k);
        user_cand[i] = 1;
    }
    for (int i = 0; i < p->n; i++) { /* a node all of whose users are candidates lies inside one */
        const ew_node *nd = &p->node[i];
        const int ops[3] = {nd->a, nd->b, nd->c};
        for (int k = 0; k < 3; k++)
            if (ops[k] >= 0 && !cand[i])
                user_cand[ops[k]] = 0;
    }
    if (p->n > 0)
        user_cand[p->n - 1] = 0;
    o->prog = *p;
    o->nroot = 0;
    memset(o->keep, 1, sizeof o->keep);
    for (int i = 0; i < p->n && s->nslots < EW_MAX_INPUTS; i++) {
        if (!cand[i] || user_cand[i])
            continue;
        const int k = o->nroot++;
        o->root[k] = i;
        o->slot[k] = s->nslots++;
        unsigned char *sub = o->sub[k];
        memset(sub, 0, EW_MAX_NODES);
        sub[i] = 1;
        for (int j = i; j >= 0; j--) /* operands precede their users */
            if (sub[j]) {
                const ew_node *nd = &p->node[j];
                if (nd->a >= 0)
                    sub[nd->a] = 1;
                if (nd->b >= 0)
                    sub[nd->b] = 1;
                if (nd->c >= 0)
                    sub[nd->c] = 1;
            }
        for (int j = 0; j < i; j++)
            if (sub[j])
                o->keep[j] = 0;
        ew_node *r = &o->prog.node[i];
        r->kind = EW_INPUT;
        r->input = o->slot[k];
        r->a = r->b = r->c = -1;
    }
    /* a node kept per element whose operand was taken out keeps it: only
     * in a DAG, which the parser does not build; kept for safety */
    for (int i = 0; i < p->n; i++) {
        if (!o->keep[i])
            continue;
        const ew_node *nd = &o->prog.node[i];
        if ((nd->a >= 0 && !o->keep[nd->a]) || (nd->b >= 0 && !o->keep[nd->b]) || (nd->c >= 0 && !o->keep[nd->c])) {
            o->prog = *p;
            o->nroot = 0;
            memset(o->keep, 1, sizeof o->keep);
            return;
        }
    }
}

static int setup_case(const tp_value *model, const tp_case *c, const char *output, rw_setup *s, char *err,
                      size_t errlen)
{
    if (rw_check_model(model, err, errlen) != 0)
        return -1;
    const char *backend = c->backend ? c->backend : "cuda";
    if (ew_model_read(model, backend, "rowwise", &s->m, err, errlen) != 0)
        return -1;
    s->O = tp_case_tensor(c, output);
    if (!s->O || !tp_format_of(s->O->dtype)) {
        snprintf(err, errlen, "rowwise: output %s must be a floating-point tensor", output);
        return -1;
    }
    /* the rows' shape: the largest input of rank >= 2 (the first of them) */
    const tp_tensor *R = NULL;
    for (int t = 0; t < c->ntensors; t++)
        if (!c->tensors[t].initial && c->tensors[t].rank >= 2 && (!R || c->tensors[t].numel > R->numel))
            R = &c->tensors[t];
    if (!R || R->shape[R->rank - 1] < 1) {
        snprintf(err, errlen, "rowwise: no input of rank >= 2 with a nonempty last axis; expected the rows as an "
                 "input of shape [..., row length]");
        return -1;
    }
    s->cols = R->shape[R->rank - 1];
    s->rows = R->numel / s->cols;
    const char *along = tp_value_string(tp_value_get(model, "along"));
    s->by_column = along && strcmp(along, "column") == 0;
    s->lines = s->by_column ? s->cols : s->rows;
    s->len = s->by_column ? s->rows : s->cols;
    const char *names[EW_MAX_INPUTS];
    for (int t = 0; t < c->ntensors; t++) {
        const tp_tensor *T = &c->tensors[t];
        if (T->initial)
            continue;
        if (!tp_format_of(T->dtype) && T->dtype != TP_I32) {
            snprintf(err, errlen, "rowwise: input %s is %s; expected f16, bf16, f32 or i32", T->name,
                     tp_dtype_name(T->dtype));
            return -1;
        }
        if (T->dtype == TP_I32 && ew_int_input_exact(T, "rowwise", err, errlen) != 0)
            return -1;
        rw_where w;
        if (T->rank == R->rank && memcmp(T->shape, R->shape, sizeof(int64_t) * (size_t)R->rank) == 0)
            w = RW_AT_ELEMENT;
        else if (T->rank == 1 && T->numel == s->cols)
            w = RW_AT_COLUMN;
        else if (T->numel == 1)
            w = RW_AT_SCALAR;
        else if (T->rank == R->rank && T->shape[T->rank - 1] == 1 && T->numel == s->rows)
            w = RW_AT_ROW;
        else {
            snprintf(err, errlen,
                     "rowwise: input %s has %lld elements; expected the shape of %s, a vector of %lld (one per "
                     "column), the shape of %s with a last extent of 1 (one per row) or one element",
                     T->name, (long long)T->numel, R->name, (long long)s->cols, R->name);
            return -1;
        }
        names[s->nin] = T->name;
        s->fmt[s->nin] = tp_format_of(T->dtype);
        s->where[s->nin] = w;
        s->in[s->nin++] = T;
    }
    const tp_value *red = tp_value_get(model, "reduce");
    s->nred = red->n;
    for (int q = 0; q < s->nred; q++)
        names[s->nin + q] = red->keys[q];
    s->ndims = c->ndims;
    for (int d = 0; d < c->ndims; d++) {
        names[s->nin + s->nred + d] = c->dim_names[d];
        s->dim[d] = (float)c->dims[d];
    }
    char where[160];
    for (int q = 0; q < s->nred; q++) {
        rw_reduce *r = &s->red[q];
        r->name = red->keys[q];
        const char *text = NULL;
        for (int k = 0; k < 3 && !text; k++)
            if ((text = tp_value_string(tp_value_get(&red->items[q], kind_names[k]))))
                r->kind = (rw_kind)k;
        snprintf(where, sizeof where, "model.reduce.%s.%s", r->name, kind_names[r->kind]);
        if (parse(text, s, c, names, &r->term, where, err, errlen) != 0 ||
            check_uses(s, &r->term, where, names, s->nin + q, 0, backend, err, errlen) != 0)
            return -1;
    }
    const int64_t on = s->O->numel;
    s->per_row = on == s->lines && s->len > 1;
    if (on != s->rows * s->cols && !s->per_row) {
        snprintf(err, errlen, "rowwise: output %s has %lld elements; expected %lld (one per element of %s) or %lld "
                 "(one per %s)", output, (long long)on, (long long)(s->rows * s->cols), R->name, (long long)s->lines,
                 s->by_column ? "column" : "row");
        return -1;
    }
    snprintf(where, sizeof where, "model.expr.%s", output);
    if (parse(tp_value_string(tp_value_get(tp_value_get(model, "expr"), output)), s, c, names, &s->out.full, where,
              err, errlen) != 0 ||
        check_uses(s, &s->out.full, where, names, s->nin + s->nred, s->per_row, backend, err, errlen) != 0)
        return -1;
    s->nslots = s->nin + s->nred + s->ndims + s->nread;
    extract(s);
    /* extract rewrote the program (subtrees taken out as inputs) */
    return ew_prog_check(&s->out.prog, "rowwise", where, err, errlen);
}

int rw_setup_case(const tp_value *model, const tp_case *c, const char *output, rw_setup *s, char *err,
                  size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (setup_case(model, c, output, s, err, errlen) == 0)
        return 0;
    rw_setup_clear(s);
    return -1;
}
