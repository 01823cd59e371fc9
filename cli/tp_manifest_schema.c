#include "cli/tp_manifest_schema.h"

/* build/gen/tp_manifest_schema.c, written from docs/manifest.schema.json
 * by build.ninja's embed_text rule at build time, so that the schema
 * travels inside the binary instead of being looked up at run time (where
 * a bundle, or the current directory, could offer another). */
extern const char tp_manifest_schema_text[];

const char *tp_manifest_schema(void) { return tp_manifest_schema_text; }
