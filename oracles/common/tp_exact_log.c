/* See oracles/common/tp_exact_log.h. */
#include "oracles/common/tp_exact_log.h"

static tp_exact_check log_entries[TP_EXACT_LOG_MAX];
static int log_n;

void tp_exact_log_reset(void) { log_n = 0; }

void tp_exact_log_add(const tp_exact_check *c)
{
    if (log_n < TP_EXACT_LOG_MAX)
        log_entries[log_n++] = *c;
}

int tp_exact_log_count(void) { return log_n; }

const tp_exact_check *tp_exact_log_get(int i) { return i >= 0 && i < log_n ? &log_entries[i] : 0; }
