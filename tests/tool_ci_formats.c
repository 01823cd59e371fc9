/* tool_ci_formats RESULTS.json [--plan PLAN.json] [--only CASE] --junit OUT.xml: the CI
 * formats of a results.json object as a harness writes them (tp_ci.h:
 * JUnit XML into OUT.xml, GitHub annotations on stdout), so that
 * tests/ci_formats.t can hand it hostile names without a contract that
 * has them. Exit 0, or 2 on bad arguments or an unreadable file. */
#include "core/tp_plan.h"
#include "harness/tp_ghfmt.h"
#include "harness/tp_junit.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *results = NULL, *plan_path = NULL, *junit = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--plan") == 0 && i + 1 < argc)
            plan_path = argv[++i];
        else if (strcmp(argv[i], "--junit") == 0 && i + 1 < argc)
            junit = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else
            results = argv[i];
    }
    if (!results || !junit) {
        fprintf(stderr, "usage: tool_ci_formats RESULTS.json [--plan PLAN.json] [--only CASE] --junit OUT.xml\n");
        return 2;
    }
    json_error_t je;
    json_t *res = json_load_file(results, 0, &je);
    if (!res) {
        fprintf(stderr, "%s: line %d: %s\n", results, je.line, je.text);
        return 2;
    }
    char err[1200];
    tp_plan *plan = plan_path ? tp_plan_load(plan_path, err, sizeof err) : NULL;
    if (plan_path && !plan) {
        fprintf(stderr, "%s\n", err);
        json_decref(res);
        return 2;
    }
    const char *name = json_string_value(json_object_get(res, "contract"));
    tp_ci_suite s = {.name = name ? name : "(no contract)", .results = res, .plan = plan, .file = results, .only = only};
    tp_ghfmt_write(stdout, &s, 1);
    int rc = tp_junit_write_file(junit, &s, 1) ? 2 : 0;
    tp_plan_free(plan);
    json_decref(res);
    return rc;
}
