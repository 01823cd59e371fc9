#define _POSIX_C_SOURCE 200809L
#include "cli/tp_schema.h"

#include <regex.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int is_type(const json_t *v, const char *t)
{
    if (strcmp(t, "object") == 0)
        return json_is_object(v);
    if (strcmp(t, "array") == 0)
        return json_is_array(v);
    if (strcmp(t, "string") == 0)
        return json_is_string(v);
    if (strcmp(t, "integer") == 0)
        return json_is_integer(v);
    if (strcmp(t, "number") == 0)
        return json_is_number(v);
    if (strcmp(t, "boolean") == 0)
        return json_is_boolean(v);
    if (strcmp(t, "null") == 0)
        return json_is_null(v);
    return 0;
}

static int validate(const json_t *root, const json_t *s, const json_t *v, char *path, size_t plen, char *err,
                    size_t errlen, int depth);

static int fail(char *err, size_t errlen, const char *path, const char *what, int rc)
{
    snprintf(err, errlen, "%s: %s", path[0] ? path : "(root)", what);
    return rc;
}

static int at(const json_t *root, const json_t *s, const json_t *v, char *path, size_t plen, const char *suffix,
              char *err, size_t errlen, int depth)
{
    size_t n = strlen(path);
    snprintf(path + n, plen - n, "%s", suffix);
    int rc = validate(root, s, v, path, plen, err, errlen, depth + 1);
    if (rc == 0)
        path[n] = 0;
    return rc;
}

static int validate(const json_t *root, const json_t *s, const json_t *v, char *path, size_t plen, char *err,
                    size_t errlen, int depth)
{
    char what[600];
    if (depth > 64)
        return fail(err, errlen, path, "schema nests too deeply (a $ref loop?)", -1);
    if (json_is_true(s))
        return 0;
    if (!json_is_object(s))
        return fail(err, errlen, path, "schema node is not an object", -1);
    const char *k;
    json_t *kv;
    json_object_foreach((json_t *)s, k, kv)
    {
        if (!strcmp(k, "$schema") || !strcmp(k, "$id") || !strcmp(k, "$comment") || !strcmp(k, "title") ||
            !strcmp(k, "description") || !strcmp(k, "$defs"))
            continue;
        if (!strcmp(k, "$ref")) {
            const char *ref = json_string_value(kv);
            if (!ref || strncmp(ref, "#/$defs/", 8) != 0)
                return fail(err, errlen, path, "only \"#/$defs/NAME\" references are supported", -1);
            const json_t *target = json_object_get(json_object_get(root, "$defs"), ref + 8);
            if (!target)
                return fail(err, errlen, path, "unresolved $ref", -1);
            int rc = validate(root, target, v, path, plen, err, errlen, depth + 1);
            if (rc)
                return rc;
        } else if (!strcmp(k, "type")) {
            int ok = 0;
            if (json_is_string(kv))
                ok = is_type(v, json_string_value(kv));
            size_t i;
            json_t *t;
            json_array_foreach(kv, i, t) ok |= is_type(v, json_string_value(t) ? json_string_value(t) : "");
            if (!ok) {
                char *ts = json_dumps(kv, JSON_ENCODE_ANY | JSON_COMPACT);
                snprintf(what, sizeof what, "expected type %s", ts ? ts : "?");
                free(ts);
                return fail(err, errlen, path, what, 1);
            }
        } else if (!strcmp(k, "properties")) {
            const char *pk;
            json_t *ps;
            json_object_foreach(kv, pk, ps)
            {
                json_t *pv = json_is_object(v) ? json_object_get(v, pk) : NULL;
                char suf[300];
                snprintf(suf, sizeof suf, ".%s", pk);
                int rc = pv ? at(root, ps, pv, path, plen, suf, err, errlen, depth) : 0;
                if (rc)
                    return rc;
            }
        } else if (!strcmp(k, "required")) {
            size_t i;
            json_t *r;
            json_array_foreach(kv, i, r) if (json_is_object(v) && !json_object_get(v, json_string_value(r)))
            {
                snprintf(what, sizeof what, "required key \"%s\" is missing", json_string_value(r));
                return fail(err, errlen, path, what, 1);
            }
        } else if (!strcmp(k, "additionalProperties")) {
            if (!json_is_object(v))
                continue;
            const json_t *props = json_object_get(s, "properties");
            const char *pk;
            json_t *pv;
            json_object_foreach((json_t *)v, pk, pv)
            {
                if (props && json_object_get(props, pk))
                    continue;
                if (json_is_false(kv)) {
                    snprintf(what, sizeof what, "key \"%s\" is not allowed here", pk);
                    return fail(err, errlen, path, what, 1);
                }
                char suf[600];
                snprintf(suf, sizeof suf, ".%s", pk);
                int rc = at(root, kv, pv, path, plen, suf, err, errlen, depth);
                if (rc)
                    return rc;
            }
        } else if (!strcmp(k, "items")) {
            size_t i;
            json_t *iv;
            json_array_foreach(json_is_array(v) ? v : NULL, i, iv)
            {
                char suf[32];
                snprintf(suf, sizeof suf, "[%zu]", i);
                int rc = at(root, kv, iv, path, plen, suf, err, errlen, depth);
                if (rc)
                    return rc;
            }
        } else if (!strcmp(k, "enum")) {
            int ok = 0;
            size_t i;
            json_t *e;
            json_array_foreach(kv, i, e) ok |= json_equal(e, (json_t *)v);
            if (!ok)
                return fail(err, errlen, path, "value is not one of the schema's enum", 1);
        } else if (!strcmp(k, "const")) {
            if (!json_equal(kv, (json_t *)v))
                return fail(err, errlen, path, "value differs from the schema's const", 1);
        } else if (!strcmp(k, "pattern")) {
            if (!json_is_string(v))
                continue;
            regex_t re;
            if (regcomp(&re, json_string_value(kv), REG_EXTENDED | REG_NOSUB) != 0)
                return fail(err, errlen, path, "pattern is not a POSIX extended regular expression", -1);
            int m = regexec(&re, json_string_value(v), 0, NULL, 0);
            regfree(&re);
            if (m != 0) {
                snprintf(what, sizeof what, "\"%.200s\" does not match %s", json_string_value(v), json_string_value(kv));
                return fail(err, errlen, path, what, 1);
            }
        } else if (!strcmp(k, "minimum")) {
            if (json_is_number(v) && json_number_value(v) < json_number_value(kv)) {
                snprintf(what, sizeof what, "%g is below the minimum %g", json_number_value(v), json_number_value(kv));
                return fail(err, errlen, path, what, 1);
            }
        } else if (!strcmp(k, "minLength")) {
            if (json_is_string(v) && json_string_length(v) < (size_t)json_integer_value(kv))
                return fail(err, errlen, path, "string is shorter than minLength", 1);
        } else if (!strcmp(k, "minItems")) {
            if (json_is_array(v) && json_array_size(v) < (size_t)json_integer_value(kv))
                return fail(err, errlen, path, "array has fewer than minItems items", 1);
        } else {
            snprintf(what, sizeof what, "schema keyword \"%s\" is not supported by this validator", k);
            return fail(err, errlen, path, what, -1);
        }
    }
    return 0;
}

int tp_schema_validate(const json_t *schema, const json_t *doc, char *err, size_t errlen)
{
    char path[2048] = "";
    err[0] = 0;
    return validate(schema, schema, doc, path, sizeof path, err, errlen, 0);
}
