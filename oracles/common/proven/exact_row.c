/* tp_exact_row_madd (exact_row.h): each double operation one of
 * exact_sum.h's, exact for binary16 factors and an accumulator within
 * exact_acc_ok. Every column untouched so far keeps its pair unchanged
 * (invariant `todo`): an equality of reals does not carry \is_finite, so
 * exact_acc_ok is carried explicitly. */
/* wp: model=typed tiers=T1,T2 alone=cvc4nofp:tp_exact_row_madd timeout=10 */
/* timeout=10: the slowest goal, kept_lo (CVC4 6 to 8 s alone), proves in
 * the first pass. */
#include "exact_row.h"
#include "exact_sum.h"

/* -O2 in gcc 12 vectorises only loops that need no scalar epilogue; this
 * one (any n) needs one, so it asks for the dynamic cost model. The avx2
 * clone does 4 doubles per instruction. This loop is the whole of the CPU
 * exact GEMM's time. Frama-C sees plain C. */
#ifdef __FRAMAC__
#define TP_FAST
#define TP_RESTRICT
#else
#define TP_FAST __attribute__((target_clones("avx2", "default"), optimize("tree-vectorize", "vect-cost-model=dynamic")))
#define TP_RESTRICT restrict
#endif

/* The exact product, its value stated as mul_real(x, y): with x * y among
 * the loop's hypotheses, the provers did not prove the invariant `done`
 * (CVC4 timed out at 120 s). */
/*@ requires f16: f16_float(x) && f16_float(y);
  @ assigns \nothing;
  @ ensures exact: \result == mul_real(x, y);
  @ ensures fmt: \is_finite(\result) && on_grid_48(\result);
  @ ensures range: -0x1p32 <= \result <= 0x1p32;
  @*/
static inline double tp_exact_product(float x, float y)
{
    return tp_exact_mul16(x, y);
}

/* A lemma function (no code): the `separated` requires entry by entry,
 * proved in a context of its own. From the range form, the frame goals of
 * the loop (the columns other than j keep their pairs) took CVC4 10 to
 * 30 s each. */
/*@ requires 0 <= n && \separated(hi + (0 .. n - 1), lo + (0 .. n - 1));
  @ assigns \nothing;
  @ ensures apart: \forall integer a, b; 0 <= a < n && 0 <= b < n ==> \separated(hi + a, lo + b);
  @*/
static inline void entries_apart(const double *hi, const double *lo, int n)
{
    (void)hi, (void)lo, (void)n;
}

TP_FAST void tp_exact_row_madd(int n, int k, float x, const float *TP_RESTRICT y, double *TP_RESTRICT hi,
                              double *TP_RESTRICT lo)
{
    (void)k; /* a term count for the contract only */
    int j = 0;
    entries_apart(hi, lo, n);
    /*@ loop invariant range: 0 <= j <= n;
      @ loop invariant done_acc: \forall integer jj; 0 <= jj < j ==> exact_acc_ok(hi[jj], lo[jj], k + 1);
      @ loop invariant done: \forall integer jj; 0 <= jj < j ==>
      @   madd_exact(hi[jj], lo[jj], \at(hi[jj], Pre), \at(lo[jj], Pre), x, y[jj]);
      @ loop invariant todo: \forall integer jj; j <= jj < n ==>
      @   exact_acc_ok(hi[jj], lo[jj], k) && hi[jj] == \at(hi[jj], Pre) && lo[jj] == \at(lo[jj], Pre);
      @ loop assigns j, hi[0 .. n - 1], lo[0 .. n - 1];
      @ loop variant n - j;
      @*/
    for (; j < n; j++) {
        /*@ assert before: exact_acc_ok(hi[j], lo[j], k); */
        /*@ assert same: \let i = j; hi[i] == \at(hi[i], Pre) && lo[i] == \at(lo[i], Pre); */
        const double h0 = hi[j], l0 = lo[j];
        const double p = tp_exact_product(x, y[j]);
        const double t = tp_exact_split(p);
        const double d = tp_exact_rest(p, t);
        const double h1 = tp_exact_add_hi(h0, t), l1 = tp_exact_add_lo(l0, d);
        /*@ assert sum: h1 + l1 == h0 + l0 + mul_real(x, y[j]); */
        /*@ assert fmt: exact_acc_ok(h1, l1, k + 1); */
        hi[j] = h1;
        lo[j] = l1;
        /* The other columns keep their pairs: one fact per array, before the
         * invariants need them (as part of those goals, 7 to 30 s each). */
        /*@ assert kept_hi: \forall integer jj; 0 <= jj < n && jj != j ==> hi[jj] == \at(hi[jj], LoopCurrent); */
        /*@ assert kept_lo: \forall integer jj; 0 <= jj < n && jj != j ==> lo[jj] == \at(lo[jj], LoopCurrent); */
        /*@ assert updated: exact_acc_ok(hi[j], lo[j], k + 1) && hi[j] + lo[j] == h0 + l0 + mul_real(x, y[j]); */
        /*@ assert from_pre: \let i = j; hi[i] + lo[i] == \at(hi[i], Pre) + \at(lo[i], Pre) + mul_real(x, y[i]); */
        /*@ assert gained: \let i = j; madd_exact(hi[i], lo[i], \at(hi[i], Pre), \at(lo[i], Pre), x, y[i]); */
    }
    /*@ assert all: j == n; */
}
