/* The numeric model of a FlashAttention-style forward kernel, as contract
 * [model] keys of op attention_fwd (docs/attention.md derives the bound):
 *
 *   mask = "none" | "causal"        key j visible to query i: always, or j <= i
 *   scale = "1/sqrtf(d)"            the kernel's binary32 scale RN32(1 / RN32(sqrt(d)))
 *   score_accumulation = "fp32" | "fp32_faithful"
 *                                   q.k in binary32, any order, fused or not;
 *                                   faithful: each addition within one ulp
 *                                   (a superset for tensor-core MMAs)
 *   min_tile_keys = N               every key tile but the first and last holds
 *                                   at least N keys (their order is free)
 *   p_rounding = "binary16" | "none"  P rounded to binary16 before P V (FlashAttention-2)
 *   pv_accumulation = "fp32" | "fp32_faithful"
 *   final = "divide" | "reciprocal" O = RN32(acc / l), or RN32(acc RN32(1 / l))
 *   exp = "expf" | "exp2f_scaled"   p = expf(RN32(s - m)) (the default), or
 *                                   FlashAttention-2's exp2f(fma(s, c, -RN32(m c)))
 *                                   on unscaled scores, c = RN32(scale log2 e), the
 *                                   rescale exp2f(RN32(m_old - m_new) c), subnormal
 *                                   results flushed to zero
 *   [model.expf_ulp] cuda = K       the device expf's documented bound
 *   [model.logf_ulp] cuda = K       the device logf's (for the lse output)
 *
 * The running maximum m, p = expf(RN32(s - m)), the rescale
 * alpha = expf(RN32(m_old - m_new)) of l and of the accumulator per tile,
 * l = alpha l + sum p and lse = RN32(m + logf(l)) are the model's fixed
 * part (FlashAttention-2's algorithm). */
#ifndef TP_ATTN_MODEL_H
#define TP_ATTN_MODEL_H
#include "core/tp_op.h"

typedef struct {
    int causal;
    int faithful_scores, faithful_pv;
    int min_tile_keys;
    int p_binary16;
    int reciprocal;
    int exp2_scaled;
    int expf_ulp, logf_ulp; /* -1: no bound declared for the case's backend */
} attn_model;

extern const tp_model_key attn_model_keys[];

int attn_model_check(const tp_value *model, char *err, size_t errlen);
/* Reads the model for a backend: 0, or -1 with a message. */
int attn_model_read(const tp_value *model, const char *backend, attn_model *m, char *err, size_t errlen);
/* The kernel's scale for head dimension d: RN32(1 / RN32(sqrt(d))), as
 * `1.0f / sqrtf((float)d)` computes it with IEEE division and sqrt. */
float attn_scale(long long d);

#endif
