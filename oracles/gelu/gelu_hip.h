/* The HIP tanhf figure for the GELU ops: reading [model.tanhf_ulp.hip],
 * the absolute bound it gives, and the refusal of cases whose tanhf
 * arguments leave the documented test range (oracles/common/
 * hip_math_figure.h says what the figure is and is not). */
#ifndef TP_GELU_HIP_H
#define TP_GELU_HIP_H

#include "core/tp_tensor.h"
#include "core/tp_value.h"
#include "oracles/common/hip_math_figure.h"

#include <stddef.h>

/* Reads model.tanhf_ulp.hip into *f and sets *abs to the absolute bound
 * (figure + host_ulp) s(M), M = tanh(max(|lo|, |hi|)) rounded up. 0, or -1
 * with a message. */
int tp_gelu_hip_figure(const tp_value *model, tp_hip_figure *f, double *abs, char *err, size_t errlen);

/* 0 when every x of the case gives tanhf arguments z = c (x + a x^3)
 * (fused or not when fma_any) inside the figure's range; otherwise -1 and
 * "x[i] = v: tanhf argument z in [zlo, zhi] leaves [lo, hi], ..." naming
 * the first offending element. op names the op for the message. */
int tp_gelu_hip_check_args(const char *op, const tp_hip_figure *f, const tp_tensor *x, float c, float a,
                           int fma_any, char *err, size_t errlen);

/* check_case of the GELU ops on HIP (the model read with a figure): 0,
 * or -1 and tp_gelu_hip_check_args's message for the case's x. */
int tp_gelu_hip_check_case(const char *op, const tp_value *model, const tp_case *c, float cc, float a, int fma_any,
                           char *err, size_t errlen);

/* The Evidence (the bound) and the two Non-claims (what the figure is,
 * the unnamed host library) of a case checked on the HIP figure, one set
 * per op (ids start with the op's name). */
#include "core/tp_statement.h"
extern const tp_statement tp_gelu_fwd_hip[3], tp_gelu_bwd_hip[3];
void tp_gelu_hip_say(const tp_statement st[3], const tp_value *model, const char *fma, tp_statements *out);

#endif
