/* The exact value of an elementwise program (oracles/generic/ew_prog.h)
 * over the reals: every operation exact, each device function the real
 * function, fmaf(x, y, z) = x*y + z, comparisons on reals; enclosed with
 * MPFI at EW_EXACT_PREC bits (erf, which MPFI lacks, through MPFR's
 * correctly rounded erf at the ends: erf is increasing). MPFR's correct
 * rounding is the trusted source of these enclosures. */
#ifndef TP_EW_EXACT_H
#define TP_EW_EXACT_H
#include "oracles/generic/ew_prog.h"
#include "oracles/generic/ew_tab.h"

#include <mpfi.h>
#include <stdint.h>

#define EW_EXACT_PREC 256

/* A remembered device function value: kind's f(key) for the double whose
 * bits are key (oracles/generic/ew_exact.c, memo_slot). */
#define EW_MEMO_BITS 12
#define EW_MEMO_SLOTS (1 << EW_MEMO_BITS)
typedef struct {
    uint64_t key;
    ew_kind kind;
    int full; /* v is initialised (and holds f(key) once written) */
    mpfi_t v;
} ew_memo_slot;

/* One thread's MPFI values for a program of at most EW_MAX_NODES nodes. */
typedef struct {
    int n;
    mpfi_t v[EW_MAX_NODES];
    mpfr_t t;
    /* box[k]: input k's enclosure, read instead of in[k] (a row's reduced
     * value in op rowwise); NULL (as ew_exact_init leaves them): in[k] */
    mpfi_srcptr box[EW_MAX_INPUTS];
    /* per node, a direct-mapped table of device function values at
     * point operands (NULL until the node first meets one) */
    ew_memo_slot *memo[EW_MAX_NODES];
} ew_exact_ws;

void ew_exact_init(ew_exact_ws *w, const ew_prog *p);
void ew_exact_clear(ew_exact_ws *w);

/* The enclosure of the exact result for inputs in[0 ..] (with tables t
 * and the inputs' patterns bits, or t NULL): 0, with *lo <=
 * exact <= *hi (doubles rounded outward) and *mid the midpoint rounded to
 * nearest; -1 where the real expression is undefined or unbounded there
 * (a division by an interval holding 0, a logarithm of a value <= 0, an
 * infinite end). */
int ew_exact(ew_exact_ws *w, const ew_prog *p, const float *in, const ew_tabs *t, const uint16_t *bits, double *lo,
             double *mid, double *hi);

/* Evaluates nodes 0 .. upto into w->v (those `only` marks; NULL: all),
 * tabulated subtrees looked up in t at bits[input] when t is not NULL.
 * 0, or -1 where the real expression is undefined or unbounded (node upto
 * with an infinite end; earlier nodes may have one, where a value
 * overflows MPFR's exponent range). */
int ew_exact_nodes(ew_exact_ws *w, const ew_prog *p, const float *in, int upto, const unsigned char *only,
                   const ew_tabs *t, const uint16_t *bits);

#endif
