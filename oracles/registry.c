#include "core/tp_op.h"

#include <string.h>

/* ./configure writes TP_OPS(X) with one X(name) for every oracles/op_NAME.c
 * (op_common.c aside), each of which defines tp_op_NAME: adding an op is
 * adding its file. */
#include "build/gen/tp_ops_list.h"

#define TP_DECLARE(name) extern const tp_op tp_op_##name;
TP_OPS(TP_DECLARE)

#define TP_ENTRY(name) &tp_op_##name,
static const tp_op *const ops[] = {TP_OPS(TP_ENTRY)};

const tp_op *tp_op_find(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i]->name, name) == 0)
            return ops[i];
    return NULL;
}

const char *const *tp_op_names(void)
{
    static const char *names[sizeof ops / sizeof ops[0] + 1];
    size_t n = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        names[n++] = ops[i]->name;
    names[n] = NULL;
    return names;
}
