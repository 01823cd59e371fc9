/* Per-input tables for GELU backward (tanh form), one entry per binary16
 * pattern of x:
 *
 *   exact_f[x]  encloses the exact real factor
 *                 f(x) = 0.5(1+t) + 0.5 x (1-t^2) c (1+3a x^2),
 *                 t = tanh(c (x + a x^3)),
 *               with c and a the kernel's fp32 constants taken as exact
 *               reals (3a is exact: the kernel's separate k3a literal is
 *               part of its error, not of the operation);
 *   model_f[x]  holds every fp32 value the kernel's register `f` can take
 *               under the declared numeric model.
 *
 * The output gi = g * f(x) then needs one product per end: the ends of
 * exact_f carry at most 42 significant bits and those of model_f are fp32
 * values, so g*lo and g*hi are exact in double for a binary16 g (barring
 * results below 2^-1022, where only the enclosure, not exactness, holds
 * when the product is rounded outward). */
#ifndef TP_GELU_TABLES_H
#define TP_GELU_TABLES_H

#include <mpfr.h>

#include "oracles/common/proven/tp_interval.h"

#define TP_GELU_TABLE_SIZE 65536

/* The widest exponent range MPFR allows, so that e^{-2z} for |z| ~ 1e13
 * stays a normal MPFR number; the range is per-thread state, so every
 * table builder restores it before returning. */
typedef struct {
    mpfr_exp_t emin, emax;
} tp_mpfr_exp_range;
tp_mpfr_exp_range tp_mpfr_exp_range_widen(void);
void tp_mpfr_exp_range_restore(tp_mpfr_exp_range old);

typedef struct {
    float c, a, k3a; /* the fp32 constants the kernel uses */
    int tanh_ulp;    /* documented max ulp error of tanhf on the backend */
    int fma_any;     /* 1: any mul-add may or may not be fused */
    double tanh_abs; /* > 0: tanhf(z) is any binary32 within tanh_abs of
                      * tanh(z) instead (a HIP figure); tanh_ulp unused */
} tp_gelu_model;

/* The kernel the pilots shipped: c = sqrt(2/pi), a = 0.044715, k3a = 3a
 * written as its own literal. tanh_ulp and fma_any come from the backend. */
tp_gelu_model tp_gelu_model_pilot(int tanh_ulp, int fma_any);

/* Fill exact_f[0..65535] and model_f[0..65535] (either may be NULL).
 *
 * exact_f: ends rounded outward to 42 significant bits; relative width
 *   at most about 2^-40 (below 2^-1022 the double grid sets the width).
 *   Evaluated with MPFI in a form free of cancellation in tanh:
 *   1+t = 2/(1+e^-2z), 1-t^2 = 4e^-2z/(1+e^-2z)^2, retried at higher
 *   precision when the enclosure is too wide (near the zero of f).
 *
 * model_f: every fp32 + - * rounds to nearest even; each fusable pattern
 *   (x + a*x3, 1 + k3a*x2, 1 - t*t, and the final sum with either
 *   product fused) may be fused or not when fma_any; tanhf(z) is any fp32
 *   value within tanh_ulp ulps of RN32(tanh(z)) (oracles/common/vendor_ulp.h); no flush to
 *   zero. Sets are propagated as fp32 intervals, so the result is a
 *   (slightly wide) hull. An x for which the model admits a NaN gets NaN
 *   ends: no interval of reals describes it.
 *
 * Non-finite x: NaN ends in both tables. Returns 0, or -1 on a bad model
 * (negative tanh_ulp, non-finite constant) or allocation failure. */
int tp_gelu_tables_build(const tp_gelu_model *m, tp_interval *exact_f,
                         tp_interval *model_f);

/* The exact-factor enclosure of one fp32 x at working precision prec,
 * without retries, ends rounded outward to double (not to 42 bits).
 * For tests and for cross-checks of single elements. Returns 0, or -1
 * when prec is out of MPFR's range. */
int tp_gelu_factor_mpfr(float x, const tp_gelu_model *m, mpfr_prec_t prec,
                        tp_interval *out);

#endif
