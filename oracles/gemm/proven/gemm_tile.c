/* The one-pass exact GEMM tile (contract in gemm_tile.h), proven in WP's
 * IEEE float model: each double operation is one of exact_sum.h's, or a
 * product by c = +-1 (tile_sign_hi, tile_sign_lo), exact for binary16
 * factors and accumulators within exact_acc_ok. Three levels, each a loop
 * the compiler vectorises as it is written here (measured: gcc 12 keeps the
 * 32 accumulators in eight AVX2 registers; other shapes of the same
 * arithmetic, an explicit call per column or doubles selected by a
 * conditional, ran 2 to 4 times slower):
 *  - tile_mac: one column's four accumulators after one more product, a
 *    value (its proof holds no memory);
 *  - tile_quad: four columns (one vector register each of hi, lo, ahi, alo);
 *  - tp_gemm_exact_tile: K terms, two quads. */
/* wp: model=typed tiers=T1,T2 */
#include "gemm_tile.h"
#include "../../common/proven/exact_sum.h"
#include "../../common/proven/tp_libm.h" /* copysign's contract */

/* As exact_row.c: the avx2 clone runs 4 doubles per instruction, and -O2
 * in gcc 12 vectorises these loops only with the dynamic cost model. */
#ifdef __FRAMAC__
#define TP_FAST
#else
#define TP_FAST __attribute__((target_clones("avx2", "default"), optimize("tree-vectorize", "vect-cost-model=dynamic")))
#endif

/* The exact product of two binary16 values held in doubles, named
 * mul_real(x, y) (exact_sum_consts.h says why). */
/*@ requires fmt: \is_finite(x) && f16_fmt(x) && \is_finite(y) && f16_fmt(y);
  @ assigns \nothing;
  @ ensures exact: \result == mul_real(x, y);
  @ ensures fmt: \is_finite(\result) && on_grid_48(\result);
  @ ensures range: -0x1p32 <= \result <= 0x1p32;
  @*/
static inline double tile_product(double x, double y)
{
    return tp_exact_mul(x, y);
}

/* c t for c = +-1 and t a part of a split's high sum: a multiple of 2^-8
 * below 2^32 in magnitude. Gappa proves the product exact (assertions
 * `lower`, `upper`) from c read as a multiple of 2^-8 within [-1, 1]: c t
 * is then a multiple of 2^-16 below 2^32, 48 bits; the ensures follow
 * for each sign. */
/*@ requires c_unit: (c == 1.0 || c == -1.0) && on_grid_8(c);
  @ requires fmt: \is_finite(c) && \is_finite(t) && on_grid_8(t);
  @ requires range: -0x1p32 <= t <= 0x1p32;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures plus: c == 1.0 ==> \result == t;
  @ ensures minus: c == -1.0 ==> \result == -t;
  @*/
static inline double tile_sign_hi(double c, double t)
{
    /*@ assert c_range: -1.0 <= c <= 1.0; */
    const double r = c * t;
    /*@ assert lower: r >= c * t; */
    /*@ assert upper: r <= c * t; */
    /*@ assert r_finite: \is_finite(r); */
    return r;
}

/* c d for c = +-1 and d a split's low part: a multiple of 2^-48 below
 * 2^-8, so c d is a multiple of 2^-56 below 2^-8, 48 bits: exact the same
 * way. */
/*@ requires c_unit: (c == 1.0 || c == -1.0) && on_grid_8(c);
  @ requires fmt: \is_finite(c) && \is_finite(d) && on_grid_48(d);
  @ requires range: -TP_EXACT_REST <= d <= TP_EXACT_REST;
  @ assigns \nothing;
  @ ensures finite: \is_finite(\result);
  @ ensures plus: c == 1.0 ==> \result == d;
  @ ensures minus: c == -1.0 ==> \result == -d;
  @*/
static inline double tile_sign_lo(double c, double d)
{
    /*@ assert c_range: -1.0 <= c <= 1.0; */
    const double r = c * d;
    /*@ assert lower: r >= c * d; */
    /*@ assert upper: r <= c * d; */
    /*@ assert r_finite: \is_finite(r); */
    return r;
}

/* One column's four accumulators after one more term x y: a value, so
 * that its proof holds no memory (the caller writes it back). */
typedef struct {
    double hi, lo, ahi, alo;
} tile_col;

/* (h0, l0) gains x y and (a0, r0) gains |x y|, after k terms. */
/*@ requires k: 0 <= k < TP_EXACT_N_MAX;
  @ requires f16: \is_finite(x) && f16_fmt(x) && \is_finite(y) && f16_fmt(y);
  @ requires acc: exact_acc_ok(h0, l0, k) && exact_acc_ok(a0, r0, k);
  @ assigns \nothing;
  @ ensures acc: exact_acc_ok(\result.hi, \result.lo, k + 1) && exact_acc_ok(\result.ahi, \result.alo, k + 1);
  @ ensures sum: madd_exact(\result.hi, \result.lo, h0, l0, x, y);
  @ ensures abs: mabs_exact(\result.ahi, \result.alo, a0, r0, x, y);
  @*/
static inline tile_col tile_mac(double h0, double l0, double a0, double r0, int k, double x, double y)
{
    (void)k; /* a term count for the contract only */
    const double p = tile_product(x, y);
    /* c = +-1, the sign of p where p is not zero: c p = |p| */
    const double c = copysign(1.0, p);
    /*@ assert c_unit: c == 1.0 || c == -1.0; */
    /*@ assert c_grid: on_grid_8(c); */
    /*@ assert c_sign: (c == 1.0 ==> p >= 0.0) && (c == -1.0 ==> p <= 0.0); */
    const double t = tp_exact_split(p);
    const double d = tp_exact_rest(p, t);
    /*@ assert split: t + d == p; */
    const double ct = tile_sign_hi(c, t), cd = tile_sign_lo(c, d);
    /*@ assert t_neg: on_grid_8(-t); */
    /*@ assert ct_cases: ct == t || ct == -t; */
    /*@ assert ct_grid: on_grid_8(ct); */
    /*@ assert ct_range: -0x1p32 <= ct <= 0x1p32; */
    /*@ assert d_neg: on_grid_48(-d); */
    /*@ assert cd_cases: cd == d || cd == -d; */
    /*@ assert cd_grid: on_grid_48(cd); */
    /*@ assert cd_range: -TP_EXACT_REST <= cd <= TP_EXACT_REST; */
    /*@ assert abs_parts: ct + cd == rabs(p); */
    tile_col r;
    r.hi = tp_exact_add_hi(h0, t);
    r.lo = tp_exact_add_lo(l0, d);
    r.ahi = tp_exact_add_hi(a0, ct);
    r.alo = tp_exact_add_lo(r0, cd);
    return r;
}

/* Quad q after its four columns gain x y[j]: a value, as tile_mac's, so
 * that the K-loop below holds its accumulators in locals that WP keeps
 * apart from all memory (with a pointer to them, the frame of a and b
 * across each call was the goal the provers did not finish). */
/*@ requires valid_y: \valid_read(y + (0 .. 3));
  @ requires k: 0 <= k < TP_EXACT_N_MAX;
  @ requires x_f16: \is_finite(x) && f16_fmt(x);
  @ requires y_f16: \forall integer j; 0 <= j < 4 ==> \is_finite(y[j]) && f16_fmt(y[j]);
  @ requires acc: \forall integer j; 0 <= j < 4 ==> quad_ok(q, j, k);
  @ assigns \nothing;
  @ ensures acc: \forall integer j; 0 <= j < 4 ==> quad_ok(\result, j, k + 1);
  @ ensures sum: \forall integer j; 0 <= j < 4 ==> madd_exact(\result.hi[j], \result.lo[j], q.hi[j], q.lo[j], x, y[j]);
  @ ensures abs: \forall integer j; 0 <= j < 4 ==>
  @   mabs_exact(\result.ahi[j], \result.alo[j], q.ahi[j], q.alo[j], x, y[j]);
  @*/
static inline tp_gemm_quad tile_quad(tp_gemm_quad q, int k, double x, const double *y)
{
    tp_gemm_quad r = q;
    int j = 0;
    /*@ loop invariant range: 0 <= j <= 4;
      @ loop invariant done: \forall integer jj; 0 <= jj < j ==> quad_ok(r, jj, k + 1) &&
      @   madd_exact(r.hi[jj], r.lo[jj], q.hi[jj], q.lo[jj], x, y[jj]) &&
      @   mabs_exact(r.ahi[jj], r.alo[jj], q.ahi[jj], q.alo[jj], x, y[jj]);
      @ loop assigns j, r;
      @ loop variant 4 - j;
      @*/
    for (; j < 4; j++) {
        const tile_col m = tile_mac(q.hi[j], q.lo[j], q.ahi[j], q.alo[j], k, x, y[j]);
        r.hi[j] = m.hi;
        r.lo[j] = m.lo;
        r.ahi[j] = m.ahi;
        r.alo[j] = m.alo;
    }
    return r;
}

/* A quad read from memory and written back, each with what it keeps
 * stated field by field: `==` on doubles compares their real values, so
 * fields equal under it do not carry \is_finite over, and quad_ok is
 * stated here, where the copy is the memory itself (k: the term count,
 * for the contract only). */
/*@ requires valid: \valid_read(p);
  @ requires ok: \forall integer j; 0 <= j < 4 ==> quad_acc_ok(p, j, k);
  @ assigns \nothing;
  @ ensures ok: \forall integer j; 0 <= j < 4 ==> quad_ok(\result, j, k);
  @ ensures fields: \forall integer j; 0 <= j < 4 ==>
  @   \result.hi[j] == p->hi[j] && \result.lo[j] == p->lo[j] && \result.ahi[j] == p->ahi[j] && \result.alo[j] == p->alo[j];
  @*/
static inline tp_gemm_quad quad_load(const tp_gemm_quad *p, int k)
{
    (void)k;
    return *p;
}

/* Field by field, as the stores of a loop: a struct stored whole was
 * read back by the provers only as real values, which do not carry
 * \is_finite (60 s, not proved). The loop is unrolled before the
 * compiler splits the caller's quads into registers: rolled, its
 * variable index kept them in memory and ran the tile 1.8 times slower;
 * four stores with constant indices ran as fast, but their proof needs a
 * case split on the column the provers did not make in 60 s. */
/*@ requires valid: \valid(p);
  @ requires ok: \forall integer j; 0 <= j < 4 ==> quad_ok(v, j, k);
  @ assigns *p;
  @ ensures ok: \forall integer j; 0 <= j < 4 ==> quad_acc_ok(p, j, k);
  @ ensures fields: \forall integer j; 0 <= j < 4 ==>
  @   p->hi[j] == v.hi[j] && p->lo[j] == v.lo[j] && p->ahi[j] == v.ahi[j] && p->alo[j] == v.alo[j];
  @*/
static inline void quad_store(tp_gemm_quad *p, tp_gemm_quad v, int k)
{
    (void)k;
    int j = 0;
#pragma GCC unroll 4
    /*@ loop invariant range: 0 <= j <= 4;
      @ loop invariant done: \forall integer jj; 0 <= jj < j ==> quad_acc_ok(p, jj, k) &&
      @   p->hi[jj] == v.hi[jj] && p->lo[jj] == v.lo[jj] && p->ahi[jj] == v.ahi[jj] && p->alo[jj] == v.alo[jj];
      @ loop assigns j, *p;
      @ loop variant 4 - j;
      @*/
    for (; j < 4; j++) {
        p->hi[j] = v.hi[j];
        p->lo[j] = v.lo[j];
        p->ahi[j] = v.ahi[j];
        p->alo[j] = v.alo[j];
        /* What the stores kept, one fact per array (as tile_quad's were
         * when it wrote through a pointer). */
        /*@ assert kept_hi: \forall integer jj; 0 <= jj < 4 && jj != j ==> p->hi[jj] == \at(p->hi[jj], LoopCurrent); */
        /*@ assert kept_lo: \forall integer jj; 0 <= jj < 4 && jj != j ==> p->lo[jj] == \at(p->lo[jj], LoopCurrent); */
        /*@ assert kept_ahi: \forall integer jj; 0 <= jj < 4 && jj != j ==> p->ahi[jj] == \at(p->ahi[jj], LoopCurrent); */
        /*@ assert kept_alo: \forall integer jj; 0 <= jj < 4 && jj != j ==> p->alo[jj] == \at(p->alo[jj], LoopCurrent); */
        /*@ assert kept_ok: \forall integer jj; 0 <= jj < 4 && jj != j ==>
          @   (quad_acc_ok(p, jj, k) <==> \at(quad_acc_ok(p, jj, k), LoopCurrent)); */
        /*@ assert new_ok: quad_acc_ok(p, j, k); */
    }
}

/* The K-loop on two local quads, written back once: it stores nothing
 * else, so a and b are the same in every iteration without a frame
 * argument (the compiler keeps the locals in registers). */
TP_FAST void tp_gemm_exact_tile(int K, int k0, const double *a, const double *b, tp_gemm_quad *acc)
{
    tp_gemm_quad q0 = quad_load(&acc[0], k0), q1 = quad_load(&acc[1], k0);
    int k = 0;
    /*@ assert empty: \forall integer c; tile_dot(a, b, c, 0) == 0.0 && tile_absdot(a, b, c, 0) == 0.0; */
    /*@ loop invariant range: 0 <= k <= K;
      @ loop invariant acc: \forall integer j; 0 <= j < 4 ==> quad_ok(q0, j, k0 + k) && quad_ok(q1, j, k0 + k);
      @ loop invariant sum0: \forall integer j; 0 <= j < 4 ==>
      @   q0.hi[j] + q0.lo[j] == \at(acc[0].hi[j] + acc[0].lo[j], Pre) + tile_dot(a, b, j, k);
      @ loop invariant abs0: \forall integer j; 0 <= j < 4 ==>
      @   q0.ahi[j] + q0.alo[j] == \at(acc[0].ahi[j] + acc[0].alo[j], Pre) + tile_absdot(a, b, j, k);
      @ loop invariant sum1: \forall integer j; 0 <= j < 4 ==>
      @   q1.hi[j] + q1.lo[j] == \at(acc[1].hi[j] + acc[1].lo[j], Pre) + tile_dot(a, b, 4 + j, k);
      @ loop invariant abs1: \forall integer j; 0 <= j < 4 ==>
      @   q1.ahi[j] + q1.alo[j] == \at(acc[1].ahi[j] + acc[1].alo[j], Pre) + tile_absdot(a, b, 4 + j, k);
      @ loop assigns k, q0, q1;
      @ loop variant K - k;
      @*/
    for (; k < K; k++) {
        const double *bk = b + 8 * k;
        /*@ assert row_k: bk == mat_row_d(b, 8, k); */
        /*@ assert row_valid: \valid_read(bk + (0 .. 7)); */
        /*@ assert row_f16: \forall integer c; 0 <= c < 8 ==> \is_finite(bk[c]) && f16_fmt(bk[c]); */
        /*@ assert next: \forall integer c; 0 <= c < 8 ==>
          @   tile_dot(a, b, c, k + 1) == tile_dot(a, b, c, k) + mul_real(a[k], bk[c]) &&
          @   tile_absdot(a, b, c, k + 1) == tile_absdot(a, b, c, k) + rabs(mul_real(a[k], bk[c])); */
        const double x = a[k];
        q0 = tile_quad(q0, k0 + k, x, bk);
        q1 = tile_quad(q1, k0 + k, x, bk + 4);
    }
    /*@ assert all: k == K; */
    quad_store(&acc[0], q0, k0 + K);
    quad_store(&acc[1], q1, k0 + K);
    /*@ assert kept0: \forall integer j; 0 <= j < 4 ==> quad_acc_ok(&acc[0], j, k0 + K) &&
      @   acc[0].hi[j] == q0.hi[j] && acc[0].lo[j] == q0.lo[j] && acc[0].ahi[j] == q0.ahi[j] && acc[0].alo[j] == q0.alo[j]; */
}
