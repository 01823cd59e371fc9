#define _GNU_SOURCE /* asprintf, memmem */
#include "cli/tp_selfhash.h"

#include "cli/tp_files.h"
#include "core/tp_sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SELF_KEY[] = "\"self_sha256\": \"";

int tp_write_selfhashed(const char *path, const json_t *j)
{
    json_t *copy = json_deep_copy(j);
    json_object_del(copy, "self_sha256");
    char *text = json_dumps(copy, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    json_decref(copy);
    if (!text)
        return -1;
    size_t n = strlen(text);
    /* json_dumps ends an indented non-empty object with "\n}" */
    if (n < 3 || strcmp(text + n - 2, "\n}") != 0) {
        free(text);
        return -1;
    }
    text[n - 2] = 0;
    char *prefix = NULL;
    if (asprintf(&prefix, "%s,\n ", text) < 0) {
        free(text);
        return -1;
    }
    free(text);
    char hex[65];
    tp_sha256_hex(prefix, strlen(prefix), hex);
    char *all = NULL;
    int len = asprintf(&all, "%s%s%s\"\n}\n", prefix, SELF_KEY, hex);
    free(prefix);
    if (len < 0)
        return -1;
    int rc = tp_write_all(path, all, (size_t)len);
    free(all);
    return rc;
}

json_t *tp_read_selfhashed(const char *path, int *bad, char *err, size_t errlen)
{
    size_t len;
    *bad = 0;
    char *data = tp_read_all(path, &len);
    if (!data) {
        snprintf(err, errlen, "cannot read it");
        return NULL;
    }
    *bad = 1;
    char *key = NULL;
    for (char *p = data; (p = memmem(p, len - (size_t)(p - data), SELF_KEY, sizeof SELF_KEY - 1)); p++)
        key = p;
    if (!key) {
        snprintf(err, errlen, "no \"self_sha256\" key");
        free(data);
        return NULL;
    }
    size_t at = (size_t)(key - data);
    const char *hex = key + sizeof SELF_KEY - 1;
    size_t rest = len - at - (sizeof SELF_KEY - 1);
    int layout = rest == 64 + 4 && memcmp(hex + 64, "\"\n}\n", 4) == 0;
    for (int i = 0; layout && i < 64; i++)
        layout = (hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f');
    if (!layout) {
        snprintf(err, errlen, "bytes after \"self_sha256\" at byte %zu are not 64 lowercase hex digits and \"\\n}\\n\"",
                 at);
        free(data);
        return NULL;
    }
    char want[65];
    tp_sha256_hex(data, at, want);
    if (memcmp(want, hex, 64) != 0) {
        snprintf(err, errlen, "self_sha256 is %.64s but the first %zu bytes hash to %s", hex, at, want);
        free(data);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    free(data);
    if (!j || !json_is_object(j)) {
        snprintf(err, errlen, "line %d: %s", je.line, j ? "not an object" : je.text);
        json_decref(j);
        return NULL;
    }
    *bad = 0;
    return j;
}
