/* `tolproof verdicts`: see tp_verdicts.h. Every checker is judged against
 * the op's exact reference (tp_ref.exact), never against another fp16 or
 * fp32 computation, so the baselines get the most favourable reference
 * they could have: a baseline's false alarm or missed bug here is one of
 * its tolerance, not of its oracle. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cmd_verdicts.h"

#include "harness/tp_check.h"
#include "core/tp_format.h"
#include "core/tp_case.h"
#include "core/tp_plan.h"
#include "cli/tp_expect_dir.h"
#include "cli/tp_replay.h"

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CK_TOLPROOF, CK_PILOTS, CK_TORCH, CK_LLMC, NCK };

static const char *const ck_name[NCK] = {"tolproof", "pilots", "torch", "llmc"};
static const char *const ck_rule[NCK] = {
    "every element in the admitted interval [allow_lo, allow_hi] of the contract's model",
    "abs(y - exact) <= 1e-2 (softmax_fwd: and every row of y sums to 1 within 1e-2)",
    "torch.testing.assert_close float16 defaults: abs(y - exact) <= 1e-5 + 1e-3 abs(exact)",
    "llm.c: abs(y - exact) <= 1e-4 + FLT_EPSILON abs(exact), FLT_EPSILON = 2^-23",
};
/* atol, rtol of the three |y - exact| <= atol + rtol |exact| checkers */
static const double ck_atol[NCK] = {0, 1e-2, 1e-5, 1e-4};
static const double ck_rtol[NCK] = {0, 0, 1e-3, FLT_EPSILON};

/* Which case of a contract is its adversarial one: the first keyword of
 * this list (priority order) that occurs in a case name the contract's
 * variants ran; among several such cases the alphabetically first. */
static const char *const adversarial_keys[] = {"cancel", "adversarial", "dominant", "large_mean", "zipf", "near"};
#define NADV ((int)(sizeof adversarial_keys / sizeof adversarial_keys[0]))

const char tp_verdicts_usage[] =
    "       tolproof verdicts [--json FILE] [--expect-from DIR] RUN_DIR...\n";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tolproof verdicts [--json FILE] [--expect-from DIR] RUN_DIR...\n"
            "Judges the recorded outputs of variant runs (run directories whose plan.json has a\n"
            "\"variant\" key, written by a harness built from kernels/variants/NAME.hip; other\n"
            "directories are skipped) with four checkers, all against the op's exact reference:\n"
            "  tolproof  %s\n"
            "  pilots    %s\n"
            "  torch     %s\n"
            "  llmc      %s\n"
            "A NaN output fails pilots/torch/llmc; an infinite one passes them only where the exact\n"
            "value is the same infinity. A case recorded as \"error\" (the kernel crashed or the\n"
            "launch failed) flags its variant under every checker; refused cases are skipped.\n"
            "A variant is flagged by a checker when any of its cases fails it (runs of one variant\n"
            "on several devices are merged). Prints one Markdown report: per checker, false alarms\n"
            "(correct variants flagged) and kills (wrong variants flagged); the variants the\n"
            "checkers disagree on, or that tolproof judges against their `expect`; and per base\n"
            "contract the largest err/bound of correct variants on its adversarial case: the\n"
            "first of the keywords cancel, adversarial, dominant, large_mean, zipf, near found in\n"
            "a case name its variants ran (alphabetically first case for that keyword).\n"
            "--json FILE writes every count, variant and case (each checker's failing elements\n"
            "and largest err/tolerance) as JSON.\n"
            "Expected outcomes: each case of a correct variant is expected to have the outcome\n"
            "its base contract's case expects (expect = \"pass\", \"refused\" or \"violated\"); a\n"
            "wrong variant's cases may pass, be violated or end in an error where the contract\n"
            "expects a pass, but at least one must be violated or in error. tolproof's outcome of\n"
            "a case is the one re-derived from the stored outputs. Each case (or wrong variant)\n"
            "without its expected outcome is named on stderr:\n"
            "\"tolproof verdicts: unexpected outcome: DIR/CASE: expected E, got G\".\n"
            "--expect-from DIR takes the expectations of runs recorded before plans carried\n"
            "them from DIR/CONTRACT.plan.json (see `tolproof replay --help`).\n"
            "Exit status: 0 every case has its expected outcome (so tolproof flagged no correct\n"
            "variant and every wrong one), 1 a case without it (a false alarm, a missed wrong\n"
            "variant, ...), 2 bad arguments or a run directory that cannot be read.\n",
            ck_rule[0], ck_rule[1], ck_rule[2], ck_rule[3]);
}

typedef struct {
    char name[128], expect[16], contract[128], op[64], what[512];
    int flagged[NCK];
    int cases, errors, refused;
    json_t *runs;  /* [{dir, device}] */
    json_t *cjson; /* [per-case result] */
} variant;

/* A baseline checker's verdict for one element against exact value e. */
static int tol_pass(int k, double y, double e)
{
    if (isnan(y) || isnan(e))
        return isnan(y) && isnan(e);
    if (isinf(y) || isinf(e))
        return y == e;
    return fabs(y - e) <= ck_atol[k] + ck_rtol[k] * fabs(e);
}

/* |y - e| over the tolerance: <= 1 exactly when tol_pass (for finite e). */
static double tol_ratio(int k, double y, double e)
{
    if (tol_pass(k, y, e))
        return isfinite(y) ? fabs(y - e) / (ck_atol[k] + ck_rtol[k] * fabs(e)) : 0;
    if (!isfinite(y) || !isfinite(e))
        return INFINITY;
    return fabs(y - e) / (ck_atol[k] + ck_rtol[k] * fabs(e));
}

typedef struct {
    int64_t failed[NCK];   /* elements (pilots: also rows) failing */
    int64_t sensitive[NCK]; /* elements whose verdict differs at exact_lo or exact_hi */
    double max_ratio[NCK]; /* tolproof: err/bound on the side of y; others: err/tolerance */
    int64_t rows_failed;
    double max_row_dev;
    int64_t elements;
} case_stats;

/* Judges one output tensor of a rebuilt case; bits: the admitted pattern
 * of each element for a bit-exact op (compared as tp_check does), or NULL. */
static void judge_tensor(const tp_tensor *t, const tp_ref *ref, const uint32_t *bits, int softmax_rows,
                         case_stats *s)
{
    for (int64_t i = 0; i < t->numel; i++) {
        const tp_ref *r = &ref[i];
        double y = tp_output_value(t, i);
        int ok = tp_element_admitted(t, i, r, bits);
        double ratio = bits ? (ok ? 0 : INFINITY) : tp_side_ratio(y, r);
        if (!ok && ratio <= 1)
            ratio = nextafter(1.0, 2.0); /* as tp_check: the enclosure is coarser than the verdict */
        s->failed[CK_TOLPROOF] += !ok;
        s->max_ratio[CK_TOLPROOF] = fmax(s->max_ratio[CK_TOLPROOF], ratio);
        for (int k = CK_PILOTS; k < NCK; k++) {
            int pass = tol_pass(k, y, r->exact);
            s->failed[k] += !pass;
            s->sensitive[k] += tol_pass(k, y, r->exact_lo) != pass || tol_pass(k, y, r->exact_hi) != pass;
            s->max_ratio[k] = fmax(s->max_ratio[k], tol_ratio(k, y, r->exact));
        }
    }
    s->elements += t->numel;
    if (softmax_rows && t->rank >= 1 && t->shape[t->rank - 1] > 0) {
        int64_t n = t->shape[t->rank - 1];
        for (int64_t row = 0; row < t->numel / n; row++) {
            double sum = 0;
            for (int64_t j = 0; j < n; j++)
                sum += tp_output_value(t, row * n + j);
            double dev = fabs(sum - 1.0);
            if (!(dev <= 1e-2)) {
                s->rows_failed++;
                s->failed[CK_PILOTS]++;
            }
            s->max_row_dev = isnan(dev) ? INFINITY : fmax(s->max_row_dev, dev);
        }
    }
}

static variant *find_variant(variant **vs, int *nv, int *cap, const tp_plan *plan, const char *op)
{
    const char *name = plan->variant.name;
    for (int i = 0; i < *nv; i++)
        if (strcmp((*vs)[i].name, name) == 0)
            return &(*vs)[i];
    if (*nv == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *vs = realloc(*vs, (size_t)*cap * sizeof **vs);
    }
    variant *v = &(*vs)[(*nv)++];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    snprintf(v->expect, sizeof v->expect, "%s", plan->variant.expect);
    snprintf(v->contract, sizeof v->contract, "%s", plan->variant.contract);
    snprintf(v->what, sizeof v->what, "%s", plan->variant.what);
    snprintf(v->op, sizeof v->op, "%s", op);
    v->runs = json_array();
    v->cjson = json_array();
    return v;
}

static json_t *num(double x) { return tp_json_num(x); }

/* One run directory into its variant. 0, 1 when skipped (not a variant
 * run), 2 when it cannot be read. */
static int judge_dir(const char *dir, variant **vs, int *nv, int *cap, const char *expect_from,
                     tp_expect_tally *outcome_tally)
{
    char path[4200], err[1200];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    tp_plan *plan = tp_plan_load(path, err, sizeof err);
    if (!plan) {
        fprintf(stderr, "tolproof verdicts: %s\n", err);
        return 2;
    }
    if (!plan->variant.name) {
        fprintf(stderr, "tolproof verdicts: %s: plan.json has no \"variant\": not a variant run, skipped\n", dir);
        tp_plan_free(plan);
        return 1;
    }
    const char *expect = plan->variant.expect;
    if (strcmp(expect, "correct") != 0 && strcmp(expect, "wrong") != 0) {
        fprintf(stderr, "tolproof verdicts: %s: \"variant\" needs name, expect (correct or wrong), contract, what\n",
                path);
        tp_plan_free(plan);
        return 2;
    }
    const tp_op *op = tp_op_find(plan->op);
    const tp_value *model = plan->model;
    if (!op || op->check_model(model, err, sizeof err) != 0) {
        fprintf(stderr, "tolproof verdicts: %s: %s\n", path, op ? err : "unknown op");
        tp_plan_free(plan);
        return 2;
    }
    snprintf(path, sizeof path, "%s/results.json", dir);
    json_error_t je;
    json_t *res = json_load_file(path, 0, &je);
    if (!res) {
        fprintf(stderr, "tolproof verdicts: %s:%d: %s\n", path, je.line, je.text);
        tp_plan_free(plan);
        return 2;
    }
    variant *v = find_variant(vs, nv, cap, plan, op->name);
    const char *backend = json_string_value(json_object_get(res, "backend"));
    const char *device = json_string_value(json_object_get(json_object_get(res, "device"), "name"));
    json_array_append_new(v->runs, json_pack("{s:s,s:s}", "dir", dir, "device", device ? device : "unknown"));
    int softmax = strcmp(op->name, "softmax_fwd") == 0, status = 0;
    /* each case's outcome as tolproof sees it now, for the expectations */
    json_t *outcomes = json_array();
    size_t i;
    json_t *rec;
    json_array_foreach(json_object_get(res, "cases"), i, rec)
    {
        const char *cname = json_string_value(json_object_get(rec, "case"));
        const char *verdict = json_string_value(json_object_get(rec, "verdict"));
        json_t *cj = json_pack("{s:s,s:s,s:s}", "dir", dir, "case", cname ? cname : "?", "recorded_verdict",
                               verdict ? verdict : "none");
        json_array_append_new(v->cjson, cj);
        tp_case *c = tp_replay_load_case(dir, plan, backend ? backend : "cuda", rec, NULL, err, sizeof err);
        if (!c && !err[0]) {
            json_array_append_new(outcomes, json_pack("{s:s?,s:s?}", "case", cname, "verdict", verdict));
            if (verdict && strcmp(verdict, "error") == 0) {
                /* a crash or failed launch shows under any test harness */
                v->errors++;
                for (int k = 0; k < NCK; k++)
                    v->flagged[k] = 1;
                json_object_set_new(cj, "note", json_string("error case: flags the variant under every checker"));
            } else {
                v->refused++;
                json_object_set_new(cj, "note", json_string("refused case: not judged"));
            }
            continue;
        }
        if (!c) {
            fprintf(stderr, "tolproof verdicts: %s/%s: %s\n", dir, cname ? cname : "?", err);
            json_object_set_new(cj, "note", json_string(err));
            status = 2;
            continue;
        }
        case_stats s;
        memset(&s, 0, sizeof s);
        int bad = tp_op_check_outputs(op, c, err, sizeof err) != 0;
        for (int t = 0; t < c->ntensors && !bad; t++) {
            const tp_tensor *tt = &c->tensors[t];
            if (plan->tensors[t].role != TP_ROLE_OUTPUT)
                continue;
            if (!tp_format_of(tt->dtype)) {
                snprintf(err, sizeof err, "output %s: only floating-point outputs can be judged", tt->name);
                bad = 1;
                break;
            }
            size_t n = (size_t)(tt->numel ? tt->numel : 1);
            tp_ref *ref = malloc(n * sizeof *ref);
            uint32_t *bits = op->reference_bits ? malloc(n * sizeof *bits) : NULL;
            if (!ref || (op->reference_bits && !bits) || tp_op_reference(op, model, c, tt->name, ref, err, sizeof err) != 0 ||
                (bits && op->reference_bits(model, c, tt->name, bits, err, sizeof err) != 0)) {
                if (!ref || (op->reference_bits && !bits))
                    snprintf(err, sizeof err, "output %s: out of memory for its reference", tt->name);
                bad = 1;
                free(ref);
                free(bits);
                break;
            }
            /* the row-sum check is on the probabilities y only */
            judge_tensor(tt, ref, bits, softmax && tt->dtype == TP_F16, &s);
            free(ref);
            free(bits);
        }
        tp_case_free(c);
        if (bad) {
            fprintf(stderr, "tolproof verdicts: %s/%s: %s\n", dir, cname, err);
            json_object_set_new(cj, "note", json_string(err));
            status = 2;
            continue;
        }
        v->cases++;
        json_t *checks = json_object();
        for (int k = 0; k < NCK; k++) {
            int flag = s.failed[k] > 0;
            v->flagged[k] |= flag;
            json_t *o = json_pack("{s:b,s:I,s:o}", "flagged", flag, "failed", (json_int_t)s.failed[k],
                                  k == CK_TOLPROOF ? "max_err_over_bound" : "max_err_over_tolerance",
                                  num(s.max_ratio[k]));
            if (k != CK_TOLPROOF)
                json_object_set_new(o, "enclosure_sensitive", json_integer(s.sensitive[k]));
            if (k == CK_PILOTS && softmax) {
                json_object_set_new(o, "rows_failed", json_integer(s.rows_failed));
                json_object_set_new(o, "max_row_sum_deviation", num(s.max_row_dev));
            }
            json_object_set_new(checks, ck_name[k], o);
        }
        json_object_set_new(cj, "elements", json_integer(s.elements));
        json_object_set_new(cj, "checks", checks);
        /* verdicts judges the outputs as stored; replay is what shows
         * results.json was derived from them */
        const char *now = s.failed[CK_TOLPROOF] ? "fail" : "pass";
        json_array_append_new(outcomes, json_pack("{s:s?,s:s}", "case", cname, "verdict", now));
        if (!verdict || strcmp(verdict, now) != 0) {
            fprintf(stderr, "tolproof verdicts: warning: %s/%s: results.json says %s, the stored outputs %s "
                            "(tolproof replay %s shows where)\n",
                    dir, cname, verdict ? verdict : "nothing", now, dir);
            json_object_set_new(cj, "recorded_verdict_agrees", json_false());
        } else
            json_object_set_new(cj, "recorded_verdict_agrees", json_true());
    }
    tp_plan *fallback = tp_expect_fallback(expect_from, plan, stderr, "tolproof verdicts: ");
    tp_expect_compare(plan, fallback, outcomes, NULL, stderr, "tolproof verdicts: unexpected outcome: ", dir,
                      outcome_tally);
    tp_plan_free(fallback);
    json_decref(outcomes);
    json_decref(res);
    tp_plan_free(plan);
    return status;
}

static int cmp_variant(const void *a, const void *b)
{
    const variant *x = a, *y = b;
    int c = strcmp(x->contract, y->contract);
    return c ? c : strcmp(x->name, y->name);
}

static void flagged_list(const variant *v, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (int k = 0; k < NCK; k++)
        if (v->flagged[k])
            n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? ", " : "", ck_name[k]);
    if (!n)
        snprintf(out, len, "none");
}

int tp_verdicts_main(int argc, char **argv)
{
    const char *json_path = NULL, *expect_from = NULL;
    tp_expect_tally expect = {0};
    variant *vs = NULL;
    int nv = 0, cap = 0, status = 0, ndirs = 0, skipped = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--json") == 0) {
            if (i + 1 >= argc) {
                usage(stderr);
                return 2;
            }
            json_path = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--expect-from") == 0) {
            if (i + 1 >= argc) {
                usage(stderr);
                return 2;
            }
            expect_from = argv[++i];
            continue;
        }
        size_t len = strlen(argv[i]);
        while (len > 1 && argv[i][len - 1] == '/')
            argv[i][--len] = 0;
        int s = judge_dir(argv[i], &vs, &nv, &cap, expect_from, &expect);
        ndirs++;
        if (s == 1)
            skipped++;
        else if (s == 2)
            status = 2;
    }
    if (ndirs == 0) {
        usage(stderr);
        return 2;
    }
    qsort(vs, (size_t)nv, sizeof *vs, cmp_variant);
    int ncorrect = 0, nwrong = 0, alarms[NCK] = {0}, kills[NCK] = {0};
    for (int i = 0; i < nv; i++) {
        int correct = strcmp(vs[i].expect, "correct") == 0;
        ncorrect += correct;
        nwrong += !correct;
        for (int k = 0; k < NCK; k++) {
            alarms[k] += correct && vs[i].flagged[k];
            kills[k] += !correct && vs[i].flagged[k];
        }
    }
    json_t *out = json_object(), *jck = json_array(), *jvar = json_array(), *jdis = json_array(),
           *jtight = json_array();
    printf("## Verdict quality: %d variants (%d correct, %d wrong) from %d run directories\n\n", nv, ncorrect, nwrong,
           ndirs - skipped);
    printf("| checker | rule | false alarms / correct | kills / wrong |\n|---|---|---|---|\n");
    for (int k = 0; k < NCK; k++) {
        printf("| %s | %s | %d / %d | %d / %d |\n", ck_name[k], ck_rule[k], alarms[k], ncorrect, kills[k], nwrong);
        json_array_append_new(jck, json_pack("{s:s,s:s,s:i,s:i,s:i,s:i}", "checker", ck_name[k], "rule", ck_rule[k],
                                             "false_alarms", alarms[k], "correct", ncorrect, "kills", kills[k],
                                             "wrong", nwrong));
    }
    printf("\nDisagreements (the checkers differ, or tolproof contradicts `expect`):\n\n");
    printf("| variant | expect | flagged by | what |\n|---|---|---|---|\n");
    int ndis = 0;
    for (int i = 0; i < nv; i++) {
        const variant *v = &vs[i];
        char fl[128];
        flagged_list(v, fl, sizeof fl);
        int all_same = 1;
        for (int k = 1; k < NCK; k++)
            all_same &= v->flagged[k] == v->flagged[0];
        int against = v->flagged[CK_TOLPROOF] != (strcmp(v->expect, "wrong") == 0);
        json_t *fj = json_object();
        for (int k = 0; k < NCK; k++)
            json_object_set_new(fj, ck_name[k], json_boolean(v->flagged[k]));
        json_array_append_new(jvar, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:i,s:i,s:i,s:O,s:O}", "name", v->name,
                                              "expect", v->expect, "contract", v->contract, "op", v->op, "what",
                                              v->what, "flagged", fj, "cases_judged", v->cases, "error_cases",
                                              v->errors, "refused_cases", v->refused, "runs", v->runs, "cases",
                                              v->cjson));
        if (all_same && !against)
            continue;
        ndis++;
        printf("| %s | %s | %s | %s |\n", v->name, v->expect, fl, v->what);
        json_array_append_new(jdis, json_pack("{s:s,s:s,s:s}", "variant", v->name, "expect", v->expect,
                                              "flagged_by", fl));
    }
    if (!ndis)
        printf("| (none) | | | |\n");
    printf("\nTightness: the largest err/bound of correct variants on each contract's adversarial case\n"
           "(first of the keywords cancel, adversarial, dominant, large_mean, zipf, near in a case name):\n\n");
    printf("| contract | op | adversarial case | correct variants on it | max err/bound | variant |\n"
           "|---|---|---|---|---|---|\n");
    for (int i = 0; i < nv; i++) {
        if (i > 0 && strcmp(vs[i].contract, vs[i - 1].contract) == 0)
            continue;
        const char *contract = vs[i].contract;
        /* the adversarial case of this contract */
        const char *adv = NULL;
        for (int key = 0; key < NADV && !adv; key++)
            for (int j = i; j < nv && strcmp(vs[j].contract, contract) == 0; j++) {
                size_t ci;
                json_t *cj;
                json_array_foreach(vs[j].cjson, ci, cj)
                {
                    const char *cn = json_string_value(json_object_get(cj, "case"));
                    if (strstr(cn, adversarial_keys[key]) && (!adv || strcmp(cn, adv) < 0))
                        adv = cn;
                }
            }
        double worst = -1;
        const char *at = "-";
        int nrun = 0;
        for (int j = i; adv && j < nv && strcmp(vs[j].contract, contract) == 0; j++) {
            if (strcmp(vs[j].expect, "correct") != 0)
                continue;
            size_t ci;
            json_t *cj;
            json_array_foreach(vs[j].cjson, ci, cj)
            {
                json_t *t = json_object_get(json_object_get(cj, "checks"), "tolproof");
                if (!t || strcmp(json_string_value(json_object_get(cj, "case")), adv) != 0)
                    continue;
                nrun++;
                double r = tp_json_to_num(json_object_get(t, "max_err_over_bound"));
                if (r > worst) {
                    worst = r;
                    at = vs[j].name;
                }
            }
        }
        char ws[64] = "-";
        if (worst >= 0)
            snprintf(ws, sizeof ws, "%.4g", worst);
        printf("| %s | %s | %s | %d | %s | %s |\n", contract, vs[i].op, adv ? adv : "(none found)", nrun, ws, at);
        json_array_append_new(jtight, json_pack("{s:s,s:s,s:o,s:i,s:o,s:o}", "contract", contract, "op", vs[i].op,
                                                "adversarial_case", adv ? json_string(adv) : json_null(),
                                                "correct_runs", nrun, "max_err_over_bound",
                                                worst >= 0 ? num(worst) : json_null(), "variant",
                                                worst >= 0 ? json_string(at) : json_null()));
    }
    char words[96];
    tp_expect_words(&expect, words, sizeof words);
    printf("\n# tolproof: %d false alarm(s) on %d correct variant(s), %d kill(s) of %d wrong variant(s); outcomes: "
           "%s%s\n",
           alarms[CK_TOLPROOF], ncorrect, kills[CK_TOLPROOF], nwrong, words,
           status == 2 ? "; some run directories could not be read (see above)" : "");
    json_object_set_new(out, "checkers", jck);
    json_object_set_new(out, "variants", jvar);
    json_object_set_new(out, "disagreements", jdis);
    json_object_set_new(out, "tightness", jtight);
    json_object_set_new(out, "adversarial_keywords", json_pack("[ssssss]", adversarial_keys[0], adversarial_keys[1],
                                                               adversarial_keys[2], adversarial_keys[3],
                                                               adversarial_keys[4], adversarial_keys[5]));
    json_object_set_new(out, "run_dirs", json_integer(ndirs - skipped));
    json_object_set_new(out, "unexpected_outcomes", json_integer(expect.unexpected));
    if (json_path && json_dump_file(out, json_path, JSON_INDENT(2) | JSON_SORT_KEYS) != 0) {
        fprintf(stderr, "tolproof verdicts: cannot write %s\n", json_path);
        status = 2;
    }
    json_decref(out);
    for (int i = 0; i < nv; i++) {
        json_decref(vs[i].runs);
        json_decref(vs[i].cjson);
    }
    free(vs);
    if (status == 2)
        return 2;
    return alarms[CK_TOLPROOF] || expect.unexpected ? 1 : 0;
}

void tp_verdicts_help(FILE *f) { usage(f); }
