#include "cli/tp_manifest_schema.h"

#include "cli/tp_manifest.h"

/* build/gen/tp_manifest_schema.c, written from docs/manifest.schema.json
 * by build.ninja's embed_text rule at build time, so that the schema
 * travels inside the binary instead of being looked up at run time (where
 * a bundle, or the current directory, could offer another). */
extern const char tp_manifest_schema_text[];
/* build/gen/tp_manifest_schema_v2.c, from docs/manifest.schema.v2.json */
extern const char tp_manifest_schema_v2_text[];

const char *tp_manifest_schema(void) { return tp_manifest_schema_text; }

const char *tp_manifest_schema_of(long long format)
{
    return format == TP_BUNDLE_FORMAT ? tp_manifest_schema_text : format == 2 ? tp_manifest_schema_v2_text : NULL;
}
