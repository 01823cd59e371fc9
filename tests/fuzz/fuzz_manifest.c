/* libFuzzer target: the bundle manifest reader of `tolproof audit`
 * (cli/tp_selfhash.c: layout, self-hash, JSON) and the schema check of what
 * it read (cli/tp_schema.c against docs/manifest.schema.json). A fuzzer
 * cannot forge SHA-256, so an input whose first byte is odd is first given
 * a correct "self_sha256" (the JSON text before it is the rest of the
 * input), which lets it reach the parser and the schema; an even first
 * byte writes the rest of the input as it is. Seeds: a manifest of
 * `ninja bundle` where one was built, and a minimal one (tests/fuzz/seeds.sh). */
#include "tests/fuzz/fuzz_util.h" /* first: it asks for _GNU_SOURCE */
#include "cli/tp_schema.h"
#include "cli/tp_selfhash.h"
#include "cli/tp_replay.h"
#include "core/tp_sha256.h"

#include <jansson.h>

static json_t *schema;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!schema) {
        const char *p = getenv("TP_FUZZ_SCHEMA");
        json_error_t je;
        schema = json_load_file(p ? p : "docs/manifest.schema.json", 0, &je);
        if (!schema) {
            fprintf(stderr, "fuzz_manifest: cannot read the schema (set TP_FUZZ_SCHEMA): %s\n", je.text);
            abort();
        }
    }
    if (size < 1)
        return 0;
    const char *path;
    if (data[0] & 1) {
        /* the rest, then ",\n \"self_sha256\": \"HEX\"\n}\n" as tp_write_selfhashed ends a file */
        size_t n = size - 1;
        char *buf = malloc(n + 128), hex[65];
        memcpy(buf, data + 1, n);
        static const char key[] = ",\n \"self_sha256\": \"";
        memcpy(buf + n, key, sizeof key - 1);
        tp_sha256_hex(buf, n + 3, hex); /* the hash covers the text and ",\n " */
        size_t at = n + sizeof key - 1;
        memcpy(buf + at, hex, 64);
        memcpy(buf + at + 64, "\"\n}\n", 4);
        path = fuzz_file("manifest.json", (const uint8_t *)buf, at + 68);
        free(buf);
    } else
        path = fuzz_file("manifest.json", data + 1, size - 1);
    int bad;
    char err[1600] = "";
    json_t *m = tp_read_selfhashed(path, &bad, err, sizeof err);
    if (!m) {
        if (!err[0])
            abort();
        return 0;
    }
    tp_schema_validate(schema, m, err, sizeof err);
    /* the audit compares the manifest's derived sections with its own */
    char where[1024] = "";
    json_t *copy = json_deep_copy(m);
    json_object_set_new(copy, "runs", json_array());
    tp_json_first_difference(m, copy, where, sizeof where);
    json_decref(copy);
    json_decref(m);
    return 0;
}
