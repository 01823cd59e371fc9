/* One element of the element check of a binary16 GEMM output, from its
 * exact sums: the step that the GPU check (oracles/gemm/gemm_check_cuda.cuh),
 * op gemm's cross-check of it (oracles/gemm/op_gemm.c) and the tests'
 * stand-in provider (tests/lib_emulated_provider.c) all run, so that the
 * three share one source. Round to nearest. */
#ifndef TP_GEMM_CHECK_ONE_H
#define TP_GEMM_CHECK_ONE_H
#include "core/tp_hd.h"
#include "harness/tp_check_elem.h"
#include "oracles/gemm/gemm_admitted.h"

#include <stdint.h>

/* Element i, binary16 pattern y, against the reference of the exact sums
 * S = hi + lo and A = ahi + alo (any exact pairs: normalized here, as the
 * host normalizes every pair the bound code sees) with `terms` terms,
 * into t by harness/tp_check_elem.h's rule. */
static inline TP_HD void tp_gemm_check_one(int64_t i, double hi, double lo, double ahi, double alo, uint16_t y,
                                           double terms, double atol, double rtol, tp_check_tally *t)
{
    double s, e, as, ae, blo, bhi;
    tp_two_sum(hi, lo, &s, &e);
    tp_two_sum(ahi, alo, &as, &ae);
    tp_ref r;
    tp_gemm_bound(s, e, as, ae, terms, &r, &blo, &bhi);
    tp_gemm_admit_f16(blo, bhi, &r);
    tp_check_element(5, 10, i, y, NULL, &r, atol, rtol, t);
}

#endif
