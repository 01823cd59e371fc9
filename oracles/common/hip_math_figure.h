/* A documented HIP device-math figure, read from a contract's per-backend
 * table (e.g. [model.tanhf_ulp.hip]) and turned into a sound absolute
 * error bound on the device function over the documented test range.
 *
 * What the figure is (ROCm HIP docs, reference/math_api.rst, column "ULP
 * Difference of Maximum Absolute Error"): AMD samples the test range,
 * finds the x* where |hip(x) - std(x)| is largest (std: the C++ standard
 * library of AMD's test machine) and reports the bit-pattern distance k
 * between hip(x*) and std(x*). That is not a max-ulp bound over the
 * range. What it supports (given AMD's sampling): for x in the range,
 *   |hip(x) - std(x)| <= E = |hip(x*) - std(x*)| <= k s(M),
 * M = max |f| over the range, s(M) the binary32 spacing just above M (the
 * widest gap that k consecutive steps can span there). The host library's
 * own error, host_ulp ulps of f(x) (each ulp at most s(M)), adds to that:
 *   |hip(x) - f(x)| <= (k + host_ulp) s(M).
 * Outside the range the figure says nothing: callers refuse those cases. */
#ifndef TP_HIP_MATH_FIGURE_H
#define TP_HIP_MATH_FIGURE_H

#include "core/tp_value.h"

#include <stddef.h>

typedef struct {
    int figure;              /* k: the table's ulp difference */
    double range_lo, range_hi; /* the documented test range (closed) */
    int host_ulp;            /* the host library's max ulp error (cited) */
} tp_hip_figure;

/* Reads the hip entry `entry` (a table) named `name` (e.g.
 * "model.tanhf_ulp.hip" for messages): figure (integer 0 .. 64), metric
 * (exactly "ulp_difference_of_max_absolute_error"), range (two finite
 * numbers lo < hi), source (a string naming document, version, URL),
 * host_ulp (integer 0 .. 64), host_source (a string). 0, or -1 with one
 * line in err: "NAME.KEY is WHAT; expected WHAT". */
int tp_hip_figure_read(const tp_value *entry, const char *name, tp_hip_figure *f, char *err, size_t errlen);

/* 1 when entry is a table (the hip figure form), 0 otherwise (an integer
 * ulp bound, as for cuda, or absent). */
int tp_hip_figure_present(const tp_value *entry);

/* s(M): the binary32 spacing just above M >= 0 (2^(e-23) for 2^e <= M <
 * 2^(e+1); the subnormal spacing 2^-149 below 2^-126). */
double tp_binary32_spacing_above(double M);

/* (figure + host_ulp) * s(M): the absolute error bound, exact in double.
 * M must be an upper bound of |f| over the range. */
double tp_hip_figure_abs(const tp_hip_figure *f, double M);

/* 1 when [lo, hi] lies inside the documented range. */
int tp_hip_figure_covers(const tp_hip_figure *f, double lo, double hi);

#endif
