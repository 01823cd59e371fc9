/* tool_modes PLAN.json [MAX_ELEMENTS [CASE...]]: runs the op's reference
 * for every output of every case of the plan (cases whose tensors hold
 * more than MAX_ELEMENTS elements in all, default 100000, are skipped to
 * keep the test short; named CASEs run whatever their size)
 * once per rounding mode of the caller (FE_TONEAREST, FE_UPWARD,
 * FE_DOWNWARD, FE_TOWARDZERO) through tp_op_reference, and prints one TAP
 * line per case: ok when every tp_ref (exact, its enclosure, the admitted
 * interval) is bit for bit the one computed in FE_TONEAREST. Cases the
 * plan refuses are skipped. With TP_MODES_RAW=1 in the environment it calls
 * op->reference directly, without tp_op_reference's guard (to show that
 * the test can fail). Used by tests/rounding_modes.t. */
#include "core/tp_case.h"
#include "core/tp_op.h"
#include "core/tp_plan.h"

#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int raw;
static int reference(const tp_op *op, const tp_value *model, const tp_case *c, const char *output, tp_ref *ref,
                     char *err, size_t errlen)
{
    return raw ? op->reference(model, c, output, ref, err, errlen)
               : tp_op_reference(op, model, c, output, ref, err, errlen);
}

static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
static const char *const mode_names[] = {"FE_TONEAREST", "FE_UPWARD", "FE_DOWNWARD", "FE_TOWARDZERO"};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: tool_modes PLAN.json [MAX_ELEMENTS [CASE...]]\n");
        return 2;
    }
    raw = getenv("TP_MODES_RAW") && strcmp(getenv("TP_MODES_RAW"), "1") == 0;
    const int64_t max_elems = argc > 2 ? atoll(argv[2]) : 100000;
    char err[1200];
    tp_plan *plan = tp_plan_load(argv[1], err, sizeof err);
    if (!plan) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const tp_op *op = tp_op_find(plan->op);
    const tp_value *model = plan->model;
    const char *contract = plan->contract;
    if (!op || op->check_model(model, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", argv[1], op ? err : "unknown op");
        tp_plan_free(plan);
        return 2;
    }
    int n = 0, failed = 0;
    for (int i = 0; i < plan->ncases; i++) {
        tp_case *c = tp_case_build(plan, i, "cuda", err, sizeof err);
        if (!c)
            continue; /* refused by the plan: nothing to compute */
        int64_t total = 0;
        for (int t = 0; t < c->ntensors; t++)
            total += c->tensors[t].numel;
        int named = 0;
        for (int a = 3; a < argc; a++)
            named |= strcmp(argv[a], c->name) == 0;
        if (!named && total > max_elems) {
            tp_case_free(c);
            continue;
        }
        int same = 1, computed = 1;
        char why[300] = "";
        for (int t = 0; t < c->ntensors && same && computed; t++) {
            const tp_tensor *o = &c->tensors[t];
            if (!o->initial)
                continue;
            size_t bytes = (size_t)(o->numel ? o->numel : 1) * sizeof(tp_ref);
            tp_ref *base = malloc(bytes), *r = malloc(bytes);
            int rc0 = base ? reference(op, model, c, o->name, base, err, sizeof err) : -1;
            computed = rc0 == 0;
            for (int m = 1; m < 4 && computed && same; m++) {
                memset(r, 0, bytes);
                const int saved = fegetround();
                fesetround(modes[m]);
                int rc = reference(op, model, c, o->name, r, err, sizeof err);
                const int after = fegetround();
                fesetround(saved);
                if (rc != 0 || after != modes[m]) {
                    snprintf(why, sizeof why, "%s: %s", mode_names[m],
                             rc ? "the reference failed" : "the caller's mode was not restored");
                    same = 0;
                } else if (memcmp(base, r, (size_t)o->numel * sizeof(tp_ref)) != 0) {
                    int64_t k = 0;
                    while (memcmp(&base[k], &r[k], sizeof(tp_ref)) == 0)
                        k++;
                    snprintf(why, sizeof why,
                             "%s: %s[%lld] differs: exact %a/%a, admitted [%a, %a] vs [%a, %a]", mode_names[m],
                             o->name, (long long)k, base[k].exact, r[k].exact, base[k].allow_lo, base[k].allow_hi,
                             r[k].allow_lo, r[k].allow_hi);
                    same = 0;
                }
            }
            free(base);
            free(r);
        }
        if (computed) {
            n++;
            if (!same)
                failed++;
            printf("%s %d - %s/%s: reference identical in the four rounding modes%s%s\n", same ? "ok" : "not ok", n,
                   contract, c->name, same ? "" : ": ", why);
        }
        tp_case_free(c);
    }
    printf("1..%d\n", n);
    tp_plan_free(plan);
    return failed ? 1 : 0;
}
