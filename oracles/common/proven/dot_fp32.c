/* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp,gappatp */
/* fp32 dot products in the two orders a kernel may use (fused or not).
 * The proof links each C operation to one rounding (\round_float), applies
 * the standard-model axiom to it, and carries the error bound
 *     |acc - dot(k)| <= C nmul(k, abs_dot(k)) + k eta
 * through each step as linear arithmetic: every nonlinear fact it needs is
 * an assertion proved from a lemma of oracles/common/proven/dot.acsl. The bound is
 * written out rather than wrapped in a predicate so that the provers see one
 * normal form of each term. */
#include <math.h>
#include "dot_fp32.h"

/* One binary32 addition is one rounding of the exact sum. Proved in its own
 * small context: inside the loop the dot-product logic drowns the provers. */
/*@ requires finite: \is_finite(x) && \is_finite(y);
  @ requires in_range: rabs(x + y) <= 0x1.fffffep127;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures rounded: \result == \round_float(\NearestEven, x + y);
  @*/
static inline float tp_add_rounded(float x, float y)
{
    return x + y;
}

float tp_dot_fp32_fma(int n, const float *a, const float *b)
{
    float acc = 0.0f;
    /*@ loop invariant range: 0 <= k <= n;
      @ loop invariant finite: \is_finite(acc);
      @ loop invariant err: n <= 65536 ==> rabs(acc - dot(a, b, k)) <= dot_c * nmul(k, abs_dot(a, b, k)) + k * dot_eta;
      @ loop invariant err_long: rabs(acc - dot(a, b, k)) <= dot_c_long * nmul(k, abs_dot(a, b, k)) + k * dot_eta;
      @ loop invariant mag: rabs(dot(a, b, k)) <= abs_dot(a, b, k);
      @ loop invariant cap: abs_dot(a, b, k) <= k * f16_prod_max;
      @ loop assigns k, acc;
      @ loop variant n - k;
      @*/
    for (int k = 0; k < n; k++) {
        /*@ assert count: k < 262144; */
        /*@ assert prod_cap: rabs((real)a[k] * b[k]) <= f16_prod_max; */
        /*@ assert scale: n <= 65536 ==> 0.0 <= nmul(k, abs_dot(a, b, k)) <= 65535.0 * abs_dot(a, b, k); */
        /*@ assert scale_long: 0.0 <= nmul(k, abs_dot(a, b, k)) <= 262143.0 * abs_dot(a, b, k); */
        /*@ assert sum_tri: rabs(acc + (real)a[k] * b[k])
          @   <= rabs(dot(a, b, k)) + rabs((real)a[k] * b[k]) + rabs(acc - dot(a, b, k)); */
        /*@ assert in_range: rabs(acc + (real)a[k] * b[k]) <= 0x1.fffffep127; */
        const float t = fmaf(a[k], b[k], acc);
        /*@ assert rounding: rabs(t - (acc + (real)a[k] * b[k]))
          @   <= 0x1p-24 * rabs(acc + (real)a[k] * b[k]) + 0x1p-150; */
        /*@ assert err_tri: rabs(t - (dot(a, b, k) + (real)a[k] * b[k]))
          @   <= rabs(t - (acc + (real)a[k] * b[k])) + rabs(acc - dot(a, b, k)); */
        /*@ assert scale_p: 0.0 <= nmul(k, rabs((real)a[k] * b[k])); */
        /*@ assert expand: nmul(k + 1, abs_dot(a, b, k) + rabs((real)a[k] * b[k]))
          @   == nmul(k, abs_dot(a, b, k)) + nmul(k, rabs((real)a[k] * b[k]))
          @      + abs_dot(a, b, k) + rabs((real)a[k] * b[k]); */
        /*@ assert step: n <= 65536 ==> rabs(t - (dot(a, b, k) + (real)a[k] * b[k]))
          @   <= dot_c * nmul(k + 1, abs_dot(a, b, k) + rabs((real)a[k] * b[k])) + (k + 1) * dot_eta; */
        /*@ assert step_long: rabs(t - (dot(a, b, k) + (real)a[k] * b[k]))
          @   <= dot_c_long * nmul(k + 1, abs_dot(a, b, k) + rabs((real)a[k] * b[k])) + (k + 1) * dot_eta; */
        acc = t;
    }
    return acc;
}

float tp_dot_fp32_mul_add(int n, const float *a, const float *b)
{
    float acc = 0.0f;
    /*@ loop invariant range: 0 <= k <= n;
      @ loop invariant finite: \is_finite(acc);
      @ loop invariant err: n <= 65536 ==> rabs(acc - dot(a, b, k)) <= dot_c * nmul(k, abs_dot(a, b, k)) + k * dot_eta;
      @ loop invariant err_long: rabs(acc - dot(a, b, k)) <= dot_c_long * nmul(k, abs_dot(a, b, k)) + k * dot_eta;
      @ loop invariant mag: rabs(dot(a, b, k)) <= abs_dot(a, b, k);
      @ loop invariant cap: abs_dot(a, b, k) <= k * f16_prod_max;
      @ loop assigns k, acc;
      @ loop variant n - k;
      @*/
    for (int k = 0; k < n; k++) {
        /*@ assert count: k < 262144; */
        /*@ assert in_f16: \is_finite(a[k]) && \is_finite(b[k]) &&
          @   rabs((real)a[k] * b[k]) <= f16_prod_max &&
          @   \round_float(\NearestEven, (real)a[k] * b[k]) == (real)a[k] * b[k]; */
        const float p = a[k] * b[k];
        /*@ assert p_rounded: p == \round_float(\NearestEven, (real)a[k] * b[k]); */
        /*@ assert exact_product: p == (real)a[k] * b[k]; */
        /*@ assert p_finite: \is_finite(p); */
        /*@ assert scale: n <= 65536 ==> 0.0 <= nmul(k, abs_dot(a, b, k)) <= 65535.0 * abs_dot(a, b, k); */
        /*@ assert scale_long: 0.0 <= nmul(k, abs_dot(a, b, k)) <= 262143.0 * abs_dot(a, b, k); */
        /*@ assert sum_tri: rabs(acc + p) <= rabs(dot(a, b, k)) + rabs(p) + rabs(acc - dot(a, b, k)); */
        /*@ assert in_range: rabs(acc + p) <= 0x1.fffffep127; */
        const float t = tp_add_rounded(acc, p);
        /*@ assert rounding: rabs(t - (acc + p)) <= 0x1p-24 * rabs(acc + p) + 0x1p-150; */
        /*@ assert err_tri: rabs(t - (dot(a, b, k) + p)) <= rabs(t - (acc + p)) + rabs(acc - dot(a, b, k)); */
        /*@ assert scale_p: 0.0 <= nmul(k, rabs(p)); */
        /*@ assert expand: nmul(k + 1, abs_dot(a, b, k) + rabs(p))
          @   == nmul(k, abs_dot(a, b, k)) + nmul(k, rabs(p)) + abs_dot(a, b, k) + rabs(p); */
        /*@ assert step: n <= 65536 ==> rabs(t - (dot(a, b, k) + p))
          @   <= dot_c * nmul(k + 1, abs_dot(a, b, k) + rabs(p)) + (k + 1) * dot_eta; */
        /*@ assert step_long: rabs(t - (dot(a, b, k) + p))
          @   <= dot_c_long * nmul(k + 1, abs_dot(a, b, k) + rabs(p)) + (k + 1) * dot_eta; */
        acc = t;
    }
    return acc;
}
