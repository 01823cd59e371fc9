/* Writers for a run directory: results.json (verdicts, reproducible),
 * timing.json (the only file that changes between identical runs),
 * results.tap and results.md. Shared by the harness and `tolproof`. */
#ifndef TP_REPORT_H
#define TP_REPORT_H
#include <jansson.h>
#include <stdio.h>

/* Writes JSON with sorted keys and full double precision, atomically. 0 or -1. */
int tp_write_json(const char *path, const json_t *j);
/* results.tap and results.md of a run, atomically. 0 or -1. */
int tp_write_tap_file(const char *path, const json_t *results);
int tp_write_markdown_file(const char *path, const json_t *results, const json_t *timing);
/* One TAP line per case of results (a results.json object). */
void tp_write_tap(FILE *f, const json_t *results);
/* A Markdown table of the cases, one row each. */
void tp_write_markdown(FILE *f, const json_t *results, const json_t *timing);
/* A short line about a case result for the console. */
void tp_case_line(char *buf, size_t len, const json_t *case_result);
/* The largest of a per-output statistic ("max_err_over_bound", ...) over
 * the outputs of a case record; 0 without outputs. */
double tp_case_worst(const json_t *case_result, const char *key);
/* The sums over the outputs of a case record of "violations", "elements"
 * and "more_accurate". */
void tp_case_totals(const json_t *case_result, long long *violations, long long *elements, long long *more_accurate);
/* mkdir -p */
int tp_mkdirs(const char *path);
typedef enum { TP_CLAIM_NONE, TP_CLAIM_IMPLIED, TP_CLAIM_STRICT, TP_CLAIM_LOOSE, TP_CLAIM_BOTH } tp_claim_class;
/* The claim category of one case of results.json over all its outputs:
 * too strict if any output is, too loose if any output is (independent of
 * the outputs' order); NONE for a case without outputs. */
tp_claim_class tp_case_claim(const json_t *case_result);
/* "-", "implied", "too strict", "too loose", "too strict and too loose":
 * the words results.json uses for one output's claim. */
const char *tp_claim_word(tp_claim_class c);
#endif
