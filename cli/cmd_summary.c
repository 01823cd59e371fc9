/* `tolproof summary`: one Markdown row per recorded run directory, read
 * from its results.json: what a reader of the README wants first. */
#include "cli/cmd_summary.h"

#include "harness/tp_check.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


static void row(const char *dir, const json_t *res)
{
    int pass = 0, fail = 0, refused = 0, error = 0, strict = 0, loose = 0, both = 0, implied = 0;
    double worst_ratio = 0;
    char worst[256] = "";
    size_t i;
    json_t *cr;
    json_array_foreach(json_object_get(res, "cases"), i, cr)
    {
        const char *v = json_string_value(json_object_get(cr, "verdict"));
        pass += strcmp(v, "pass") == 0;
        fail += strcmp(v, "fail") == 0;
        refused += strcmp(v, "refused") == 0;
        error += strcmp(v, "error") == 0;
        const char *name;
        json_t *o;
        int s = 0, l = 0, counted = 0;
        json_object_foreach(json_object_get(cr, "outputs"), name, o)
        {
            json_t *claim = json_object_get(o, "claim");
            s |= json_integer_value(json_object_get(claim, "strict_elements")) > 0;
            l |= json_integer_value(json_object_get(claim, "loose_elements")) > 0;
            counted = 1;
            double r = tp_json_to_num(json_object_get(o, "max_err_over_bound"));
            if (strcmp(v, "pass") == 0 && r > worst_ratio)
                worst_ratio = r;
            json_t *fv = json_array_get(json_object_get(o, "first_violations"), 0);
            if (fv && !worst[0]) {
                char idx[64] = "";
                size_t n = 0, k;
                json_t *d;
                json_array_foreach(json_object_get(fv, "index"), k, d) n += (size_t)snprintf(
                    idx + n, n < sizeof idx ? sizeof idx - n : 0, "%s%lld", k ? "," : "", (long long)json_integer_value(d));
                snprintf(worst, sizeof worst, "%s/%s[%s]: got %.6g, exact %.6g, admitted [%.6g, %.6g]",
                         json_string_value(json_object_get(cr, "case")), name, idx,
                         tp_json_to_num(json_object_get(fv, "got")), tp_json_to_num(json_object_get(fv, "exact")),
                         tp_json_to_num(json_array_get(json_object_get(fv, "allowed"), 0)),
                         tp_json_to_num(json_array_get(json_object_get(fv, "allowed"), 1)));
            }
        }
        if (counted) {
            both += s && l;
            strict += s && !l;
            loose += l && !s;
            implied += !s && !l;
        }
    }
    json_t *dev = json_object_get(res, "device");
    char ratio[32] = "-";
    if (pass)
        snprintf(ratio, sizeof ratio, "%.3g", worst_ratio);
    printf("| %s | %s | %zu | %d | %d | %d | %s | %d / %d / %d / %d | %s | %s |\n",
           json_string_value(json_object_get(res, "contract")), json_string_value(json_object_get(dev, "name")),
           json_array_size(json_object_get(res, "cases")), pass, fail, refused + error, ratio, implied, strict, loose,
           both, fail ? "**violated**" : "met", worst[0] ? worst : "-");
    (void)dir;
}

int tp_summary_main(int argc, char **argv)
{
    if (argc < 1) {
        fprintf(stderr, "usage: tolproof summary RUN_DIR...\n");
        return 2;
    }
    printf("| contract | device | cases | pass | fail | refused | max err/bound (passing cases) | claim 1e-2: implied / "
           "too strict / too loose / both (cases) | contract | first violation |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    int status = 0;
    for (int i = 0; i < argc; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/results.json", argv[i]);
        json_error_t je;
        json_t *res = json_load_file(path, 0, &je);
        if (!res) {
            fprintf(stderr, "%s:%d: %s\n", path, je.line, je.text);
            status = 2;
            continue;
        }
        row(argv[i], res);
        json_decref(res);
    }
    return status;
}
