/* A rigorous enclosure of exp(x) in double, fast enough for every score of
 * an attention head (2^24 of them at 4096 x 4096): MPFR's correctly
 * rounded exp costs about 1 us an end, this about 30 ns. Written by hand
 * because no Debian library gives directed-rounding exp: range reduction
 * x = k ln2 + r with ln2 enclosed by MPFR, exp(r) by its Taylor polynomial
 * of degree 13 with every operation rounded outward (FE_UPWARD and the
 * negation identity down(a) = -up(-a)) and the remainder bounded, then the
 * exact scaling by 2^k. Not proven: tests/test_exp_enclose.c checks it
 * against MPFR at 200 bits (containment and width). Trusted as the rest of
 * the unproven reference code is (proofs/TRUSTED.md). */
#ifndef TP_EXP_ENCLOSE_H
#define TP_EXP_ENCLOSE_H

#define TP_EXP_TAYLOR_DEG 13

/* The enclosed Taylor coefficients 1/i! (i <= 13), made in FE_UPWARD by
 * tp_exp_ctx_init: one per thread and row, not shared. */
typedef struct {
    double lo[TP_EXP_TAYLOR_DEG + 1], hi[TP_EXP_TAYLOR_DEG + 1];
} tp_exp_ctx;

void tp_exp_ctx_init(tp_exp_ctx *c);

/* Both must be called in FE_UPWARD (the caller switches once for a whole
 * row: fesetround costs more than the evaluation). For x in [xlo, xhi]
 * with xhi <= 709: *lo <= exp(x) <= *hi for every real x there, each end
 * within 2^-48 relative of exp at its end of the argument interval;
 * below x = -708 the enclosure is [0, 2^-1020]. */
void tp_exp_enclose_up(const tp_exp_ctx *c, double xlo, double xhi, double *lo, double *hi);

#endif
