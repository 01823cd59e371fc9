/* libFuzzer target: the plan reader every harness, `tolproof replay` and
 * `tolproof audit` use (core/tp_plan_json.c, tp_plan_parse: JSON into the
 * typed plan of core/tp_plan.h) and the case builder that runs on what it
 * accepts (core/tp_case.c, tp_case_build: expressions, requirements,
 * fills). Seeds: the plans of build/gen/ and recorded/ (tests/fuzz/seeds.sh).
 *
 * Cases whose tensors would be large are not built: a plan may
 * legitimately ask for 2^31 elements, which is memory, not a bug. The
 * sizes are worked out from the typed plan with tp_expr_eval first. */
#include "tests/fuzz/fuzz_util.h" /* first: it asks for _GNU_SOURCE */
#include "core/tp_case.h"
#include "core/tp_expr.h"
#include "core/tp_plan.h"

#define MAX_ELEMENTS (1 << 16)

/* 1 when every tensor of case i has at most MAX_ELEMENTS elements (or a
 * size that cannot be worked out: the builder refuses it then). */
static int small_case(const tp_plan *p, int i)
{
    const char *names[TP_MAX_DIMS];
    for (int k = 0; k < p->ndims; k++)
        names[k] = p->dims[k];
    for (int t = 0; t < p->ntensors; t++) {
        int64_t numel = 1, v;
        for (int d = 0; d < p->tensors[t].rank; d++) {
            char err[300];
            if (tp_expr_eval(p->tensors[t].shape[d], p->ndims, names, p->cases[i].dims, &v, err, sizeof err) != 0 ||
                v <= 0)
                return 1;
            if (v > MAX_ELEMENTS || numel * v > MAX_ELEMENTS)
                return 0;
            numel *= v;
        }
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char err[2000] = "";
    tp_plan *plan = tp_plan_parse(text, err, sizeof err);
    if (!plan && !err[0])
        abort(); /* a refusal must say why */
    for (int i = 0; plan && i < plan->ncases && i < 4; i++) {
        if (!small_case(plan, i))
            continue;
        err[0] = 0;
        tp_case *c = tp_case_build(plan, i, "cuda", err, sizeof err);
        if (!c && !err[0])
            abort();
        tp_case_free(c);
    }
    tp_plan_free(plan);
    free(text);
    return 0;
}
