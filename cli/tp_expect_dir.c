/* Expected outcomes of a recorded run directory (see tp_expect_dir.h). */
#include "cli/tp_expect_dir.h"

#include <string.h>

/* 1 when some case of plan has no "expect" (a plan from before them). */
static int lacks_expectations(const tp_plan *plan)
{
    for (int i = 0; i < plan->ncases; i++)
        if (plan->cases[i].expect == TP_EXPECT_UNSTATED)
            return 1;
    return 0;
}

tp_plan *tp_expect_fallback(const char *from_dir, const tp_plan *plan, FILE *warn, const char *warn_lead)
{
    if (!from_dir || !plan || !lacks_expectations(plan))
        return NULL;
    const char *contract = plan->contract;
    char path[4200], err[600] = "the contract's name is not a file name";
    snprintf(path, sizeof path, "%s/%s.plan.json", from_dir, contract);
    tp_plan *fb = strchr(contract, '/') ? NULL : tp_plan_load(path, err, sizeof err);
    if (!fb && warn)
        fprintf(warn, "%s%s cannot be read (%s): cases without an \"expect\" expect a pass\n",
                warn_lead ? warn_lead : "", path, err);
    return fb;
}

int tp_expect_dir(const char *dir, const char *from_dir, const char *only, FILE *f, const char *lead,
                  tp_expect_tally *t)
{
    char path[4200], err[600];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    tp_plan *plan = tp_plan_load(path, err, sizeof err);
    snprintf(path, sizeof path, "%s/results.json", dir);
    json_t *res = plan ? json_load_file(path, 0, NULL) : NULL;
    if (!plan || !json_is_object(res)) {
        tp_plan_free(plan);
        json_decref(res);
        return -1;
    }
    tp_plan *fb = tp_expect_fallback(from_dir, plan, f, "# ");
    int before = t->unexpected;
    tp_expect_compare(plan, fb, json_object_get(res, "cases"), only, f, lead, dir, t);
    if (f && t->unexpected > before && !from_dir && lacks_expectations(plan))
        fprintf(f, "# %s/plan.json predates expectations, so its cases expect a pass: --expect-from DIR takes "
                   "them from the current contract's plan DIR/CONTRACT.plan.json (build/gen)\n",
                dir);
    tp_plan_free(fb);
    tp_plan_free(plan);
    json_decref(res);
    return 0;
}
