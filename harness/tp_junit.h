/* JUnit XML of runs (`--junit FILE` of a harness, `tolproof replay` and
 * `tolproof check`): one <testsuite> per run, one <testcase> per case and
 * output as tp_ci.h computes them. A failing testcase carries a <failure>
 * (a violation, or a pass where a violation or refusal was expected: its
 * message the verdict and largest err/bound, its text the first
 * violations); a refusal or an error against the expectation an <error>;
 * a case not run <skipped>; an expected refusal or violation passes, its
 * <system-out> saying what was expected. No times: the file is a function
 * of the results alone, like results.json. */
#ifndef TP_JUNIT_H
#define TP_JUNIT_H
#include "harness/tp_ci.h"

#include <stdio.h>

void tp_junit_write(FILE *f, const tp_ci_suite *suites, int nsuites);
/* Written whole (a temporary file renamed). 0 or -1. */
int tp_junit_write_file(const char *path, const tp_ci_suite *suites, int nsuites);

#endif
