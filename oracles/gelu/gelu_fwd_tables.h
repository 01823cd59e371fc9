/* Per-input tables for GELU forward (tanh form), one entry per binary16
 * pattern of x:
 *
 *   exact_y[x]  encloses the exact real
 *                 y(x) = 0.5 x (1 + tanh(c (x + a x^3)))
 *               with c and a the kernel's fp32 constants taken as exact
 *               reals;
 *   model_y[x]  is the hull of every fp32 value the kernel's register y
 *               can hold under the declared numeric model (before the
 *               final rounding to binary16).
 *
 * The kernel's output for x is then RN16 of a value in model_y[x]; RN16 is
 * monotone, so it lies in [RN16(model_y.lo), RN16(model_y.hi)]. */
#ifndef TP_GELU_FWD_TABLES_H
#define TP_GELU_FWD_TABLES_H

#include <mpfr.h>

#include "oracles/gelu/proven/gelu_fwd.h" /* tp_interval */

#define TP_GELU_FWD_TABLE_SIZE 65536

typedef struct {
    float c, a;   /* the fp32 constants the kernel uses */
    int tanh_ulp; /* documented max ulp error of tanhf on the backend */
    int fma_any;  /* 1: x + a*x3 may or may not be fused */
    double tanh_abs; /* > 0: tanhf(z) is any binary32 within tanh_abs of
                      * tanh(z) instead (a HIP figure, hip_math_figure.h);
                      * tanh_ulp is then unused */
} tp_gelu_fwd_model;

/* The pilot's kernel: c = 0.7978845608f (sqrt(2/pi)), a = 0.044715f. */
tp_gelu_fwd_model tp_gelu_fwd_model_pilot(int tanh_ulp, int fma_any);

/* Fill exact_y[0..65535] and model_y[0..65535] (either may be NULL).
 *
 * exact_y: MPFI enclosure of y = x / (1 + e^{-2z}), z = c (x + a x^3) (the
 *   same real as 0.5 x (1 + tanh z), in a form where nothing cancels for
 *   either sign of x), at 80 bits with MPFR's widest exponent range, ends
 *   rounded outward to double. Below 2^-1022 in magnitude (x < -9 or so,
 *   where y ~ x e^{2z} is astronomically small) only the enclosure, not
 *   relative accuracy, survives the rounding to double.
 *
 * model_y: the kernel evaluates, each operation rounded to nearest even
 *   binary32 (no flush to zero),
 *     x2 = x*x; x3 = x2*x; s = x + a*x3 (fused or not when fma_any);
 *     z = c*s; t = tanhf(z); y = (0.5*x) * (1 + t)
 *   with tanhf(z) any binary32 value within tanh_ulp ulps of RN32(tanh z)
 *   (oracles/common/vendor_ulp.h: ulps of the correctly rounded value, or
 *   as many binary32 steps). x is a point, so the candidate values are
 *   enumerated exactly (2 fusion choices x every admitted tanh value) and model_y
 *   is their exact hull, each end a binary32 value. With tanh_abs > 0,
 *   tanhf(z) is any binary32 in tp_gelu_tanhf_abs_set(z): y is monotone in
 *   t (RN(1+t) nondecreasing, RN(hx*u) monotone in u), so the ends of that
 *   set give the hull.
 *
 * Non-finite x: NaN ends in both tables. Returns 0, or -1 on a bad model
 * (negative tanh_ulp, non-finite constant). */
int tp_gelu_fwd_tables_build(const tp_gelu_fwd_model *m, tp_interval *exact_y, tp_interval *model_y);

/* The binary32 arguments z = c*(x + a*x^3) the kernel can pass to tanhf
 * for one x (x + a*x3 fused or not when fma_any): their min and max. */
void tp_gelu_tanh_args(float x, float c, float a, int fma_any, float *zlo, float *zhi);

/* Every binary32 t with |t - tanh(z)| <= abs lies in [*lo, *hi] (MPFR
 * encloses tanh(z), abs is subtracted and added rounding outward, the
 * ends are rounded inward onto binary32 only where that keeps them
 * outside the real interval). */
void tp_gelu_tanhf_abs_set(float z, double abs, float *lo, float *hi);

/* RN32(tanh(z)) for a binary32 z, correctly rounded by MPFR. */
float tp_gelu_fwd_rn32_tanh(float z);

#endif
