/* Exact GEMM for fp16 inputs by split-double accumulation.
 *
 * Why every double operation is exact (K <= TP_GEMM_K_MAX_EXACT = 2^13):
 *  - a, b are binary16 values: multiples of 2^-24 with |a|, |b| <= 65504, so
 *    p = a*b is a multiple of 2^-48 with |p| <= 65504^2 < 2^32 and 22
 *    significant bits: exact in double.
 *  - p + TP_SPLIT lies in [2^44, 2^45) where the double ulp is 2^-8: the sum
 *    is p rounded to a multiple of 2^-8 plus TP_SPLIT, and subtracting
 *    TP_SPLIT back is exact (Sterbenz), so t = round_{2^-8}(p), |t| <= 2^32.
 *  - p - t is a multiple of 2^-48 with |p - t| <= 2^-9: 40 bits, exact.
 *  - hi is a sum of multiples of 2^-8 with |hi| <= K*2^32 <= 2^45: an integer
 *    times 2^-8 below 2^53, exact at every step, whatever the order.
 *  - lo is a sum of multiples of 2^-48 with |lo| <= K*2^-9 <= 2^4: an integer
 *    times 2^-48 below 2^52, exact.
 * gcc must not contract these operations into FMAs (-ffp-contract=off) and
 * must not reassociate them (no -ffast-math).
 *
 * Loop order i, k, j: the inner loop runs over a contiguous row of B and of
 * the accumulators, so it vectorises; each row is done by tp_gemm_row. */
/* wp: model=typed+real tiers=T1,T2 */
#include "gemm.h"

/* -O2 in gcc 12 vectorises only loops that need no scalar epilogue; the
 * row loops (any N) need one, so they ask for the dynamic cost model. The
 * avx2 clone does 4 doubles per instruction. Frama-C sees plain C. */
#ifdef __FRAMAC__
#define TP_VEC
#define TP_CLONES
#define TP_RESTRICT
#else
#define TP_VEC __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#define TP_CLONES __attribute__((target_clones("avx2", "default"))) TP_VEC
#define TP_RESTRICT restrict
#endif

/* One output row: hi[j] + lo[j] = sum_k a[k] * b[k*N + j] for all j. */
/*@ requires sizes: 0 <= N && 0 <= K;
  @ requires valid_a: \valid_read(a + (0 .. K - 1));
  @ requires valid_b: \valid_read(b + (0 .. K*N - 1));
  @ requires valid_hi: \valid(hi + (0 .. N - 1));
  @ requires valid_lo: \valid(lo + (0 .. N - 1));
  @ requires separated: \separated(hi + (0 .. N - 1), lo + (0 .. N - 1));
  @ assigns hi[0 .. N - 1], lo[0 .. N - 1];
  @ ensures result: \forall integer j; 0 <= j < N ==>
  @   hi[j] + lo[j] == row_col_dot(a, b, N, j, K);
  @*/
TP_VEC static inline void tp_gemm_row(int N, int K, const float *TP_RESTRICT a, const float *TP_RESTRICT b,
                               double *TP_RESTRICT hi, double *TP_RESTRICT lo)
{
    /*@ loop invariant range: 0 <= j <= N;
      @ loop invariant zero: \forall integer jj; 0 <= jj < j ==>
      @   hi[jj] + lo[jj] == row_col_dot(a, b, N, jj, 0);
      @ loop assigns j, hi[0 .. N - 1], lo[0 .. N - 1];
      @ loop variant N - j;
      @*/
    for (int j = 0; j < N; j++) {
        hi[j] = 0.0;
        lo[j] = 0.0;
    }
    const float *bk = b;
    /*@ loop invariant range: 0 <= k <= K;
      @ loop invariant row_k: bk == b + k*N;
      @ loop invariant partial: \forall integer jj; 0 <= jj < N ==>
      @   hi[jj] + lo[jj] == row_col_dot(a, b, N, jj, k);
      @ loop assigns k, bk, hi[0 .. N - 1], lo[0 .. N - 1];
      @ loop variant K - k;
      @*/
    for (int k = 0; k < K; k++) {
        const double ak = a[k];
        /*@ assert row_end: flat(N, k, N) <= flat(N, K, 0); */
        /*@ assert row_valid: \valid_read(bk + (0 .. N - 1)); */
        /*@ loop invariant range: 0 <= j <= N;
          @ loop invariant done: \forall integer jj; 0 <= jj < j ==>
          @   hi[jj] + lo[jj] == row_col_dot(a, b, N, jj, k + 1);
          @ loop invariant todo: \forall integer jj; j <= jj < N ==>
          @   hi[jj] + lo[jj] == row_col_dot(a, b, N, jj, k);
          @ loop assigns j, hi[0 .. N - 1], lo[0 .. N - 1];
          @ loop variant N - j;
          @*/
        for (int j = 0; j < N; j++) {
            /*@ assert next: row_col_dot(a, b, N, j, k + 1) == row_col_dot(a, b, N, j, k) + a[k] * bk[j]; */
            const double p = ak * (double)bk[j];
            const double t = (p + TP_SPLIT) - TP_SPLIT;
            hi[j] += t;
            lo[j] += p - t;
        }
        bk += N;
    }
}

TP_CLONES
void tp_gemm_exact(int M, int N, int K, const float *A, const float *B, double *hi, double *lo)
{
    const float *a = A;
    double *h = hi, *l = lo;
    /*@ loop invariant range: 0 <= i <= M;
      @ loop invariant row_a: a == A + i*K;
      @ loop invariant row_h: h == hi + i*N;
      @ loop invariant row_l: l == lo + i*N;
      @ loop invariant done: \forall integer r, j; 0 <= r < i && 0 <= j < N ==>
      @   hi[flat(N, r, j)] + lo[flat(N, r, j)] == gemm_entry(A, B, N, K, r, j);
      @ loop assigns i, a, h, l, hi[0 .. M*N - 1], lo[0 .. M*N - 1];
      @ loop variant M - i;
      @*/
    for (int i = 0; i < M; i++) {
        /*@ assert rows_before: \forall integer r, j; 0 <= r < i && 0 <= j < N ==> flat(N, r, j) + 1 <= flat(N, i, 0); */
        /*@ assert row_end: flat(N, i, N) <= flat(N, M, 0); */
        /*@ assert rows_in: \forall integer r, j; 0 <= r < i && 0 <= j < N ==> 0 <= flat(N, r, j) < M*N; */
        tp_gemm_row(N, K, a, B, h, l);
        /*@ assert old_hi: \forall integer r, j; 0 <= r < i && 0 <= j < N ==>
          @   hi[flat(N, r, j)] == \at(hi[flat(N, r, j)], LoopCurrent); */
        /*@ assert old_lo: \forall integer r, j; 0 <= r < i && 0 <= j < N ==>
          @   lo[flat(N, r, j)] == \at(lo[flat(N, r, j)], LoopCurrent); */
        /*@ assert new_row: \forall integer j; 0 <= j < N ==>
          @   hi[flat(N, i, j)] + lo[flat(N, i, j)] == gemm_entry(A, B, N, K, i, j); */
        /*@ assert old_rows: \forall integer r, j; 0 <= r < i && 0 <= j < N ==>
          @   hi[flat(N, r, j)] + lo[flat(N, r, j)] == gemm_entry(A, B, N, K, r, j); */
        a += K;
        h += N;
        l += N;
    }
}

/* One row of sum_k |a[k] * b[k*N + j]|. */
/*@ requires sizes: 0 <= N && 0 <= K;
  @ requires valid_a: \valid_read(a + (0 .. K - 1));
  @ requires valid_b: \valid_read(b + (0 .. K*N - 1));
  @ requires valid_s: \valid(s + (0 .. N - 1));
  @ assigns s[0 .. N - 1];
  @ ensures result: \forall integer j; 0 <= j < N ==> s[j] == row_col_abs_dot(a, b, N, j, K);
  @*/
TP_VEC static inline void tp_gemm_abs_row(int N, int K, const float *TP_RESTRICT a, const float *TP_RESTRICT b,
                                   double *TP_RESTRICT s)
{
    /*@ loop invariant range: 0 <= j <= N;
      @ loop invariant zero: \forall integer jj; 0 <= jj < j ==> s[jj] == row_col_abs_dot(a, b, N, jj, 0);
      @ loop assigns j, s[0 .. N - 1];
      @ loop variant N - j;
      @*/
    for (int j = 0; j < N; j++)
        s[j] = 0.0;
    const float *bk = b;
    /*@ loop invariant range: 0 <= k <= K;
      @ loop invariant row_k: bk == b + k*N;
      @ loop invariant partial: \forall integer jj; 0 <= jj < N ==>
      @   s[jj] == row_col_abs_dot(a, b, N, jj, k);
      @ loop assigns k, bk, s[0 .. N - 1];
      @ loop variant K - k;
      @*/
    for (int k = 0; k < K; k++) {
        const double ak = a[k];
        /*@ assert row_end: flat(N, k, N) <= flat(N, K, 0); */
        /*@ assert row_valid: \valid_read(bk + (0 .. N - 1)); */
        /*@ loop invariant range: 0 <= j <= N;
          @ loop invariant done: \forall integer jj; 0 <= jj < j ==>
          @   s[jj] == row_col_abs_dot(a, b, N, jj, k + 1);
          @ loop invariant todo: \forall integer jj; j <= jj < N ==>
          @   s[jj] == row_col_abs_dot(a, b, N, jj, k);
          @ loop assigns j, s[0 .. N - 1];
          @ loop variant N - j;
          @*/
        for (int j = 0; j < N; j++) {
            /*@ assert next: row_col_abs_dot(a, b, N, j, k + 1)
              @   == row_col_abs_dot(a, b, N, j, k) + rabs(a[k] * bk[j]); */
            const double p = ak * (double)bk[j];
            s[j] += p < 0.0 ? -p : p;
        }
        bk += N;
    }
}

TP_CLONES
void tp_gemm_abs(int M, int N, int K, const float *A, const float *B, double *absum)
{
    const float *a = A;
    double *s = absum;
    /*@ loop invariant range: 0 <= i <= M;
      @ loop invariant row_a: a == A + i*K;
      @ loop invariant row_s: s == absum + i*N;
      @ loop invariant done: \forall integer r, j; 0 <= r < i && 0 <= j < N ==>
      @   absum[flat(N, r, j)] == gemm_abs_entry(A, B, N, K, r, j);
      @ loop assigns i, a, s, absum[0 .. M*N - 1];
      @ loop variant M - i;
      @*/
    for (int i = 0; i < M; i++) {
        /*@ assert rows_before: \forall integer r, j; 0 <= r < i && 0 <= j < N ==> flat(N, r, j) + 1 <= flat(N, i, 0); */
        tp_gemm_abs_row(N, K, a, B, s);
        /*@ assert old_s: \forall integer r, j; 0 <= r < i && 0 <= j < N ==>
          @   absum[flat(N, r, j)] == \at(absum[flat(N, r, j)], LoopCurrent); */
        /*@ assert new_row: \forall integer j; 0 <= j < N ==>
          @   absum[flat(N, i, j)] == gemm_abs_entry(A, B, N, K, i, j); */
        /*@ assert old_rows: \forall integer r, j; 0 <= r < i && 0 <= j < N ==>
          @   absum[flat(N, r, j)] == gemm_abs_entry(A, B, N, K, r, j); */
        a += K;
        s += N;
    }
}
