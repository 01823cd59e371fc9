/* fp32 dot products in the two orders a kernel may use (fused or not).
 * The proof links each C operation to one rounding (\round_float), applies
 * the standard-model axiom to it, and carries the error bound with the pure
 * lemma Err_Step of contracts/logic/dot.acsl. */
/* wp: model=typed tiers=T1,T3 */
#include <math.h>
#include "dot_fp32.h"

float tp_dot_fp32_fma(int n, const float *a, const float *b)
{
    float acc = 0.0f;
    /*@ loop invariant range: 0 <= k <= n;
      @ loop invariant err: err_ok(acc - dot(a, b, k), abs_dot(a, b, k), k);
      @ loop invariant mag: rabs(dot(a, b, k)) <= abs_dot(a, b, k);
      @ loop invariant cap: abs_dot(a, b, k) <= k * f16_prod_max;
      @ loop assigns k, acc;
      @ loop variant n - k;
      @*/
    for (int k = 0; k < n; k++) {
        /*@ assert count: k < 65536; */
        /*@ assert prod_cap: rabs((real)a[k] * b[k]) <= f16_prod_max; */
        /*@ assert in_range: rabs(acc + (real)a[k] * b[k]) <= 0x1.fffffep127; */
        const float t = fmaf(a[k], b[k], acc);
        /*@ assert rounding: rabs(t - (acc + (real)a[k] * b[k]))
          @   <= 0x1p-24 * rabs(acc + (real)a[k] * b[k]) + 0x1p-150; */
        /*@ assert step: err_ok(t - (dot(a, b, k) + (real)a[k] * b[k]),
          @                     abs_dot(a, b, k) + rabs((real)a[k] * b[k]), k + 1); */
        acc = t;
    }
    return acc;
}

float tp_dot_fp32_mul_add(int n, const float *a, const float *b)
{
    float acc = 0.0f;
    /*@ loop invariant range: 0 <= k <= n;
      @ loop invariant finite: \is_finite(acc);
      @ loop invariant err: err_ok(acc - dot(a, b, k), abs_dot(a, b, k), k);
      @ loop invariant mag: rabs(dot(a, b, k)) <= abs_dot(a, b, k);
      @ loop invariant cap: abs_dot(a, b, k) <= k * f16_prod_max;
      @ loop assigns k, acc;
      @ loop variant n - k;
      @*/
    for (int k = 0; k < n; k++) {
        /*@ assert count: k < 65536; */
        /*@ assert in_f16: \is_finite(a[k]) && \is_finite(b[k]) &&
          @   rabs((real)a[k] * b[k]) <= f16_prod_max &&
          @   \round_float(\NearestEven, (real)a[k] * b[k]) == (real)a[k] * b[k]; */
        const float p = a[k] * b[k];
        /*@ assert p_rounded: p == \round_float(\NearestEven, (real)a[k] * b[k]); */
        /*@ assert exact_product: p == (real)a[k] * b[k]; */
        /*@ assert prod_cap: rabs(p) <= f16_prod_max; */
        /*@ assert p_finite: \is_finite(p); */
        /*@ assert in_range: rabs(acc + p) <= 0x1.fffffep127; */
        const float t = acc + p;
        /*@ assert t_rounded: t == \round_float(\NearestEven, acc + p); */
        /*@ assert rounding: rabs(t - (acc + p)) <= 0x1p-24 * rabs(acc + p) + 0x1p-150; */
        /*@ assert step: err_ok(t - (dot(a, b, k) + p), abs_dot(a, b, k) + rabs(p), k + 1); */
        acc = t;
    }
    return acc;
}
