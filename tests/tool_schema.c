/* tool_schema SCHEMA.json DOC.json: validates a document against a schema
 * with the bundle's validator (cli/tp_schema.c); exit 0 valid, 1
 * invalid (the offending path on stdout), 2 unreadable. */
#include "cli/tp_schema.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tool_schema SCHEMA.json DOC.json\n");
        return 2;
    }
    json_error_t je;
    json_t *schema = json_load_file(argv[1], 0, &je), *doc = schema ? json_load_file(argv[2], 0, &je) : NULL;
    if (!doc) {
        fprintf(stderr, "%s: line %d: %s\n", schema ? argv[2] : argv[1], je.line, je.text);
        return 2;
    }
    char err[1000];
    int rc = tp_schema_validate(schema, doc, err, sizeof err);
    if (rc)
        printf("%s\n", err);
    return rc < 0 ? 2 : rc;
}
