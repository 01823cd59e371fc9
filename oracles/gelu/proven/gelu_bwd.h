/* Elementwise GELU-backward reference: gi = g * f(x), f tabulated per binary16
 * pattern of x (an enclosure of the exact f, and the interval of fp32 values
 * the kernel's f can take). */
#ifndef TP_GELU_BWD_H
#define TP_GELU_BWD_H

#include <stdint.h>
#include "../../common/proven/interval.acsl"

#include "../../common/proven/tp_interval.h"

/* For each i, with g = g[i] (a binary16 value widened to float):
 *   ef = exact_f[x[i]], ends with <= 42 significant bits: g*ef.lo, g*ef.hi exact in double;
 *   mf = model_f[x[i]], fp32 values: g*mf.lo, g*mf.hi exact in double (24 x 11 bits);
 *   exact_out[i] = [min(g*ef.lo, g*ef.hi), max(g*ef.lo, g*ef.hi)]
 *   model_out[i] = [min(g*mf.lo, g*mf.hi), max(g*mf.lo, g*mf.hi)]
 * The proof reads floats as reals; the products' exactness is the bit
 * counting above (11 + 42 <= 53), not part of it. */
/*@ requires size: 0 <= n;
  @ requires valid_x: \valid_read(x + (0 .. n - 1));
  @ requires valid_g: \valid_read(g + (0 .. n - 1));
  @ requires valid_tables: \valid_read(exact_f + (0 .. 65535)) && \valid_read(model_f + (0 .. 65535));
  @ requires valid_out: \valid(exact_out + (0 .. n - 1)) && \valid(model_out + (0 .. n - 1));
  @ requires separated: \separated(exact_out + (0 .. n - 1), model_out + (0 .. n - 1),
  @                                exact_f + (0 .. 65535), model_f + (0 .. 65535));
  @ assigns exact_out[0 .. n - 1], model_out[0 .. n - 1];
  @ ensures exact: \forall integer i; 0 <= i < n ==>
  @   exact_out[i].lo == \old(rmin(g[i] * exact_f[x[i]].lo, g[i] * exact_f[x[i]].hi)) &&
  @   exact_out[i].hi == \old(rmax(g[i] * exact_f[x[i]].lo, g[i] * exact_f[x[i]].hi));
  @ ensures model: \forall integer i; 0 <= i < n ==>
  @   model_out[i].lo == \old(rmin(g[i] * model_f[x[i]].lo, g[i] * model_f[x[i]].hi)) &&
  @   model_out[i].hi == \old(rmax(g[i] * model_f[x[i]].lo, g[i] * model_f[x[i]].hi));
  @*/
void tp_gelu_bwd_ref(int n, const uint16_t *x, const float *g, const tp_interval *exact_f,
                     const tp_interval *model_f, tp_interval *exact_out, tp_interval *model_out);

#endif
