/* Lookups in a plan and its release; reading it is core/tp_plan_json.c. */
#include "core/tp_plan.h"

#include <stdlib.h>
#include <string.h>

const char *tp_expected_word(tp_expected e)
{
    return e == TP_EXPECT_REFUSED ? "refused" : e == TP_EXPECT_VIOLATED ? "violated" : "pass";
}

int tp_plan_case_index(const tp_plan *plan, const char *name)
{
    for (int i = 0; i < plan->ncases; i++)
        if (plan->cases[i].name && strcmp(plan->cases[i].name, name) == 0)
            return i;
    return -1;
}

int tp_plan_tensor_index(const tp_plan *plan, const char *name)
{
    for (int i = 0; i < plan->ntensors; i++)
        if (plan->tensors[i].name && strcmp(plan->tensors[i].name, name) == 0)
            return i;
    return -1;
}

static void free_strings(char **s, int n)
{
    for (int i = 0; i < n; i++)
        free(s[i]);
}

void tp_plan_free(tp_plan *p)
{
    if (!p)
        return;
    free(p->contract);
    free(p->contract_file);
    free(p->contract_sha256);
    free(p->op);
    free(p->summary);
    free(p->kernel.source);
    free(p->kernel.entry);
    free(p->kernel.sha256);
    if (p->kernel.args)
        free_strings(p->kernel.args, p->kernel.nargs);
    free(p->kernel.args);
    free_strings(p->dims, TP_MAX_DIMS);
    for (int t = 0; t < TP_MAX_TENSORS; t++) {
        tp_plan_tensor *pt = &p->tensors[t];
        free(pt->name);
        free_strings(pt->shape, TP_MAX_RANK);
        free(pt->init);
        free_strings(pt->values, 2);
    }
    for (int i = 0; i < p->nrequirements; i++) {
        free(p->requirements[i].expr);
        free(p->requirements[i].message);
    }
    free(p->requirements);
    for (int i = 0; i < p->ncases; i++) {
        free(p->cases[i].name);
        free(p->cases[i].note);
        free_strings(p->cases[i].fill, TP_MAX_TENSORS);
    }
    free(p->cases);
    free(p->claim.source);
    free_strings(p->launch.block, 3);
    free_strings(p->launch.grid, 3);
    free(p->launch.shared_bytes);
    tp_value_free(p->model);
    free(p->variant.name);
    free(p->variant.expect);
    free(p->variant.contract);
    free(p->variant.what);
    free(p);
}
