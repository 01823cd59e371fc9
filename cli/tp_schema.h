/* A validator for the subset of JSON Schema (2020-12) that
 * docs/manifest.schema.json uses: type, properties, required,
 * additionalProperties, items, enum, const, pattern (POSIX extended),
 * minimum, minLength, minItems and local "$ref": "#/$defs/NAME".
 * Annotations ($schema, $id, $comment, title, description) are ignored;
 * any other keyword is an error, so a schema never seems to enforce what
 * this validator does not check. */
#ifndef TP_SCHEMA_H
#define TP_SCHEMA_H
#include <jansson.h>
#include <stddef.h>

/* 0 when doc follows schema; otherwise 1 (or -1 for a schema this
 * validator cannot use) with the path of the first offending value and
 * what was expected in err. */
int tp_schema_validate(const json_t *schema, const json_t *doc, char *err, size_t errlen);
#endif
