/* Tests that build a tp_case by hand (not from a plan) add its tensors with
 * case_add_tensor: rank 1 (d0) or 2 (d0 x d1), row-major data the caller
 * owns; an output (out = 1) gets its own data as `initial`. */
#ifndef TESTS_CASE_TENSOR_H
#define TESTS_CASE_TENSOR_H
#include "core/tp_tensor.h"

#include <string.h>

static inline void case_add_tensor(tp_case *c, const char *name, tp_dtype dt, int rank, int64_t d0, int64_t d1,
                                   void *data, int out)
{
    tp_tensor *t = &c->tensors[c->ntensors++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->dtype = dt;
    t->rank = rank;
    t->shape[0] = d0;
    t->shape[1] = d1;
    t->numel = rank == 1 ? d0 : d0 * d1;
    t->data = data;
    t->initial = out ? data : NULL;
}
#endif
