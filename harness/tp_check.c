#define _DEFAULT_SOURCE /* madvise, posix_memalign */
#include "harness/tp_check.h"

#include "core/tp_case.h"
#include "core/tp_format.h"
#include "core/tp_fp16.h"
#include "core/tp_sha256.h"
#include "core/tp_timings.h"
#include "harness/tp_diagnose.h"
#include "core/tp_big_alloc.h"
#include "oracles/common/tp_exact_log.h"

#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

double tp_json_to_num(const json_t *j)
{
    if (json_is_string(j)) {
        const char *s = json_string_value(j);
        return strcmp(s, "inf") == 0 ? INFINITY : strcmp(s, "-inf") == 0 ? -INFINITY : NAN;
    }
    return json_number_value(j);
}

json_t *tp_json_num(double v)
{
    if (isnan(v))
        return json_string("nan");
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

static json_t *index_json(const tp_tensor *t, int64_t flat)
{
    json_t *a = json_array();
    int64_t idx[4];
    for (int d = t->rank - 1; d >= 0; d--) {
        idx[d] = flat % t->shape[d];
        flat /= t->shape[d];
    }
    for (int d = 0; d < t->rank; d++)
        json_array_append_new(a, json_integer(idx[d]));
    return a;
}

static json_t *elem_json(const tp_tensor *t, const tp_check_elem *e)
{
    const tp_ref *r = &e->ref;
    json_t *o = json_object();
    /* Only where they apply, so that results without such elements keep
     * the fields they always had (recorded runs replay byte for byte). */
    if (e->more_accurate)
        json_object_set_new(o, "more_accurate", json_true());
    if (e->bits_shown) {
        int digits = (int)tp_format_of(t->dtype)->size * 2;
        char got[16], want[16];
        snprintf(got, sizeof got, "0x%0*x", digits, (unsigned)e->got_bits);
        snprintf(want, sizeof want, "0x%0*x", digits, (unsigned)e->want_bits);
        json_object_set_new(o, "got_bits", json_string(got));
        json_object_set_new(o, "admitted_bits", json_string(want));
    }
    json_object_set_new(o, "index", index_json(t, e->index));
    json_object_set_new(o, "got", tp_json_num(e->got));
    json_object_set_new(o, "exact", tp_json_num(r->exact));
    json_object_set_new(o, "allowed", json_pack("[oo]", tp_json_num(r->allow_lo), tp_json_num(r->allow_hi)));
    json_object_set_new(o, "bound", tp_json_num(fmax(r->allow_hi - r->exact, r->exact - r->allow_lo)));
    json_object_set_new(o, "err", tp_json_num(e->err));
    json_object_set_new(o, "err_over_bound", tp_json_num(e->ratio));
    return o;
}

double tp_side_ratio(double y, const tp_ref *r) { return tp_check_side_ratio(y, r); }

/* Element access through the output's format (binary16, bfloat16 or
 * binary32: tp_check_case accepts no other). */
double tp_output_value(const tp_tensor *t, int64_t i) { return tp_format_load(tp_format_of(t->dtype), t->data, i); }

int tp_element_admitted(const tp_tensor *t, int64_t i, const tp_ref *r, const uint32_t *bits)
{
    const tp_format *fmt = tp_format_of(t->dtype);
    if (bits)
        return tp_format_bits(fmt, t->data, i) == bits[i];
    return tp_check_value_admitted(tp_format_load(fmt, t->data, i), r);
}

int tp_more_accurate(double y, const tp_ref *r) { return tp_check_more_accurate(y, r); }

json_t *tp_check_output(const tp_tensor *out, const tp_ref *ref, double claim_atol, double claim_rtol)
{
    return tp_check_output_bits(out, ref, NULL, claim_atol, claim_rtol);
}

/* Elements [from, to) into t; ref[i - ref_from] is element i's
 * reference. One loop per format, each with its widths constant, so that
 * the compiler specialises tp_check_element's decoding for it. */
#define CHECK_RANGE(E, F, T)                                                                                  \
    for (int64_t i = from; i < to; i++)                                                                       \
        tp_check_element(E, F, i, ((const T *)out->data)[i], bits ? &bits[i] : NULL, &ref[i - ref_from],     \
                         claim_atol, claim_rtol, t)

static void check_range(const tp_tensor *out, const tp_ref *ref, int64_t ref_from, const uint32_t *bits,
                        double claim_atol, double claim_rtol, int64_t from, int64_t to, tp_check_tally *t)
{
    const tp_format *fmt = tp_format_of(out->dtype);
    if (fmt == &tp_binary16)
        CHECK_RANGE(5, 10, uint16_t);
    else if (fmt == &tp_bfloat16)
        CHECK_RANGE(8, 7, uint16_t);
    else
        CHECK_RANGE(8, 23, uint32_t);
}

/* Chunks of the parallel element loop: a fixed size, so the chunks (and
 * the order they are merged in) do not depend on the number of threads. */
#define TP_CHECK_CHUNK 16384

/* The SHA-256 of an output's bytes, run beside the element loop (or,
 * for a reference by ranges, beside the op's preparation as well). */
typedef struct {
    const void *data;
    size_t bytes;
    char sha[65];
    pthread_t thread;
    int started;
} sha_job;

static void *sha_run(void *arg)
{
    sha_job *j = arg;
    tp_sha256_hex(j->data, j->bytes, j->sha);
    return NULL;
}

static void sha_start(sha_job *j, const tp_tensor *out)
{
    j->data = out->data;
    j->bytes = (size_t)out->numel * tp_format_of(out->dtype)->size;
    j->sha[0] = 0;
    j->started = pthread_create(&j->thread, NULL, sha_run, j) == 0;
    if (!j->started)
        sha_run(j);
}

static void sha_wait(sha_job *j)
{
    if (j->started)
        pthread_join(j->thread, NULL);
    j->started = 0;
}

/* Where the element loop finds each element's reference: a whole array,
 * or an op's reference_range, computed chunk by chunk into a buffer. */
typedef struct {
    const tp_ref *ref;
    const tp_op *op;
    const void *state;
} ref_source;

/* Elements [from, to) into t; buf: room for TP_CHECK_CHUNK references
 * (ranged sources only). The ranges are computed in round to nearest, as
 * tp_op_reference computes whole references; the check itself in the
 * caller's mode. */
static void check_chunk(const tp_tensor *out, const ref_source *src, const uint32_t *bits, double claim_atol,
                        double claim_rtol, int64_t from, int64_t to, tp_ref *buf, tp_check_tally *t)
{
    if (src->ref) {
        check_range(out, src->ref, 0, bits, claim_atol, claim_rtol, from, to, t);
        return;
    }
    const int mode = fegetround();
    fesetround(FE_TONEAREST);
    src->op->reference_range(src->state, from, to, buf);
    fesetround(mode);
    check_range(out, buf, from, bits, claim_atol, claim_rtol, from, to, t);
}

/* An op's check_elsewhere (a GPU) for the whole output when it offers
 * one: 1 done into *all, 0 not offered (or not in this rounding mode),
 * -1 error (err). Its chunks are this file's, merged in order. */
static int check_elsewhere(const tp_tensor *out, const ref_source *src, const uint32_t *bits, double claim_atol,
                           double claim_rtol, tp_check_tally *all, char *err, size_t errlen)
{
    /* the GPU computes in round to nearest, as the references are; the
     * element rule in the caller's mode: only the same when that is it */
    if (src->ref || !src->op->check_elsewhere || bits || fegetround() != FE_TONEAREST)
        return 0;
    int64_t nchunks = (out->numel + TP_CHECK_CHUNK - 1) / TP_CHECK_CHUNK;
    tp_check_tally *t = calloc((size_t)(nchunks ? nchunks : 1), sizeof *t);
    if (!t) {
        snprintf(err, errlen, "output %s: out of memory for its element check", out->name);
        return -1;
    }
    int rc = src->op->check_elsewhere((void *)src->state, out, claim_atol, claim_rtol, TP_CHECK_CHUNK, t, err, errlen);
    if (rc == 0)
        for (int64_t k = 0; k < nchunks; k++)
            tp_check_tally_merge(all, &t[k]);
    free(t);
    return rc < 0 ? -1 : rc == 0;
}

/* sj: the output's SHA-256, started by the caller, or NULL to start it
 * here; waited for (and its thread joined) here in either case. */
static json_t *check_output(const tp_tensor *out, const ref_source *src, const uint32_t *bits, double claim_atol,
                            double claim_rtol, sha_job *sj, char *err, size_t errlen)
{
    tp_check_tally all = {0};
    int64_t nchunks = (out->numel + TP_CHECK_CHUNK - 1) / TP_CHECK_CHUNK;
    int no_memory = 0;
    /* The output's SHA-256 in a thread of its own while the elements are
     * checked (serially after the loop it was 20 to 60 ms of a 4096^2
     * output on the GPU host). */
    sha_job own;
    if (!sj) {
        sj = &own;
        sha_start(sj, out);
    }
    int elsewhere = check_elsewhere(out, src, bits, claim_atol, claim_rtol, &all, err, errlen);
    /* by ranges from here on: the op's data where reference_range reads it */
    int ranges_ready = elsewhere < 0 || src->ref || !src->op->reference_ready;
    if (elsewhere == 0 && !ranges_ready) {
        if (src->op->reference_ready((void *)src->state, err, errlen) != 0)
            elsewhere = -1;
        ranges_ready = 1;
    }
    tp_check_tally *part = elsewhere == 0 && nchunks > 1 ? calloc((size_t)nchunks, sizeof *part) : NULL;
    if (part) {
        /* A chunk's worst elements are the chunk's best candidates, and a
         * total order makes the merged list the sequential loop's. The
         * workers compute in the caller's rounding mode (err and the claim
         * audit round), which a thread does not inherit from another.
         * Static chunks: each thread reads the part of the reference that
         * the op's own static loops wrote (ops write their references in
         * contiguous blocks per thread). */
        const int mode = fegetround();
#pragma omp parallel
        {
            const int saved = fegetround();
            fesetround(mode);
            tp_ref *buf = src->ref ? NULL : malloc(TP_CHECK_CHUNK * sizeof *buf);
            if (!src->ref && !buf) {
#pragma omp atomic write
                no_memory = 1;
            }
#pragma omp for schedule(static)
            for (int64_t k = 0; k < nchunks; k++) {
                int64_t to = (k + 1) * TP_CHECK_CHUNK;
                if (src->ref || buf)
                    check_chunk(out, src, bits, claim_atol, claim_rtol, k * TP_CHECK_CHUNK,
                                to < out->numel ? to : out->numel, buf, &part[k]);
            }
            free(buf);
            fesetround(saved);
        }
        for (int64_t k = 0; k < nchunks; k++)
            tp_check_tally_merge(&all, &part[k]);
    }
    sha_wait(sj);
    const char *sha = sj->sha;
    /* rare (a NaN exact value): the one sequential pass decides */
    int sequential = elsewhere >= 0 && ((elsewhere == 0 && !part) || all.unordered);
    if (sequential && !ranges_ready && src->op->reference_ready((void *)src->state, err, errlen) != 0)
        elsewhere = -1, sequential = 0;
    if (sequential && !no_memory) {
        /* chunk after chunk into one tally: the same pass as one loop */
        memset(&all, 0, sizeof all);
        tp_ref *buf = src->ref ? NULL : malloc(TP_CHECK_CHUNK * sizeof *buf);
        no_memory = !src->ref && !buf;
        for (int64_t from = 0; !no_memory && from < out->numel; from += TP_CHECK_CHUNK) {
            int64_t to = from + TP_CHECK_CHUNK < out->numel ? from + TP_CHECK_CHUNK : out->numel;
            check_chunk(out, src, bits, claim_atol, claim_rtol, from, to, buf, &all);
        }
        free(buf);
    }
    free(part);
    if (no_memory)
        snprintf(err, errlen, "output %s: out of memory for its reference", out->name);
    if (no_memory || elsewhere < 0)
        return NULL;
    int64_t violations = all.violations, strict = all.strict, loose = all.loose, nonfinite = all.nonfinite,
            more_accurate = all.more_accurate;
    double max_err = all.max_err, max_ulp = all.max_ulp, max_ratio = all.max_ratio, max_bound = all.max_bound;
    tp_check_elem *worst = all.worst, *first = all.first;
    int nworst = all.nworst, nfirst = all.nfirst;
    json_t *o = json_object();
    json_object_set_new(o, "verdict", json_string(violations ? "fail" : "pass"));
    json_object_set_new(o, "elements", json_integer(out->numel));
    json_object_set_new(o, "violations", json_integer(violations));
    json_object_set_new(o, "nonfinite_outputs", json_integer(nonfinite));
    if (more_accurate) /* only when there are some: recorded results without them replay as they are */
        json_object_set_new(o, "more_accurate", json_integer(more_accurate));
    json_object_set_new(o, "max_abs_err", tp_json_num(max_err));
    json_object_set_new(o, "max_ulp_err", tp_json_num(max_ulp));
    json_object_set_new(o, "max_err_over_bound", tp_json_num(max_ratio));
    json_object_set_new(o, "max_bound", tp_json_num(max_bound));
    json_t *w = json_array(), *f = json_array();
    for (int i = 0; i < nworst; i++)
        json_array_append_new(w, elem_json(out, &worst[i]));
    for (int i = 0; i < nfirst; i++)
        json_array_append_new(f, elem_json(out, &first[i]));
    json_object_set_new(o, "worst", w);
    json_object_set_new(o, "first_violations", f);
    const char *verdict = strict && loose ? "too strict and too loose"
                          : strict        ? "too strict"
                          : loose         ? "too loose"
                                          : "implied";
    json_object_set_new(o, "claim", json_pack("{s:o,s:o,s:s,s:I,s:I}", "atol", tp_json_num(claim_atol), "rtol",
                                              tp_json_num(claim_rtol), "verdict", verdict, "strict_elements",
                                              (json_int_t)strict, "loose_elements", (json_int_t)loose));
    json_object_set_new(o, "sha256", json_string(sha));
    return o;
}

json_t *tp_check_output_bits(const tp_tensor *out, const tp_ref *ref, const uint32_t *bits, double claim_atol,
                             double claim_rtol)
{
    const ref_source src = {ref, NULL, NULL};
    char err[64];
    return check_output(out, &src, bits, claim_atol, claim_rtol, NULL, err, sizeof err); /* NULL: out of memory */
}

/* The fills of the case's inputs, as the plan records them. */
static json_t *fill_json(const tp_plan *plan, const tp_case *c)
{
    json_t *fill = json_object();
    int ci = tp_plan_case_index(plan, c->name);
    for (int t = 0; ci >= 0 && t < plan->ntensors; t++)
        if (plan->cases[ci].fill[t])
            json_object_set_new(fill, plan->tensors[t].name, json_string(plan->cases[ci].fill[t]));
    return fill;
}

/* The case's "exact_provider" field: per output, who computed its exact
 * values and how the sample cross-check against the CPU path went. Only
 * present when a provider other than the CPU path ran (the device's word:
 * a replay re-derives every element on the CPU instead, see
 * cli/tp_replay.c). */
static json_t *exact_provider_json(void)
{
    json_t *o = json_object();
    for (int i = 0; i < tp_exact_log_count(); i++) {
        const tp_exact_check *x = tp_exact_log_get(i);
        char seed[24];
        snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)x->seed);
        json_t *cc = json_pack("{s:I,s:s,s:s,s:I}", "sampled", (json_int_t)x->sampled, "seed", seed, "against",
                               x->against, "disagreements", (json_int_t)x->disagreements);
        json_object_set_new(o, x->output,
                            json_pack("{s:s,s:s,s:s,s:I,s:f,s:o}", "provider", x->provider, "device", x->device,
                                      "algorithm", x->algorithm, "elements", (json_int_t)x->elements, "seconds",
                                      x->seconds, "cross_check", cc));
    }
    return o;
}

json_t *tp_check_case(const tp_plan *plan, const tp_case *c, const tp_case_source *src, char *err, size_t errlen)
{
    return tp_check_case_given(plan, c, src, NULL, err, errlen);
}

/* An output checked with its references by ranges (tp_op.reference_prepare
 * gave state): the element check computes them chunk by chunk, so that no
 * array of the whole output's references exists (the same result, bit for
 * bit), or, where the op offers check_elsewhere (a GPU holding its data)
 * and the caller runs in round to nearest, the whole element check runs
 * there by the same rule and its tallies are merged here; the
 * diagnosis, which reads the whole reference, gets it only when it has
 * something to diagnose (a violation more accurate than the model admits). */
static json_t *check_by_ranges(const tp_op *op, const tp_value *model, const tp_case *c, const tp_tensor *out,
                               const void *state, double atol, double rtol, sha_job *sj, char *err, size_t errlen)
{
    double t = tp_timing_start();
    const ref_source src = {NULL, op, state};
    json_t *r = check_output(out, &src, NULL, atol, rtol, sj, err, errlen);
    tp_timing_end(t, "element check of %s, references computed by ranges", out->name);
    if (!r)
        return NULL;
    tp_ref *whole = NULL;
    if (json_integer_value(json_object_get(r, "more_accurate")) > 0) {
        whole = tp_big_alloc((size_t)out->numel * sizeof *whole);
        if (whole && op->reference_ready && op->reference_ready((void *)state, err, errlen) != 0) {
            free(whole);
            json_decref(r);
            return NULL;
        }
        if (whole) {
#pragma omp parallel
            {
                const int saved = fegetround();
                fesetround(FE_TONEAREST);
#pragma omp for schedule(static)
                for (int64_t from = 0; from < out->numel; from += TP_CHECK_CHUNK)
                    op->reference_range(state, from,
                                        out->numel - from < TP_CHECK_CHUNK ? out->numel : from + TP_CHECK_CHUNK,
                                        whole + from);
                fesetround(saved);
            }
        }
        if (!whole) {
            json_decref(r);
            r = NULL;
        }
    }
    if (!r) {
        snprintf(err, errlen, "output %s: out of memory for its reference", out->name);
        return NULL;
    }
    t = tp_timing_start();
    tp_diagnose_output(op, model, c, out, whole, r);
    tp_timing_end(t, "diagnosis of %s", out->name);
    free(whole);
    return r;
}

json_t *tp_check_case_given(const tp_plan *plan, const tp_case *c, const tp_case_source *src, tp_ref *const *given,
                            char *err, size_t errlen)
{
    const tp_op *op = tp_op_find(plan->op);
    if (!op) {
        snprintf(err, errlen, "unknown op \"%s\"", plan->op);
        return NULL;
    }
    if (tp_op_check_model_keys(op, plan->model, err, errlen) != 0 || op->check_model(plan->model, err, errlen) != 0)
        return NULL;
    double atol = plan->claim.atol, rtol = plan->claim.rtol;
    if (tp_op_check_outputs(op, c, err, errlen) != 0 || tp_op_check_inputs_finite(op, c, err, errlen) != 0)
        return NULL;
    json_t *outs = json_object();
    int pass = 1;
    tp_exact_log_reset();
    for (int i = 0; i < c->ntensors; i++) {
        const tp_tensor *out = &c->tensors[i];
        if (plan->tensors[i].role != TP_ROLE_OUTPUT)
            continue;
        if (!tp_format_of(out->dtype)) {
            snprintf(err, errlen, "output %s: only floating-point outputs can be checked", out->name);
            json_decref(outs);
            return NULL;
        }
        size_t n = (size_t)(out->numel ? out->numel : 1);
        tp_ref *const known = given ? given[i] : NULL;
        void *state = NULL;
        double t0 = tp_timing_start();
        /* the output is hashed while its reference is computed */
        sha_job sj;
        sha_start(&sj, out);
        if (!known && !op->reference_bits &&
            tp_op_reference_prepare(op, plan->model, c, out->name, &state, err, errlen) != 0) {
            sha_wait(&sj);
            json_decref(outs);
            return NULL;
        }
        if (state) {
            tp_timing_end(t0, "reference of %s prepared (%zu elements, computed by the element check)", out->name, n);
            json_t *r = check_by_ranges(op, plan->model, c, out, state, atol, rtol, &sj, err, errlen);
            op->reference_release(state);
            if (!r) {
                json_decref(outs);
                return NULL;
            }
            pass &= strcmp(json_string_value(json_object_get(r, "verdict")), "pass") == 0;
            json_object_set_new(outs, out->name, r);
            continue;
        }
        tp_ref *ref = known ? known : tp_big_alloc(n * sizeof *ref);
        /* ops whose admitted set is one bit pattern give it: patterns compared */
        uint32_t *bits = op->reference_bits ? malloc(n * sizeof *bits) : NULL;
        double t = tp_timing_start();
        if (!ref || (op->reference_bits && !bits) ||
            (!known && tp_op_reference(op, plan->model, c, out->name, ref, err, errlen) != 0) ||
            (bits && op->reference_bits(plan->model, c, out->name, bits, err, errlen) != 0)) {
            if (!ref || (op->reference_bits && !bits))
                snprintf(err, errlen, "output %s: out of memory for its reference", out->name);
            if (!known)
                free(ref);
            free(bits);
            sha_wait(&sj);
            json_decref(outs);
            return NULL;
        }
        if (!known)
            tp_timing_end(t, "reference of %s (%zu elements)", out->name, n);
        t = tp_timing_start();
        const ref_source whole = {ref, NULL, NULL};
        json_t *r = check_output(out, &whole, bits, atol, rtol, &sj, err, errlen);
        tp_timing_end(t, "element check of %s", out->name);
        if (!r) {
            if (!known)
                free(ref);
            free(bits);
            json_decref(outs);
            return NULL;
        }
        t = tp_timing_start();
        tp_diagnose_output(op, plan->model, c, out, ref, r);
        tp_timing_end(t, "diagnosis of %s", out->name);
        if (!known)
            free(ref);
        free(bits);
        pass &= strcmp(json_string_value(json_object_get(r, "verdict")), "pass") == 0;
        json_object_set_new(outs, out->name, r);
    }
    json_t *dims = json_object();
    for (int i = 0; i < c->ndims; i++)
        json_object_set_new(dims, c->dim_names[i], json_integer(c->dims[i]));
    json_t *result = json_pack("{s:s,s:I,s:o,s:o,s:s,s:o}", "case", c->name, "seed", (json_int_t)c->seed, "dims",
                               dims, "fill", fill_json(plan, c), "verdict", pass ? "pass" : "fail", "outputs", outs);
    /* Evidence and Non-claims from what was done: the caller says where
     * the tensors came from, the op which method and bound it used. */
    tp_statements said = {0};
    if (src && src->wait)
        src->wait(src->wait_arg);
    tp_case_statements(plan, op, c, src, outs, atol, rtol, &said);
    json_object_set_new(result, "evidence", tp_statements_json(&said, TP_EVIDENCE));
    json_object_set_new(result, "non_claims", tp_statements_json(&said, TP_NON_CLAIM));
    tp_statements_free(&said);
    if (tp_exact_log_count() > 0)
        json_object_set_new(result, "exact_provider", exact_provider_json());
    return result;
}

tp_case *tp_check_case_build(const tp_plan *plan, int index, const char *backend, char *err, size_t errlen)
{
    tp_case *c = tp_case_build(plan, index, backend, err, errlen);
    const tp_op *op = tp_op_find(plan->op);
    if (c && op && (tp_op_check_outputs(op, c, err, errlen) != 0 ||
                    (op->check_case && op->check_case(plan->model, c, err, errlen) != 0))) {
        tp_case_free(c);
        return NULL;
    }
    return c;
}
