/* What an exact provider other than the CPU path did for the outputs of
 * the case being checked: which provider and device computed the exact
 * sums, and the cross-check of a seeded sample of elements against the
 * CPU exact path. harness/tp_check.c resets the log before a case's
 * references and turns what it holds into the case's "exact_provider"
 * field; with the CPU path alone the log stays empty and results carry no
 * such field (so runs without a GPU provider are unchanged byte for byte).
 * One process checks one case at a time: the log is not thread-safe. */
#ifndef TP_EXACT_LOG_H
#define TP_EXACT_LOG_H

#include <stdint.h>

#define TP_EXACT_LOG_MAX 16

typedef struct {
    char output[64];     /* the output tensor whose reference it was */
    char provider[32];   /* e.g. "cuda" */
    char device[256];    /* the device's own name */
    char algorithm[300]; /* one sentence for the reader */
    char against[200];   /* what the sample was checked against */
    int64_t elements;    /* elements computed by the provider */
    int64_t sampled;     /* elements cross-checked */
    int64_t disagreements;
    uint64_t seed; /* of the sample */
    double seconds; /* the provider's wall time, sums and copies included */
} tp_exact_check;

void tp_exact_log_reset(void);
void tp_exact_log_add(const tp_exact_check *c);
int tp_exact_log_count(void);
const tp_exact_check *tp_exact_log_get(int i);
#endif
