/* The numeric model shared by the three LayerNorm ops (op_layernorm_*.c):
 * the fp32 values an any-order fp32 sum can take, and the forward
 * statistics of one row (mean, rstd) both as the kernel may compute them
 * and exactly (MPFI enclosures).
 *
 * Every function here runs its float arithmetic in round-to-nearest (the
 * kernel's mode) and its bounds in directed rounding or MPFR/MPFI; each
 * restores the caller's rounding mode. The library is built with
 * -frounding-math so that gcc honours fesetround. */
#ifndef TP_LAYERNORM_MODEL_H
#define TP_LAYERNORM_MODEL_H

#include <mpfi.h>

/* An interval of binary32 values (lo <= hi; ends may be infinite). */
typedef struct {
    float lo, hi;
} tp_ln_fint;

/* The smallest float >= v and the largest float <= v. */
float tp_ln_f32_up(double v);
float tp_ln_f32_down(double v);

/* float(RN32(1/sqrt(w))), correctly rounded (MPFR), for finite w > 0. */
float tp_ln_rsqrt_rn(float w);

/* The floats an fp32 sum of n terms can produce, in any order: the exact
 * sum of the terms lies in [slo, shi] and absum >= sum |term|. With
 * rounded_terms, each term is itself a rounded product (or the product is
 * fused into the running sum). The bound is
 *     n*C(n)*absum + k*n*TP_DOT_ETA,  k = 1 (exact terms) or 2,
 * the gamma_n bound of oracles/gemm/proven/gemm.h extended by one rounding per term:
 * every term passes through at most n roundings (its product and at most
 * n-1 additions, whatever the tree), each with relative error <= 2^-24 and
 * absolute error <= 2^-150; C(n) = tp_sum_c(n) (oracles/common/sum_bound.h:
 * TP_DOT_C up to 65536 terms, a constant derived for up to 2^21 beyond).
 * Requires n <= TP_SUM_N_MAX. */
tp_ln_fint tp_ln_sum_model(double slo, double shi, double absum, int n, int rounded_terms);

/* The same for a sum of n exact terms (rounded_terms = 0) whose exact value
 * S is known: the interval of the proven any-order sum bound
 * (oracles/common/proven/tp_sum_bound.c, T3, as GEMM's) from S as an exact
 * double pair and absum >= sum |t|, for n <= 65536 in round-to-nearest; else
 * tp_ln_sum_model. */
tp_ln_fint tp_ln_sum_model_exact(const mpfr_t S, double absum, int n);

/* { RN32(v / nf) : v in a } for nf > 0, in round-to-nearest: through the
 * proven interval quotient (oracles/common/proven/tp_ival_div.c) where its
 * requires hold. */
tp_ln_fint tp_ln_div_n(tp_ln_fint a, float nf);
/* The same bound as reals: [lo, hi] = [slo - e, shi + e] rounded outward
 * to double, before tp_ln_sum_model takes the floats inside it (for ops
 * whose output is that sum: the test-only tp_bound_shrink acts here). */
void tp_ln_sum_reals(double slo, double shi, double absum, int n, int rounded_terms, double *lo, double *hi);

/* The LayerNorm forward statistics of one row of n binary16 values (as
 * floats), with eps the kernel's fp32 literal:
 *   model: every fp32 mean and rstd the kernel (kernels/layernorm_fwd.hip)
 *          can produce: mean = RN32(s / n) with s an any-order fp32 sum;
 *          var = RN32(q / n) with q an any-order fp32 sum of RN32(x - mean)^2
 *          (products rounded or fused); rstd within rsqrt_ulp ulps of
 *          RN32(1/sqrt(RN32(var + eps))) (oracles/common/vendor_ulp.h);
 *   exact: mu = sum x / n and rho = 1/sqrt(sum (x - mu)^2 / n + eps) as
 *          MPFI enclosures (initialised by the caller).
 * Either output pointer may be NULL. Returns 0, or -1 for n outside
 * 1..TP_LN_COLS_MAX (oracles/layernorm/layernorm_exact.h). */
int tp_ln_row_stats(int n, const float *x, float eps, int rsqrt_ulp, tp_ln_fint *mean, tp_ln_fint *rstd, mpfi_t mu,
                    mpfi_t rho);

/* An fp32 literal as a kernel spells it ("1e-5f"): 0, or -1. */
int tp_ln_parse_f32(const char *s, float *out);

/* MPFI precision of the exact references: wide enough that an enclosure's
 * width is far below anything the checker compares. */
#define TP_LN_PREC 256

/* exact_lo/exact_hi/exact of a tp_ref from an MPFI enclosure. */
void tp_ln_enclosure(const mpfi_t v, double *lo, double *mid, double *hi);

#endif
