/* Checks the plan reader (core/tp_plan_json.c) and the model's value tree:
 *  - a plan reads into the structs field by field (launch, tensors, init,
 *    values, requirements, cases with dims and fills, claim, model);
 *  - each field removed, or replaced by a value of every other JSON type,
 *    gives NULL and one line that names the field, or a plan that still
 *    reads (an optional field), never a crash; the same for every entry of
 *    every array and object of the plan, recursively;
 *  - a case's expected outcome (optional: recorded plans predate it), and
 *    a word other than pass, refused and violated refused;
 *  - a plan with a 0 dim in a case still reads (the case is refused when
 *    it is built, as the harness records it) and is refused then;
 *  - the value tree: lookups of missing and mistyped keys, set in place
 *    and appended, deep copy, and JSON -> tree -> JSON unchanged.
 */
#include "tests/tap.h"
#include "core/tp_case.h"
#include "core/tp_plan.h"
#include "core/tp_plan_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char plan_text[] =
    "{\"tolproof_plan\": 1, \"contract\": \"t\", \"contract_file\": \"contracts/t.toml\","
    " \"contract_sha256\": \"00\", \"summary\": \"y = x\", \"op\": \"embedding_fwd\","
    " \"kernel\": {\"source\": \"kernels/t.hip\", \"entry\": \"t\", \"sha256\": \"11\", \"args\": [\"idx\", \"W\", \"out\", \"n\", \"V\", \"D\"]},"
    " \"dims\": [\"n\", \"V\", \"D\"],"
    " \"tensors\": [{\"name\": \"idx\", \"role\": \"input\", \"dtype\": \"i32\", \"shape\": [\"n\"], \"values\": [\"0\", \"V\"]},"
    "   {\"name\": \"W\", \"role\": \"input\", \"dtype\": \"f16\", \"shape\": [\"V\", \"D\"]},"
    "   {\"name\": \"out\", \"role\": \"output\", \"dtype\": \"f16\", \"shape\": [\"n\", \"D\"], \"init\": \"const(7)\"}],"
    " \"requires\": [{\"expr\": \"D <= 1024\", \"message\": \"small\"}],"
    " \"cases\": [{\"name\": \"a\", \"seed\": 3, \"dims\": {\"n\": 4, \"V\": 5, \"D\": 6},"
    "   \"fill\": {\"idx\": \"randint(0, 5)\", \"W\": \"normal(0, 1)\"}, \"note\": \"first\"},"
    "   {\"name\": \"zero\", \"seed\": 4, \"dims\": {\"n\": 0, \"V\": 5, \"D\": 6},"
    "   \"fill\": {\"idx\": \"randint(0, 5)\", \"W\": \"normal(0, 1)\"}, \"expect\": \"refused\"}],"
    " \"claim\": {\"atol\": 0.5, \"source\": \"the pilots\"},"
    " \"launch\": {\"block\": [\"256\"], \"grid\": [\"n\", \"ceil_div(D, 256)\"], \"shared_bytes\": \"0\"},"
    " \"model\": {\"copy\": \"exact\", \"out_of_range\": \"unchanged\", \"ulp\": {\"cuda\": 2, \"x\": 1.5, \"on\": true}}}";

static void check_fields(void)
{
    char err[400] = "";
    tp_plan *p = tp_plan_parse(plan_text, err, sizeof err);
    if (!tap_ok(p != NULL, "the plan reads (%s)", err))
        return;
    tap_ok(strcmp(p->contract, "t") == 0 && strcmp(p->op, "embedding_fwd") == 0 &&
               strcmp(p->kernel.entry, "t") == 0 && p->kernel.nargs == 6 && strcmp(p->kernel.args[5], "D") == 0,
           "contract, op, kernel");
    tap_ok(p->ndims == 3 && strcmp(p->dims[2], "D") == 0 && p->ntensors == 3 && p->tensors[0].dtype == TP_I32 &&
               p->tensors[0].role == TP_ROLE_INPUT && strcmp(p->tensors[0].values[1], "V") == 0 &&
               p->tensors[1].values[0] == NULL && p->tensors[2].role == TP_ROLE_OUTPUT &&
               strcmp(p->tensors[2].init, "const(7)") == 0 && p->tensors[2].rank == 2 &&
               strcmp(p->tensors[2].shape[1], "D") == 0,
           "dims and tensors (role, dtype, shape, values, init)");
    tap_ok(p->nrequirements == 1 && strcmp(p->requirements[0].message, "small") == 0 && p->ncases == 2 &&
               p->cases[0].seed == 3 && p->cases[0].dims[2] == 6 && strcmp(p->cases[0].fill[1], "normal(0, 1)") == 0 &&
               p->cases[0].fill[2] == NULL && strcmp(p->cases[0].note, "first") == 0 &&
               strcmp(p->cases[1].note, "") == 0,
           "requirements and cases (dims in plan order, fills per tensor, note)");
    tap_ok(p->cases[0].expect == TP_EXPECT_UNSTATED && p->cases[1].expect == TP_EXPECT_REFUSED &&
               strcmp(tp_expected_word(p->cases[0].expect), "pass") == 0,
           "expected outcomes: a case's expect, unstated (a pass) where the plan predates them");
    tap_ok(p->claim.atol == 0.5 && p->claim.rtol == 0 && p->launch.nblock == 1 && p->launch.ngrid == 2 &&
               strcmp(p->launch.grid[1], "ceil_div(D, 256)") == 0 && strcmp(p->launch.shared_bytes, "0") == 0 &&
               p->variant.name == NULL,
           "claim (rtol absent is 0), launch, no variant");
    const tp_value *ulp = tp_value_get(p->model, "ulp");
    tap_ok(strcmp(tp_value_string(tp_value_get(p->model, "copy")), "exact") == 0 &&
               tp_value_is_integer(tp_value_get(ulp, "cuda")) && tp_value_integer(tp_value_get(ulp, "cuda")) == 2 &&
               !tp_value_is_integer(tp_value_get(ulp, "x")) && tp_value_get(ulp, "x")->real == 1.5 &&
               tp_value_is_true(tp_value_get(ulp, "on")) && tp_value_get(ulp, "hip") == NULL &&
               tp_value_string(tp_value_get(ulp, "cuda")) == NULL && tp_value_get(tp_value_get(p->model, "copy"), "x") == NULL,
           "model: strings, integers apart from reals, booleans, nested tables, missing and mistyped keys");
    tp_case *c = tp_case_build(p, 0, "cuda", err, sizeof err);
    tap_ok(c && c->tensors[2].numel == 24 && ((uint16_t *)c->tensors[2].data)[0] == 0x4700,
           "case a builds from the typed plan (out initialised to 7) (%s)", c ? "" : err);
    tp_case_free(c);
    c = tp_case_build(p, 1, "cuda", err, sizeof err);
    tap_ok(!c && strcmp(err, "case zero: dim n is 0 (expected a positive integer)") == 0,
           "a 0 dim reads, and the case is refused when built (%s)", err);
    tp_case_free(c);
    tp_plan_free(p);
}

/* Every JSON type but the one of v, for replacing it. */
static json_t *other_values(const json_t *v)
{
    json_t *all = json_pack("[s,i,f,b,n,{},[]]", "x", 7, 0.5, 1), *out = json_array();
    size_t i;
    json_t *a;
    json_array_foreach(all, i, a)
    {
        if (json_typeof(a) != json_typeof(v) && !(json_is_boolean(a) && json_is_boolean(v)))
            json_array_append(out, a);
    }
    json_decref(all);
    return out;
}

static int parsed, refused, unnamed;

/* Parses the whole document `root` (one field of it changed) and counts
 * the outcome; a refusal must name `field`'s last component. */
static void try_parse(json_t *root, const char *field, const char *key)
{
    char *text = json_dumps(root, 0), err[400] = "";
    tp_plan *p = tp_plan_parse(text, err, sizeof err);
    if (p)
        parsed++;
    else {
        refused++;
        if (!strstr(err, key) || strchr(err, '\n')) {
            unnamed++;
            tap_diag("%s: \"%s\" does not name %s", field, err, key);
        }
    }
    tp_plan_free(p);
    free(text);
}

/* Removes, then retypes, every member and entry under `node`. */
static void mutate(json_t *root, json_t *node, const char *path)
{
    char sub[400], key[200];
    if (json_is_object(node)) {
        /* the keys first: a member deleted and set again moves to the end */
        json_t *keys = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(node, k, v) json_array_append_new(keys, json_string(k));
        for (size_t ki = 0; ki < json_array_size(keys); ki++) {
            snprintf(key, sizeof key, "%s", json_string_value(json_array_get(keys, ki)));
            snprintf(sub, sizeof sub, "%s.%s", path, key);
            json_t *keep = json_incref(json_object_get(node, key));
            json_object_del(node, key);
            try_parse(root, sub, key);
            json_t *others = other_values(keep);
            size_t i;
            json_t *o;
            json_array_foreach(others, i, o)
            {
                json_object_set(node, key, o);
                try_parse(root, sub, key);
            }
            json_decref(others);
            json_object_set(node, key, keep);
            mutate(root, keep, sub);
            json_decref(keep);
        }
        json_decref(keys);
    } else if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            json_t *keep = json_incref(json_array_get(node, i));
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            /* the message names the array; an entry's own path ends in [i] */
            const char *dot = strrchr(path, '.');
            snprintf(key, sizeof key, "%s", dot ? dot + 1 : path);
            json_t *others = other_values(keep);
            size_t k;
            json_t *o;
            json_array_foreach(others, k, o)
            {
                json_array_set(node, i, o);
                try_parse(root, sub, key);
            }
            json_decref(others);
            json_array_set(node, i, keep);
            mutate(root, keep, sub);
            json_decref(keep);
        }
    }
}

static void check_mutations(void)
{
    json_t *root = json_loads(plan_text, 0, NULL);
    mutate(root, root, "plan");
    tap_ok(refused > 100 && unnamed == 0,
           "every field removed or retyped: %d refused with one line naming the field, %d still read, no crash",
           refused, parsed);
    json_decref(root);
    char err[400] = "";
    tp_plan *p = tp_plan_parse("{\"tolproof_plan\": 1", err, sizeof err);
    tap_ok(!p && strncmp(err, "plan line 1:", 12) == 0, "JSON that does not parse names the line (%s)", err);
    p = tp_plan_parse("[1]", err, sizeof err);
    tap_ok(!p && strstr(err, "expected an object"), "a plan that is not an object (%s)", err);
    p = tp_plan_load("/nonexistent/plan.json", err, sizeof err);
    tap_ok(!p && strcmp(err, "/nonexistent/plan.json: cannot open: No such file or directory") == 0,
           "a missing file (%s)", err);
    /* issue 14: both were "'[' or '{' expected near end of file" */
    p = tp_plan_load("/", err, sizeof err);
    tap_ok(!p && strcmp(err, "/: is a directory, not a file") == 0, "a directory as the plan (%s)", err);
    p = tp_plan_load("/dev/null", err, sizeof err);
    tap_ok(!p && strcmp(err, "/dev/null: is empty (nothing was read from it)") == 0, "an empty stream as the plan (%s)",
           err);
}

static void check_values(void)
{
    json_t *j = json_loads("{\"a\": \"s\", \"b\": {\"c\": 1, \"d\": [1, 2.5, false]}, \"e\": -3}", 0, NULL);
    char err[200];
    tp_value *v = tp_value_from_json(j, "model", err, sizeof err);
    json_t *back = tp_value_to_json(v);
    tap_ok(json_equal(j, back), "JSON -> value tree -> JSON is unchanged");
    json_decref(back);
    tp_value *copy = tp_value_copy(v);
    tp_value_set(copy, "a", tp_value_new_string("t"));
    tp_value_set((tp_value *)tp_value_get(copy, "b"), "z", tp_value_new_string("new"));
    tap_ok(strcmp(tp_value_string(tp_value_get(v, "a")), "s") == 0 &&
               strcmp(tp_value_string(tp_value_get(copy, "a")), "t") == 0 && strcmp(copy->keys[0], "a") == 0 &&
               copy->n == 3 && strcmp(tp_value_get(copy, "b")->keys[2], "z") == 0 &&
               tp_value_get(tp_value_get(v, "b"), "z") == NULL,
           "set replaces in place and appends new keys, on a deep copy");
    tp_value *s = tp_value_new_string("x");
    tap_ok(tp_value_set(s, "k", tp_value_new_string("y")) == -1, "set on a value that is not a table is refused");
    tp_value_free(s);
    json_t *n = json_loads("{\"a\": null}", 0, NULL);
    tp_value *nv = tp_value_from_json(n, "model", err, sizeof err);
    tap_ok(!nv && strcmp(err, "model.a is null; expected a string, a number, a boolean, a table or an array") == 0,
           "null is refused, naming the key (%s)", err);
    tap_ok(strcmp(tp_value_kind_name(NULL), "missing") == 0 &&
               strcmp(tp_value_kind_name(tp_value_get(v, "e")), "an integer") == 0,
           "kind names for messages");
    json_decref(n);
    tp_value_free(copy);
    tp_value_free(v);
    json_decref(j);
}

/* An expect word other than pass, refused and violated (the verdict word
 * "fail", say) is refused, naming the case's field and the three words. */
static void check_expect_word(void)
{
    const char *at = strstr(plan_text, "\"refused\"}]");
    char text[sizeof plan_text + 8], err[400] = "";
    snprintf(text, sizeof text, "%.*s\"fail\"%s", (int)(at - plan_text), plan_text, at + strlen("\"refused\""));
    tp_plan *p = tp_plan_parse(text, err, sizeof err);
    tap_ok(!p && strstr(err, "cases[1].expect is \"fail\"") && strstr(err, "\"pass\", \"refused\" or \"violated\""),
           "expect = \"fail\" is refused: %s", err);
    tp_plan_free(p);
}

int main(void)
{
    check_fields();
    check_expect_word();
    check_mutations();
    check_values();
    return tap_done();
}
