/* tp_ref, in a header of its own (plain C, no other include): the GPU
 * element check (oracles/gemm/gemm_check_cuda.cuh) computes it too. */
#ifndef TP_REF_H
#define TP_REF_H

/* What the reference says about one output element. */
typedef struct {
    double exact;              /* the exact real value, rounded to double */
    double exact_lo, exact_hi; /* an enclosure of it (equal when exact) */
    /* Every output the numeric model admits lies in [allow_lo, allow_hi];
     * both are values of the output's dtype (binary16 or binary32, possibly
     * infinite) held as doubles. */
    double allow_lo, allow_hi;
} tp_ref;

#endif
