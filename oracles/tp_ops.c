#include "tp_op.h"

#include <string.h>

extern const tp_op tp_op_gemm;
extern const tp_op tp_op_gelu_bwd;

static const tp_op *const ops[] = {&tp_op_gemm, &tp_op_gelu_bwd};
static const char *const op_names[] = {"gemm", "gelu_bwd", NULL};

const tp_op *tp_op_find(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i]->name, name) == 0)
            return ops[i];
    return NULL;
}

const char *const *tp_op_names(void) { return op_names; }
