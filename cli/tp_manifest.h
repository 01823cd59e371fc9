/* What a bundle's manifest.json says (docs/manifest.schema.json is its
 * schema): the sections that follow from the bundle's own files, which
 * `tolproof audit` recomputes; the environment the bundle was written in
 * (tool versions, git state), which it cannot; and the SHA-256 of every
 * file. Writing and reading the file itself is tp_selfhash's job. */
#ifndef TP_MANIFEST_H
#define TP_MANIFEST_H
#include <jansson.h>
#include <stddef.h>

/* manifest.json's "tolproof_bundle": the bundle layout's version. 2 added
 * signature.json and requires manifest.schema.json to be the auditing
 * tolproof's own schema and every case of every plan to be recorded; 3
 * added index.html (cli/tp_html.h). The audit reads format 2 bundles too
 * (TP_BUNDLE_FORMAT_OLDEST), without index.html and against their own
 * schema, docs/manifest.schema.v2.json. */
#define TP_BUNDLE_FORMAT 3
#define TP_BUNDLE_FORMAT_OLDEST 2

/* "runs", "devices" and "proofs", from the runs (an array of {"run": NAME,
 * "results": results.json, "plan": plan.json}) and the bundle's proof
 * reports (an array of proofs/ORACLE.json objects). */
json_t *tp_manifest_derived(const json_t *runs, const json_t *proofs);

/* "tools": the first line each tool prints about its version; "unknown"
 * when it is missing or fails (a bundle records what it can, it never fails
 * on this). */
json_t *tp_manifest_tools(void);
/* "git": {"commit": HEAD or "unknown", "clean": true/false/"unknown"} of
 * the working directory. */
json_t *tp_manifest_git(void);

/* "files": {PATH: SHA-256} of every path of `list` (relative to root).
 * NULL with err set when a file cannot be read. */
json_t *tp_manifest_hashes(const char *root, const json_t *list, char *err, size_t errlen);
#endif
