#include "oracles/gelu/gelu_hip.h"
#include "oracles/gelu/gelu_fwd_tables.h"
#include "core/tp_format.h"
#include "oracles/common/op_common.h"

#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int tp_gelu_hip_figure(const tp_value *model, tp_hip_figure *f, double *abs, char *err, size_t errlen)
{
    if (tp_hip_figure_read(tp_value_get(tp_value_get(model, "tanhf_ulp"), "hip"), "model.tanhf_ulp.hip", f, err,
                           errlen) != 0)
        return -1;
    /* tanh is odd and increasing: max |tanh| over [lo, hi] is at the end
     * of larger magnitude; rounded up so that s(M) is not too small. */
    mpfr_t t;
    mpfr_init2(t, 53);
    mpfr_set_d(t, fmax(fabs(f->range_lo), fabs(f->range_hi)), MPFR_RNDU);
    mpfr_tanh(t, t, MPFR_RNDU);
    double M = mpfr_get_d(t, MPFR_RNDU);
    mpfr_clear(t);
    *abs = tp_hip_figure_abs(f, M);
    return 0;
}

int tp_gelu_hip_check_args(const char *op, const tp_hip_figure *f, const tp_tensor *x, float c, float a,
                           int fma_any, char *err, size_t errlen)
{
    const tp_format *fx = tp_format_of(x->dtype);
    const uint16_t *xs = x->data;
    for (int64_t i = 0; i < x->numel; i++) {
        float xv = (float)fx->decode(xs[i]), zlo, zhi;
        if (!isfinite(xv))
            continue; /* refused on its own as a non-finite input */
        tp_gelu_tanh_args(xv, c, a, fma_any, &zlo, &zhi);
        if (!tp_hip_figure_covers(f, zlo, zhi)) {
            snprintf(err, errlen,
                     "%s on HIP: x[%lld] = %.9g gives the tanhf argument z in [%.9g, %.9g], outside the test range "
                     "[%g, %g] of the documented HIP tanhf figure (model.tanhf_ulp.hip): no documented bound covers "
                     "it; expected every z inside that range",
                     op, (long long)i, xv, zlo, zhi, f->range_lo, f->range_hi);
            return -1;
        }
    }
    return 0;
}

int tp_gelu_hip_check_case(const char *op, const tp_value *model, const tp_case *c, float cc, float a, int fma_any,
                           char *err, size_t errlen)
{
    tp_hip_figure f;
    double abs;
    if (!c->backend || strcmp(c->backend, "hip") != 0 || tp_gelu_hip_figure(model, &f, &abs, err, errlen) != 0)
        return 0;
    const tp_tensor *x = tp_need_f16(c, op, "x", err, errlen);
    return x ? tp_gelu_hip_check_args(op, &f, x, cc, a, fma_any, err, errlen) : 0;
}

#define HIP_BOUND                                                                                                     \
    "admitted interval: every fp32 value the kernel can form (each operation rounded to nearest, %s), with tanhf(z) " \
    "any binary32 within %a of the exact tanh(z) = (figure %d + host %d) x s(M), s(M) = %a the binary32 spacing "    \
    "above M = max |tanh| on the test range [%g, %g] of the HIP figure (%s), which every tanhf argument of this case " \
    "lies in; then rounded to binary16"
#define HIP_SAMPLED                                                                                                   \
    "the HIP tanhf figure (%d, \"ULP Difference of Maximum Absolute Error\") is AMD's measurement on sampled "       \
    "arguments in [%g, %g] of the bit distance, at the argument of largest absolute difference, between HIP's tanhf "   \
    "and the C++ standard library of AMD's test machine: not a guaranteed bound, and not a max-ulp bound; it is read "  \
    "here only as an absolute bound (figure x s(M)), which holds as far as AMD's sampling found the largest difference"
#define HIP_HOST                                                                                                      \
    "the document does not name the host library AMD compared against: its own error, host_ulp = %d ulp of tanh, "     \
    "is taken from %s, an assumption about that library"
const tp_statement tp_gelu_fwd_hip[3] = {
    {"gelu_fwd.bound.hip_figure", TP_EVIDENCE, HIP_BOUND},
    {"gelu_fwd.nonclaim.hip_figure_sampled", TP_NON_CLAIM, HIP_SAMPLED},
    {"gelu_fwd.nonclaim.hip_host_library", TP_NON_CLAIM, HIP_HOST}};
const tp_statement tp_gelu_bwd_hip[3] = {
    {"gelu_bwd.bound.hip_figure", TP_EVIDENCE, HIP_BOUND},
    {"gelu_bwd.nonclaim.hip_figure_sampled", TP_NON_CLAIM, HIP_SAMPLED},
    {"gelu_bwd.nonclaim.hip_host_library", TP_NON_CLAIM, HIP_HOST}};

void tp_gelu_hip_say(const tp_statement st[3], const tp_value *model, const char *fma, tp_statements *out)
{
    tp_hip_figure f;
    double abs;
    char err[300];
    if (tp_gelu_hip_figure(model, &f, &abs, err, sizeof err) != 0)
        return;
    const tp_value *hip = tp_value_get(tp_value_get(model, "tanhf_ulp"), "hip");
    double s = abs / (f.figure + f.host_ulp > 0 ? f.figure + f.host_ulp : 1);
    tp_say(out, &st[0], fma, abs, f.figure, f.host_ulp, s, f.range_lo, f.range_hi,
           tp_value_string(tp_value_get(hip, "source")));
    tp_say(out, &st[1], f.figure, f.range_lo, f.range_hi);
    tp_say(out, &st[2], f.host_ulp, tp_value_string(tp_value_get(hip, "host_source")));
}
