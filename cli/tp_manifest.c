#include "cli/tp_manifest.h"

#include "cli/tp_spawn.h"
#include "core/tp_sha256.h"

#include <stdio.h>
#include <string.h>

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

static json_t *or_null(const json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);
    return v ? v : json_null();
}

/* The seed of case `name` in a run's plan.json (as JSON: the manifest
 * copies it as it is), or NULL. */
static json_t *plan_seed(const json_t *plan, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(plan, "cases"), i, c)
    {
        if (json_is_string(json_object_get(c, "name")) && strcmp(str(c, "name"), name) == 0)
            return json_object_get(c, "seed");
    }
    return NULL;
}

json_t *tp_manifest_derived(const json_t *runs, const json_t *proofs)
{
    json_t *mruns = json_array(), *devices = json_array(), *mproofs = json_array();
    size_t i, k;
    json_t *r, *cr, *p;
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        json_t *cases = json_array();
        json_array_foreach(json_object_get(res, "cases"), k, cr)
        {
            /* refused cases record no seed; the plan has it for every case */
            json_t *seed = json_object_get(cr, "seed");
            if (!seed && json_is_string(json_object_get(cr, "case")))
                seed = plan_seed(json_object_get(r, "plan"), str(cr, "case"));
            json_t *c = json_pack("{s:s,s:O,s:s}", "case", str(cr, "case"), "seed", seed ? seed : json_null(),
                                  "verdict", str(cr, "verdict"));
            if (json_object_get(cr, "inputs_from"))
                json_object_set(c, "inputs_from", json_object_get(cr, "inputs_from"));
            json_array_append_new(cases, c);
        }
        const json_t *dev = json_object_get(res, "device");
        json_t *d = json_pack("{s:s,s:s,s:I,s:I,s:s,s:s}", "name", str(dev, "name"), "arch", str(dev, "arch"),
                              "driver_version", json_integer_value(json_object_get(dev, "driver_version")),
                              "runtime_version", json_integer_value(json_object_get(dev, "runtime_version")),
                              "backend", str(res, "backend"), "compiler_version", str(res, "compiler_version"));
        int seen = 0;
        json_t *e;
        json_array_foreach(devices, k, e) seen |= json_equal(e, d);
        json_array_append_new(mruns,
                              json_pack("{s:s,s:s,s:s,s:O,s:s,s:s,s:s,s:s,s:o}", "dir", "",
                                        "contract", str(res, "contract"),
                                        "contract_sha256", str(res, "contract_sha256"), "device", d, "backend",
                                        str(res, "backend"), "compiler_version", str(res, "compiler_version"),
                                        "kernel_source", str(json_object_get(res, "kernel"), "source"),
                                        "kernel_sha256", str(json_object_get(res, "kernel"), "sha256"), "cases",
                                        cases));
        char dir[300];
        snprintf(dir, sizeof dir, "runs/%s", str(r, "run"));
        json_object_set_new(json_array_get(mruns, i), "dir", json_string(dir));
        if (!seen)
            json_array_append(devices, d);
        json_decref(d);
    }
    json_array_foreach(proofs, i, p)
    {
        json_array_append_new(mproofs, json_pack("{s:s,s:O,s:O,s:O,s:O}", "oracle", str(p, "oracle"), "goals",
                                                 or_null(p, "goals"), "proved", or_null(p, "proved"), "provers",
                                                 or_null(p, "provers"), "tiers", or_null(p, "tiers")));
    }
    return json_pack("{s:o,s:o,s:o}", "runs", mruns, "devices", devices, "proofs", mproofs);
}

static json_t *tool_version(char *const argv[])
{
    char out[4096];
    int rc = tp_spawn_capture(argv, out, sizeof out);
    char *s = out;
    while (*s == '\n' || *s == ' ' || *s == '\r')
        s++;
    s[strcspn(s, "\r\n")] = 0;
    for (size_t n = strlen(s); n && s[n - 1] == ' '; n--)
        s[n - 1] = 0;
    return json_string(rc == 0 && *s ? s : "unknown");
}

json_t *tp_manifest_tools(void)
{
    json_t *t = json_object();
    struct {
        const char *key;
        char *argv[5];
    } all[] = {
        {"frama-c", {"frama-c", "-version", NULL}},
        {"why3", {"why3", "--version", NULL}},
        {"z3", {"z3", "--version", NULL}},
        {"cvc4", {"cvc4", "--version", NULL}},
        {"gappa", {"gappa", "--version", NULL}},
        {"coqc", {"coqc", "--version", NULL}},
        {"python3", {"/usr/bin/python3", "--version", NULL}},
        {"jinja2", {"/usr/bin/python3", "-c", "import jinja2; print(jinja2.__version__)", NULL}},
        {"cc", {"gcc", "--version", NULL}},
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        json_object_set_new(t, all[i].key, tool_version(all[i].argv));
    return t;
}

json_t *tp_manifest_git(void)
{
    char out[256];
    char *head[] = {"git", "rev-parse", "HEAD", NULL}, *status[] = {"git", "status", "--porcelain", NULL};
    int rc = tp_spawn_capture(head, out, sizeof out);
    out[strcspn(out, "\r\n")] = 0;
    json_t *commit = json_string(rc == 0 && strlen(out) == 40 ? out : "unknown");
    json_t *clean = rc != 0 ? json_string("unknown")
                    : tp_spawn_capture(status, out, sizeof out) != 0 ? json_string("unknown")
                                                                 : json_boolean(out[0] == 0);
    return json_pack("{s:o,s:o}", "commit", commit, "clean", clean);
}

json_t *tp_manifest_hashes(const char *root, const json_t *list, char *err, size_t errlen)
{
    json_t *hashes = json_object();
    size_t i;
    json_t *f;
    json_array_foreach(list, i, f)
    {
        char path[4200], sha[65];
        snprintf(path, sizeof path, "%s/%s", root, json_string_value(f));
        if (tp_sha256_file(path, sha) != 0) {
            snprintf(err, errlen, "cannot read %s", path);
            json_decref(hashes);
            return NULL;
        }
        json_object_set_new(hashes, json_string_value(f), json_string(sha));
    }
    return hashes;
}
