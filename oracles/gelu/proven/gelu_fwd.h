/* Proven elementwise driver of the GELU forward reference (op_gelu_fwd.c):
 * y depends on the binary16 x alone, so the exact enclosure and the fp32
 * values the kernel can produce are tabulated once per pattern
 * (oracles/gelu/gelu_fwd_tables.c) and each element is a lookup. */
#ifndef TP_GELU_FWD_H
#define TP_GELU_FWD_H

#include <stdint.h>

#include "../../common/proven/tp_interval.h"

#include "gelu_fwd.acsl"

/* ex[i] = exact_y[x[i]] and mo[i] = model_y[x[i]] for every i < n. When
 * exact_y encloses y of every pattern, so does ex of every element. */
/*@ requires size: 0 <= n;
  @ requires valid_x: \valid_read(x + (0 .. n - 1));
  @ requires valid_exact_y: \valid_read(exact_y + (0 .. 65535));
  @ requires valid_model_y: \valid_read(model_y + (0 .. 65535));
  @ requires valid_ex: \valid(ex + (0 .. n - 1));
  @ requires valid_mo: \valid(mo + (0 .. n - 1));
  @ requires separated: \separated(ex + (0 .. n - 1), mo + (0 .. n - 1), x + (0 .. n - 1),
  @                                exact_y + (0 .. 65535), model_y + (0 .. 65535));
  @ assigns ex[0 .. n - 1], mo[0 .. n - 1];
  @ ensures exact: \forall integer i; 0 <= i < n ==> looked_up(ex, exact_y, x, i);
  @ ensures model: \forall integer i; 0 <= i < n ==> looked_up(mo, model_y, x, i);
  @ ensures encloses: encloses_all(exact_y) ==>
  @   \forall integer i; 0 <= i < n ==> ex[i].lo <= gelu_fwd(f16_value(x[i])) <= ex[i].hi;
  @*/
void tp_gelu_fwd_ref(int n, const uint16_t *x, const tp_interval *exact_y, const tp_interval *model_y,
                     tp_interval *ex, tp_interval *mo);

#endif
