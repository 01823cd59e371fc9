#include "cli/tp_tally.h"

#include "cli/tp_record_checks.h"
#include "harness/tp_check.h"

#include <stdio.h>
#include <string.h>

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

static void violation_text(char *out, size_t len, const char *case_name, const char *output, const json_t *fv)
{
    char idx[64] = "";
    size_t n = 0, k;
    json_t *d;
    json_array_foreach(json_object_get(fv, "index"), k, d) n += (size_t)snprintf(
        idx + n, n < sizeof idx ? sizeof idx - n : 0, "%s%lld", k ? "," : "", (long long)json_integer_value(d));
    const char *got_bits = str(fv, "got_bits"), *admitted_bits = str(fv, "admitted_bits");
    if (got_bits[0] && admitted_bits[0]) /* a bit-exact op, where the values do not show the difference */
        n = (size_t)snprintf(out, len, "%s/%s[%s]: got %.6g (bits %s), exact %.6g, admitted bits %s", case_name, output,
                             idx, tp_json_to_num(json_object_get(fv, "got")), got_bits,
                             tp_json_to_num(json_object_get(fv, "exact")), admitted_bits);
    else
        n = (size_t)snprintf(out, len, "%s/%s[%s]: got %.6g, exact %.6g, admitted [%.6g, %.6g]", case_name, output, idx,
                             tp_json_to_num(json_object_get(fv, "got")), tp_json_to_num(json_object_get(fv, "exact")),
                             tp_json_to_num(json_array_get(json_object_get(fv, "allowed"), 0)),
                             tp_json_to_num(json_array_get(json_object_get(fv, "allowed"), 1)));
    if (json_is_true(json_object_get(fv, "more_accurate")) && n < len)
        snprintf(out + n, len - n, " (more accurate than the model admits)");
}

void tp_tally_results(const json_t *results, tp_tally *t)
{
    memset(t, 0, sizeof *t);
    t->selected = json_object_get(results, "selected_cases") != NULL;
    size_t i;
    json_t *cr;
    json_array_foreach(json_object_get(results, "cases"), i, cr)
    {
        const char *v = str(cr, "verdict");
        int pass = strcmp(v, "pass") == 0;
        t->cases++;
        t->pass += pass;
        t->fail += strcmp(v, "fail") == 0;
        t->refused += strcmp(v, "refused") == 0;
        t->error += strcmp(v, "error") == 0;
        t->other += !pass && strcmp(v, "fail") != 0 && strcmp(v, "refused") != 0 && strcmp(v, "error") != 0;
        t->plan_refused += strcmp(v, "refused") == 0 && strcmp(str(cr, "by"), "plan") == 0;
        t->gpu_errors += tp_record_is_gpu_error(cr);
        t->from_files += json_object_get(cr, "inputs_from") != NULL;
        switch (tp_case_claim(cr)) {
        case TP_CLAIM_IMPLIED: t->implied++; break;
        case TP_CLAIM_STRICT: t->strict++; break;
        case TP_CLAIM_LOOSE: t->loose++; break;
        case TP_CLAIM_BOTH: t->both++; break;
        default: break;
        }
        const char *name;
        json_t *o;
        int counted_more = 0;
        json_object_foreach(json_object_get(cr, "outputs"), name, o)
        {
            double r = tp_json_to_num(json_object_get(o, "max_err_over_bound"));
            if (pass && r > t->max_ratio_passing)
                t->max_ratio_passing = r;
            json_int_t more = json_integer_value(json_object_get(o, "more_accurate"));
            if (more > 0) {
                t->more_accurate += more;
                counted_more = 1;
            }
            json_t *fv = json_array_get(json_object_get(o, "first_violations"), 0);
            if (fv && !t->first_violation[0])
                violation_text(t->first_violation, sizeof t->first_violation, str(cr, "case"), name, fv);
        }
        t->more_accurate_cases += counted_more;
    }
    t->unverified = t->cases - t->pass - t->fail - t->plan_refused - t->gpu_errors;
}

void tp_tally_contract(const tp_tally *t, char *out, size_t len)
{
    if (t->fail)
        snprintf(out, len, "**violated**");
    else if (t->gpu_errors && t->unverified)
        snprintf(out, len,
                 "**not met**: %d case(s) in error (device, fault or timeout: the GPU's word); %d case(s) without a "
                 "re-derivable verdict",
                 t->gpu_errors, t->unverified);
    else if (t->gpu_errors)
        snprintf(out, len, "**not met**: %d case(s) in error (device, fault or timeout: the GPU's word)", t->gpu_errors);
    else if (t->unverified)
        snprintf(out, len, "**not shown**: %d case(s) without a re-derivable verdict", t->unverified);
    else if (!t->pass)
        snprintf(out, len, "**not shown**: no case judged");
    else if (t->from_files)
        snprintf(out, len, "met%s, %d case(s) on supplied inputs", t->selected ? " on the selected cases" : "",
                 t->from_files);
    else
        snprintf(out, len, "met%s", t->selected ? " on the selected cases" : "");
    size_t used = strlen(out);
    if (t->more_accurate && used < len)
        snprintf(out + used, len - used, " (%lld element%s in %d case%s more accurate than the model admits)",
                 t->more_accurate, t->more_accurate == 1 ? "" : "s", t->more_accurate_cases,
                 t->more_accurate_cases == 1 ? "" : "s");
}

int tp_tally_unjudged(const tp_tally *t) { return t->refused + t->error + t->other; }
