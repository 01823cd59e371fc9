/* The half-bound check of issue 9 item 4, shared by tests/test_half_bound_*.c.
 *
 * A test builds a case with inputs it generates itself, writes into the
 * output tensor what an emulated CORRECT kernel produces (one that follows
 * the op's declared model, with its free choices taken adversarially), and
 * calls hb_check, which goes through the op's public reference path
 * (tp_op_reference, and op->reference_bits where the op has one) and the
 * checker's element test (tp_element_admitted):
 *   - at the real bound (scale 1) every element must be admitted: a
 *     rejection is a false alarm, i.e. a bound that is too narrow;
 *   - with the bound shrunk to one half toward the exact value
 *     (tp_bound_scale_set_for_test(0.5), the enclosure before the output
 *     rounding, see oracles/common/op_common.h) at least one element must be
 *     rejected: otherwise the bound is more than twice as wide as the worst
 *     correct output the emulation finds, and the test fails.
 * It also reports the critical scale s*: the bound shrunk to any scale
 * below s* rejects some output of the emulated correct kernel. s* is a
 * lower bound on the largest err/bound the emulation reaches before the
 * output rounding (a rejection at scale s needs the kernel's pre-rounding
 * value beyond exact + s*(end - exact)).
 * Header-only: each test is one translation unit. */
#ifndef TESTS_HALF_BOUND_H
#define TESTS_HALF_BOUND_H
#include "tests/tap.h"
#include "harness/tp_check.h"
#include "oracles/common/op_common.h"
#include "core/tp_dtype.h"
#include "core/tp_op.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Adds a rank-1 or rank-2 tensor (s1 = 0: rank 1) to the case, zero-filled;
 * an output also gets a zero `initial` (what marks it as an output). */
static inline tp_tensor *hb_tensor(tp_case *c, const char *name, tp_dtype dt, int64_t s0, int64_t s1, int output)
{
    tp_tensor *t = &c->tensors[c->ntensors++];
    size_t esz = tp_dtype_size(dt);
    t->name = name;
    t->dtype = dt;
    t->rank = s1 ? 2 : 1;
    t->shape[0] = s0;
    t->shape[1] = s1;
    t->numel = s1 ? s0 * s1 : s0;
    t->data = calloc((size_t)t->numel, esz);
    t->initial = output ? calloc((size_t)t->numel, esz) : NULL;
    if (!t->data || (output && !t->initial)) {
        fprintf(stderr, "half_bound: out of memory for %s\n", name);
        exit(2);
    }
    return t;
}

static void hb_case_init(tp_case *c, const char *name)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->backend = "cuda";
}

static void hb_case_free(tp_case *c)
{
    for (int t = 0; t < c->ntensors; t++) {
        free(c->tensors[t].data);
        free(c->tensors[t].initial);
    }
}

/* Elements of `out` (holding the emulated kernel's output) that the op's
 * reference at bound scale s rejects; -1 when the reference fails. With
 * verbose, the first rejected element is described in a TAP diagnostic;
 * worst_ratio (NULL: not wanted) gets the checker's largest err/bound. */
static long hb_rejected(const tp_op *op, const tp_value *model, const tp_case *c, const tp_tensor *out, double s,
                        tp_ref *ref, uint32_t *bits, double *worst_ratio, int verbose)
{
    char err[512];
    tp_bound_scale_set_for_test(s);
    int rc = tp_op_reference(op, model, c, out->name, ref, err, sizeof err);
    if (rc == 0 && bits)
        rc = op->reference_bits(model, c, out->name, bits, err, sizeof err);
    tp_bound_scale_set_for_test(1.0);
    if (rc != 0) {
        tap_diag("reference failed: %s", err);
        return -1;
    }
    long n = 0;
    if (worst_ratio)
        *worst_ratio = 0.0;
    for (int64_t i = 0; i < out->numel; i++) {
        if (worst_ratio) {
            double q = tp_side_ratio(tp_output_value(out, i), &ref[i]);
            if (q > *worst_ratio || isnan(q))
                *worst_ratio = q;
        }
        if (tp_element_admitted(out, i, &ref[i], bits))
            continue;
        if (n++ == 0 && verbose)
            tap_diag("  first rejected at scale %g: element %lld = %.17g, admitted [%.17g, %.17g], exact %.17g", s,
                     (long long)i, tp_output_value(out, i), ref[i].allow_lo, ref[i].allow_hi, ref[i].exact);
    }
    return n;
}

/* The two checks described at the top, for the output tensor `out` of case
 * c, whose data the caller filled with the emulated correct kernel's
 * output. Returns s* (the critical scale), or -1 on a failed reference. */
static double hb_check(const char *label, const tp_op *op, const tp_value *model, const tp_case *c,
                       const tp_tensor *out)
{
    tp_ref *ref = malloc((size_t)out->numel * sizeof *ref);
    uint32_t *bits = op->reference_bits ? malloc((size_t)out->numel * sizeof *bits) : NULL;
    if (!ref || (op->reference_bits && !bits)) {
        fprintf(stderr, "half_bound: out of memory\n");
        exit(2);
    }
    double ratio1 = 0;
    long r1 = hb_rejected(op, model, c, out, 1.0, ref, bits, &ratio1, 1);
    tap_ok(r1 == 0, "%s: at scale 1 every one of %lld elements of the emulated correct kernel is admitted "
                    "(%ld rejected: a false alarm would be a bound too narrow)",
           label, (long long)out->numel, r1);
    long r05 = hb_rejected(op, model, c, out, 0.5, ref, bits, NULL, 0);
    tap_ok(r05 > 0, "%s: at scale 0.5 the bound rejects %ld element(s) of the emulated correct kernel (none would "
                    "mean a bound more than 2x too wide for it)",
           label, r05);
    /* s*: rejected(s) grows as s shrinks (each end moves toward exact and
     * rounding is monotone), so bisect on [0, 1]. */
    double lo = 0.0, hi = 1.0; /* rejected at lo (when any s rejects), none at hi */
    if (r1 == 0 && hb_rejected(op, model, c, out, 0.0, ref, bits, NULL, 0) > 0) {
        for (int it = 0; it < 10; it++) /* s* to within 2^-10 */ {
            double mid = 0.5 * (lo + hi);
            long r = hb_rejected(op, model, c, out, mid, ref, bits, NULL, 0);
            if (r < 0)
                break;
            if (r > 0)
                lo = mid;
            else
                hi = mid;
        }
    } else
        hi = r1 == 0 ? 0.0 : 1.0;
    tap_diag("  %s: largest err/bound reached (checker's, after the output rounding) %.4f; critical scale s* = "
             "%.4f (the bound shrunk below s* rejects an output of the emulated correct kernel)",
             label, ratio1, hi);
    free(ref);
    free(bits);
    return r1 < 0 || r05 < 0 ? -1 : hi;
}
#endif
