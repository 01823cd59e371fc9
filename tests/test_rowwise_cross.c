/* Issue 11 item 2 for softmax forward: the pilot softmax kernel written in
 * op rowwise (m = max(x), s = sum(expf(x - m)), y = __float2half(expf(x -
 * m)) * (1.0f / s)) against the hand-written op softmax_fwd, on the inputs
 * of the contract's cases (regenerated from build/gen/softmax_fwd.plan.json
 * and its seeds, as a replay does). On every element the generic admitted
 * set must hold the hand-written one and admit at most twice as many
 * binary16 values (two sets of one value each, equal, count as ratio 1).
 * Cases are skipped where op rowwise refuses them (rows beyond its proven
 * sum bound's 65536 terms) or where they exceed TP_CROSS_MAX elements (the
 * generic reference's MPFI cost; the skipped cases are named). */
#include "core/tp_case.h"
#include "core/tp_fp16.h"
#include "core/tp_op.h"
#include "core/tp_plan.h"
#include "tests/model_json.h"
#include "tests/tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TP_CROSS_MAX (1 << 18)

/* A binary16 pattern's place in the order of values (-0 and +0 one place). */
static int order16(uint16_t h) { return h & 0x8000 ? -(int)(h & 0x7fff) : (int)h; }

/* The binary16 values in [lo, hi] (both binary16 values or infinities). */
static double count16(double lo, double hi)
{
    if (lo > hi)
        return 0;
    return (double)(order16(tp_f16_from_double(hi)) - order16(tp_f16_from_double(lo)) + 1);
}

int main(void)
{
    char err[600] = "";
    tp_plan *plan = tp_plan_load("build/gen/softmax_fwd.plan.json", err, sizeof err);
    if (!tap_ok(plan != NULL, "the softmax_fwd plan loads (%s)", err))
        return tap_done();
    json_error_t je;
    tp_value *generic = model_of(json_loads(
        "{\"arithmetic\": \"fp32\", \"fma\": \"any\", \"output_rounding\": \"nearest\", \"reduce\": {\"m\": "
        "{\"max\": \"x\", \"order\": \"any\"}, \"s\": {\"sum\": \"expf(x - m)\", \"order\": \"any\"}}, \"expr\": "
        "{\"y\": \"__float2half(expf(x - m)) * (1.0f / s)\"}, \"ulp\": {\"expf\": {\"cuda\": 2}}}",
        0, &je));
    const tp_op *hand = tp_op_find("softmax_fwd"), *rw = tp_op_find("rowwise");
    int compared = 0;
    for (int i = 0; plan && generic && i < plan->ncases; i++) {
        const tp_plan_case *pc = &plan->cases[i];
        if (pc->expect == TP_EXPECT_REFUSED)
            continue;
        tp_case *c = tp_case_build(plan, i, "cuda", err, sizeof err);
        if (!c) {
            tap_ok(0, "%s: the case builds (%s)", pc->name, err);
            continue;
        }
        const tp_tensor *Y = tp_case_tensor(c, "y");
        if (Y->numel > TP_CROSS_MAX) {
            tap_diag("%s: %lld elements, above the %d this test compares: skipped", pc->name, (long long)Y->numel,
                     TP_CROSS_MAX);
            tp_case_free(c);
            continue;
        }
        tp_ref *rh = malloc((size_t)Y->numel * sizeof *rh), *rg = malloc((size_t)Y->numel * sizeof *rg);
        char gerr[600] = "";
        const int hrc = tp_op_reference(hand, plan->model, c, "y", rh, err, sizeof err);
        const int grc = tp_op_reference(rw, generic, c, "y", rg, gerr, sizeof gerr);
        if (hrc == 0 && grc != 0 && strstr(gerr, "proven sum bound's range")) {
            tap_diag("%s: op rowwise refuses it (%s)", pc->name, gerr);
        } else if (tap_ok(hrc == 0 && grc == 0, "%s: both references (%s%s)", pc->name, err, gerr)) {
            int64_t notin = 0, worst_at = 0;
            double worst = 1.0;
            for (int64_t k = 0; k < Y->numel; k++) {
                if (!(rg[k].allow_lo <= rh[k].allow_lo && rh[k].allow_hi <= rg[k].allow_hi))
                    notin++;
                const double ratio = count16(rg[k].allow_lo, rg[k].allow_hi) / count16(rh[k].allow_lo, rh[k].allow_hi);
                if (ratio > worst)
                    worst = ratio, worst_at = k;
            }
            tap_ok(notin == 0, "%s: the generic admitted set holds the hand-written one on all %lld elements (%lld not)",
                   pc->name, (long long)Y->numel, (long long)notin);
            tap_ok(worst <= 2.0,
                   "%s: and admits at most twice as many binary16 values (widest ratio %.3g, at y[%lld]: generic "
                   "[%.9g, %.9g], hand-written [%.9g, %.9g])",
                   pc->name, worst, (long long)worst_at, rg[worst_at].allow_lo, rg[worst_at].allow_hi,
                   rh[worst_at].allow_lo, rh[worst_at].allow_hi);
            compared++;
        }
        free(rh), free(rg);
        tp_case_free(c);
    }
    /* the case's Evidence names the binary16 rounding the model uses */
    tp_statements said = {0};
    rw->say(generic, NULL, &said);
    int found = 0;
    for (int k = 0; k < said.n[TP_EVIDENCE]; k++)
        found += strcmp(said.list[TP_EVIDENCE][k].id, "rowwise.bound.binary16_intermediate") == 0;
    tp_statements_free(&said);
    tap_ok(found == 1, "the Evidence of a model with __float2half says how that rounding is bounded");
    tap_ok(compared >= 8, "softmax forward, generic vs hand-written: %d of the contract's cases compared", compared);
    tp_value_free(generic);
    tp_plan_free(plan);
    return tap_done();
}
