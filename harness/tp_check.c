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

typedef struct {
    int64_t index;
    double got, ratio, err;
    /* more_accurate: a violation closer to the exact value than anything the
     * model admits (tp_more_accurate). bits_shown: a violation of a
     * bit-exact op that the values cannot show (a signed zero, a NaN), whose
     * patterns got_bits and want_bits the element's JSON then carries. */
    int more_accurate, bits_shown;
    uint32_t got_bits, want_bits;
    tp_ref ref; /* the element's reference, for its JSON (a ranged check keeps no array) */
} elem;

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

static json_t *elem_json(const tp_tensor *t, const elem *e)
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

/* Keeps the k largest by (ratio, err, -index): a total order, so ties
 * resolve the same way on every machine. */
static int worse(const elem *a, const elem *b)
{
    if (a->ratio != b->ratio)
        return a->ratio > b->ratio;
    if (a->err != b->err)
        return a->err > b->err;
    return a->index < b->index;
}

static void keep_worst(elem *w, int *nw, const elem *e)
{
    if (*nw < TP_CHECK_WORST)
        w[(*nw)++] = *e;
    else if (worse(e, &w[TP_CHECK_WORST - 1]))
        w[TP_CHECK_WORST - 1] = *e;
    else
        return;
    for (int i = *nw - 1; i > 0 && worse(&w[i], &w[i - 1]); i--) {
        elem tmp = w[i];
        w[i] = w[i - 1];
        w[i - 1] = tmp;
    }
}

/* Distance from the exact value to the allowed end on the side of y;
 * err/bound on that side is <= 1 exactly when y is admitted. */
double tp_side_ratio(double y, const tp_ref *r)
{
    if (isnan(y))
        return INFINITY;
    double d = y >= r->exact ? y - r->exact : r->exact - y;
    double b = y >= r->exact ? r->allow_hi - r->exact : r->exact - r->allow_lo;
    if (d == 0)
        return 0;
    if (!(b > 0))
        return INFINITY;
    if (isinf(d))
        return isinf(b) ? 1 : INFINITY;
    return d / b;
}

/* Element access through the output's format (binary16, bfloat16 or
 * binary32: tp_check_case accepts no other). */
double tp_output_value(const tp_tensor *t, int64_t i) { return tp_format_load(tp_format_of(t->dtype), t->data, i); }

/* The verdict of a value against its admitted interval: the one rule,
 * for tp_element_admitted and the element loop (which has y loaded). */
static inline int value_admitted(double y, const tp_ref *r) { return !isnan(y) && r->allow_lo <= y && y <= r->allow_hi; }

int tp_element_admitted(const tp_tensor *t, int64_t i, const tp_ref *r, const uint32_t *bits)
{
    const tp_format *fmt = tp_format_of(t->dtype);
    if (bits)
        return tp_format_bits(fmt, t->data, i) == bits[i];
    return value_admitted(tp_format_load(fmt, t->data, i), r);
}

/* y is closer to every point x of [exact_lo, exact_hi] than the admitted
 * interval is: |y - x| < dist(x, [allow_lo, allow_hi]). That needs the
 * enclosure wholly on one side of the interval, say below (exact_hi <
 * allow_lo), and then, for every x: y < allow_lo, and where x > y also
 * x - y < allow_lo - x, i.e. 2x < allow_lo + y, decided at x = exact_hi.
 * The sum allow_lo + y is rounded in whatever mode the caller runs; it is
 * within one double step of the real sum, so the step below (above) it is
 * a safe lower (upper) bound, and no element is called more accurate
 * unless it is. 2x is exact (it may overflow to inf, which only refuses).
 * An infinite end is excluded: where the model admits only an overflow to
 * infinity, every finite y is "closer", which says nothing about accuracy
 * (a saturating kernel is not a more accurate one). */
int tp_more_accurate(double y, const tp_ref *r)
{
    if (!isfinite(y) || !isfinite(r->exact_lo) || !isfinite(r->exact_hi))
        return 0;
    if (r->exact_hi < r->allow_lo && isfinite(r->allow_lo))
        return y < r->allow_lo && (y >= r->exact_hi || 2 * r->exact_hi < nextafter(r->allow_lo + y, -INFINITY));
    if (r->exact_lo > r->allow_hi && isfinite(r->allow_hi))
        return y > r->allow_hi && (y <= r->exact_lo || 2 * r->exact_lo > nextafter(r->allow_hi + y, INFINITY));
    return 0;
}

json_t *tp_check_output(const tp_tensor *out, const tp_ref *ref, double claim_atol, double claim_rtol)
{
    return tp_check_output_bits(out, ref, NULL, claim_atol, claim_rtol);
}

/* What the element loop gathers over a range of elements. */
typedef struct {
    int64_t violations, strict, loose, nonfinite, more_accurate;
    double max_err, max_ulp, max_ratio, max_bound;
    elem worst[TP_CHECK_WORST], first[TP_CHECK_WORST];
    int nworst, nfirst;
    int unordered; /* an err or ratio is NaN: keep_worst's order is not total there */
} tally;

/* Elements [from, to); ref[i - ref_from] is element i's reference. */
static void check_range(const tp_tensor *out, const tp_ref *ref, int64_t ref_from, const uint32_t *bits,
                        double claim_atol, double claim_rtol, int64_t from, int64_t to, tally *t)
{
    const tp_format *fmt = tp_format_of(out->dtype);
    for (int64_t i = from; i < to; i++) {
        const tp_ref *r = &ref[i - ref_from];
        double y = tp_format_load(fmt, out->data, i);
        int ok = bits ? tp_format_bits(fmt, out->data, i) == bits[i] : value_admitted(y, r);
        double err = isnan(y) ? INFINITY : fabs(y - r->exact);
        if (isinf(y) && isinf(r->exact) && y == r->exact)
            err = 0;
        elem e = {i, y, tp_side_ratio(y, r), err, 0, 0, 0, 0, *r};
        if (bits && ok)
            e.err = e.ratio = 0; /* the admitted pattern itself, a NaN included */
        else if (bits) {
            /* a set of one pattern has no room on either side: -0 for +0
             * too, though their values are the same */
            e.ratio = INFINITY;
            if (isnan(r->exact))
                e.err = INFINITY; /* anything but the admitted NaN pattern */
        }
        if (bits && !ok && (y == r->exact || isnan(y) || isnan(r->exact))) {
            e.bits_shown = 1; /* -0 for +0, another NaN: the values do not show it */
            e.got_bits = tp_format_bits(fmt, out->data, i);
            e.want_bits = bits[i];
        }
        if (!ok && e.ratio <= 1)
            e.ratio = nextafter(1.0, 2.0); /* the enclosure of exact is coarser than the verdict */
        if (!bits && !ok && tp_more_accurate(y, r)) {
            e.more_accurate = 1;
            t->more_accurate++;
        }
        if (!isfinite(y))
            t->nonfinite++;
        if (!ok) {
            t->violations++;
            if (t->nfirst < TP_CHECK_WORST)
                t->first[t->nfirst++] = e;
        }
        t->unordered |= isnan(e.err) || isnan(e.ratio);
        t->max_err = fmax(t->max_err, e.err);
        t->max_ulp = fmax(t->max_ulp, e.err / fmt->ulp(r->exact));
        t->max_ratio = fmax(t->max_ratio, e.ratio);
        double bound = fmax(r->allow_hi - r->exact, r->exact - r->allow_lo);
        t->max_bound = fmax(t->max_bound, bound);
        keep_worst(t->worst, &t->nworst, &e);
        /* Claim audit: does |y - exact| <= atol accept exactly the outputs
         * the model admits? strict: it rejects some admitted output (a
         * false alarm is possible); loose: it accepts some value of the format
         * outside the admitted set (a missed bug is possible). */
        double atol = claim_atol + claim_rtol * fabs(r->exact);
        if (bound > atol)
            t->strict++;
        double above = tp_format_next_above(fmt, r->allow_hi);
        double below = tp_format_next_below(fmt, r->allow_lo);
        if ((above > r->allow_hi && above - r->exact <= atol) ||
            (below < r->allow_lo && r->exact - below <= atol))
            t->loose++;
    }
}

/* Chunks of the parallel element loop: a fixed size, so the chunks (and
 * the order they are merged in) do not depend on the number of threads. */
#define TP_CHECK_CHUNK 16384

/* t += u, u covering the elements right after t's. Counts add, maxima are
 * fmax (NaN-ignoring, so in any order), the first violations are t's then
 * u's, and the worst are u's offered to t's list in the order the
 * sequential loop would offer them: the same list whenever keep_worst's
 * order is total (no NaN err or ratio; the caller checks that). */
static void tally_merge(tally *t, const tally *u)
{
    t->violations += u->violations;
    t->strict += u->strict;
    t->loose += u->loose;
    t->nonfinite += u->nonfinite;
    t->more_accurate += u->more_accurate;
    t->max_err = fmax(t->max_err, u->max_err);
    t->max_ulp = fmax(t->max_ulp, u->max_ulp);
    t->max_ratio = fmax(t->max_ratio, u->max_ratio);
    t->max_bound = fmax(t->max_bound, u->max_bound);
    for (int i = 0; i < u->nfirst && t->nfirst < TP_CHECK_WORST; i++)
        t->first[t->nfirst++] = u->first[i];
    for (int i = 0; i < u->nworst; i++)
        keep_worst(t->worst, &t->nworst, &u->worst[i]);
    t->unordered |= u->unordered;
}

/* The SHA-256 of an output's bytes, run beside the element loop. */
typedef struct {
    const void *data;
    size_t bytes;
    char sha[65];
} sha_job;

static void *sha_run(void *arg)
{
    sha_job *j = arg;
    tp_sha256_hex(j->data, j->bytes, j->sha);
    return NULL;
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
                        double claim_rtol, int64_t from, int64_t to, tp_ref *buf, tally *t)
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

static json_t *check_output(const tp_tensor *out, const ref_source *src, const uint32_t *bits, double claim_atol,
                            double claim_rtol)
{
    const tp_format *fmt = tp_format_of(out->dtype);
    tally all = {0};
    int64_t nchunks = (out->numel + TP_CHECK_CHUNK - 1) / TP_CHECK_CHUNK;
    tally *part = nchunks > 1 ? calloc((size_t)nchunks, sizeof *part) : NULL;
    int no_memory = 0;
    /* The output's SHA-256 in a thread of its own while the elements are
     * checked (serially after the loop it was 20 to 60 ms of a 4096^2
     * output on the GPU host). */
    sha_job sj = {out->data, (size_t)out->numel * fmt->size, ""};
    pthread_t sha_thread;
    int sha_started = pthread_create(&sha_thread, NULL, sha_run, &sj) == 0;
    if (!sha_started)
        sha_run(&sj);
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
            tally_merge(&all, &part[k]);
    }
    if (sha_started)
        pthread_join(sha_thread, NULL);
    const char *sha = sj.sha;
    int sequential = !part || all.unordered; /* rare (a NaN exact value): the one sequential pass decides */
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
        return NULL;
    int64_t violations = all.violations, strict = all.strict, loose = all.loose, nonfinite = all.nonfinite,
            more_accurate = all.more_accurate;
    double max_err = all.max_err, max_ulp = all.max_ulp, max_ratio = all.max_ratio, max_bound = all.max_bound;
    elem *worst = all.worst, *first = all.first;
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
    return check_output(out, &src, bits, claim_atol, claim_rtol);
}

json_t *tp_check_output_ranges(const tp_tensor *out, const tp_op *op, const void *state, double claim_atol,
                               double claim_rtol)
{
    const ref_source src = {NULL, op, state};
    return check_output(out, &src, NULL, claim_atol, claim_rtol);
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
 * gave state): the element check computes them chunk by chunk; the
 * diagnosis, which reads the whole reference, gets it only when it has
 * something to diagnose (a violation more accurate than the model admits). */
static json_t *check_by_ranges(const tp_op *op, const tp_value *model, const tp_case *c, const tp_tensor *out,
                               const void *state, double atol, double rtol, char *err, size_t errlen)
{
    double t = tp_timing_start();
    json_t *r = tp_check_output_ranges(out, op, state, atol, rtol);
    tp_timing_end(t, "element check of %s, references computed by ranges", out->name);
    tp_ref *whole = NULL;
    if (r && json_integer_value(json_object_get(r, "more_accurate")) > 0) {
        whole = tp_big_alloc((size_t)out->numel * sizeof *whole);
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
        if (!known && !op->reference_bits &&
            tp_op_reference_prepare(op, plan->model, c, out->name, &state, err, errlen) != 0) {
            json_decref(outs);
            return NULL;
        }
        if (state) {
            tp_timing_end(t0, "reference of %s prepared (%zu elements, computed by the element check)", out->name, n);
            json_t *r = check_by_ranges(op, plan->model, c, out, state, atol, rtol, err, errlen);
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
            json_decref(outs);
            return NULL;
        }
        if (!known)
            tp_timing_end(t, "reference of %s (%zu elements)", out->name, n);
        t = tp_timing_start();
        json_t *r = tp_check_output_bits(out, ref, bits, atol, rtol);
        tp_timing_end(t, "element check of %s", out->name);
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
