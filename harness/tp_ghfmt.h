/* GitHub workflow annotations of runs (`--format github` of a harness,
 * `tolproof replay` and `tolproof check`): one line per testcase of
 * tp_ci.h that a reader must see,
 *
 *   ::error file=RESULTS,title=CONTRACT/CASE/OUTPUT::violated: ... (and the first violations)
 *   ::notice file=RESULTS,title=CONTRACT/CASE::expected outcome: refused ...
 *
 * an ::error for each failing testcase (a violation or a pass against the
 * expectation, a refusal or an error against it) and a ::notice for each
 * expected refusal or violation; passing and skipped testcases say
 * nothing. GitHub reads these lines anywhere on a step's stdout. */
#ifndef TP_GHFMT_H
#define TP_GHFMT_H
#include "harness/tp_ci.h"

#include <stdio.h>

void tp_ghfmt_write(FILE *f, const tp_ci_suite *suites, int nsuites);

/* Writes s escaped as GitHub's toolkit escapes a command's message
 * (property 0: % \r \n as %25 %0D %0A) or a property value (property 1:
 * also : and , as %3A and %2C), so that no name can end the line or
 * start another command; other control characters as the visible text
 * \xNN. */
void tp_gh_escape(FILE *f, const char *s, int property);
#endif
