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
/* mkdir -p */
int tp_mkdirs(const char *path);
#endif
