/* Evidence bundles: `tolproof bundle` writes one, `tolproof audit`
 * (tp_audit.c) re-checks one. The layout and the integrity scheme are
 * described at the top of tp_bundle.c and in docs/manifest.schema.json. */
#ifndef TP_BUNDLE_H
#define TP_BUNDLE_H
#include "core/tp_plan.h"

#include <jansson.h>
#include <stddef.h>

#define TP_BUNDLE_FORMAT 1

/* A generated file, held in memory so the bundler writes exactly the bytes
 * the audit compares against. */
typedef struct {
    char *path; /* relative to the bundle root */
    char *data;
    size_t len;
} tp_bfile;
typedef struct {
    tp_bfile *v;
    size_t n, cap;
} tp_bfiles;
void tp_bfiles_add(tp_bfiles *fs, const char *path, char *data, size_t len); /* takes data */
void tp_bfiles_free(tp_bfiles *fs);

/* The SVG plots of one re-derived case (one per output tensor), added as
 * plots/RUN/CASE/OUTPUT.svg. 0, or -1 with err set. */
int tp_bundle_case_plots(tp_bfiles *out, const char *run, const tp_plan *plan, const json_t *rec, const tp_case *c,
                         char *err, size_t errlen);

/* summary.md, summary.tex, results.tap and each run's results.tap from
 * the runs (an array of {"run": NAME, "results": results.json, "plan":
 * plan.json}) and the proof reports (an array of the bundle's
 * proofs/ORACLE.json objects). */
void tp_bundle_reports(tp_bfiles *out, const json_t *runs, const json_t *proofs);

/* The manifest's sections that follow from the bundle's own files:
 * "runs", "devices" and "proofs" (same inputs as tp_bundle_reports). */
json_t *tp_bundle_derived_manifest(const json_t *runs, const json_t *proofs);

/* Writes j as sorted, indented JSON ending in a final key "self_sha256"
 * whose value is the SHA-256 of every byte of the file before that key's
 * opening quote. 0 or -1. */
int tp_write_selfhashed(const char *path, const json_t *j);
/* Reads such a file: checks the layout and the hash on the raw bytes,
 * then parses it (duplicate keys rejected). NULL with err set. *bad is 1
 * when the file was read but fails the check (0 when unreadable). */
json_t *tp_read_selfhashed(const char *path, int *bad, char *err, size_t errlen);

/* Every regular file under root, as sorted relative paths; NULL on error. */
json_t *tp_bundle_list_files(const char *root);
/* Reads a whole file. NULL when it cannot. */
char *tp_read_all(const char *path, size_t *len);

/* The bundle's proofs/ORACLE.json reports, sorted by file name; NULL with
 * err set when one cannot be parsed. */
json_t *tp_bundle_load_proofs(const char *root, char *err, size_t errlen);

/* Runs argv (no shell), stdout to out_path when not NULL; the exit status
 * or -1. */
int tp_bundle_spawn(char *const argv[], const char *out_path);

int tp_bundle_main(int argc, char **argv);
#endif
