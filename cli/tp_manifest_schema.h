/* docs/manifest.schema.json as this tolproof was built with it: the
 * schema `tolproof audit` validates every manifest against, and the text
 * `tolproof bundle` writes as manifest.schema.json. A bundle's own copy is
 * only compared with it byte for byte, never used as a schema: a bundle
 * that brought its own schema (`{}` validates anything) would check
 * itself. */
#ifndef TP_MANIFEST_SCHEMA_H
#define TP_MANIFEST_SCHEMA_H

/* The file's bytes, NUL-terminated. */
const char *tp_manifest_schema(void);
/* The schema of a bundle of that format (manifest.json "tolproof_bundle"):
 * tp_manifest_schema() for TP_BUNDLE_FORMAT, docs/manifest.schema.v2.json
 * for format 2 (bundles written before index.html), NULL for any other. */
const char *tp_manifest_schema_of(long long format);
#endif
