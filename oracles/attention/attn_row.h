/* One query row of attention: the exact output and log-sum-exp, and the
 * admitted binary16 outputs and binary32 log-sum-exp of the model
 * (attn_model.h). docs/attention.md states the bound this computes and
 * what of it is proven. */
#ifndef TP_ATTN_ROW_H
#define TP_ATTN_ROW_H
#include "core/tp_ref.h"
#include "oracles/attention/attn_model.h"

#include <stdint.h>

/* One head: Q [L, d], K and V [S, d] as binary16 patterns. */
typedef struct {
    const attn_model *m;
    int64_t L, S, d;
    float scale;
    const uint16_t *q, *k, *v;
} attn_head;

/* One thread's arrays for heads of at most S keys and d columns. */
typedef struct attn_ws attn_ws;
attn_ws *attn_ws_new(int64_t S, int64_t d);
/* Another thread's arrays, reading the head that attn_ws_head prepares in
 * `head` (NULL: out of memory). */
attn_ws *attn_ws_borrow(const attn_ws *head);
void attn_ws_free(attn_ws *w);
/* Prepares the head's keys and values (K transposed, V as binary32, the
 * largest |V| of each column) in w, for w and the ws that borrow it. */
void attn_ws_head(attn_ws *w, const attn_head *h);

/* Row i of the head prepared last: O's references into o[0 .. d-1] (when
 * o is not NULL) and the log-sum-exp's into *lse (when lse is not NULL).
 * 0, or -1 with *why (a static string) where the model cannot bound the
 * row (a binary32 score or sum that may overflow). Called in
 * round-to-nearest; returns in it. */
int attn_row(attn_ws *w, const attn_head *h, int64_t i, tp_ref *o, tp_ref *lse, const char **why);

#endif
