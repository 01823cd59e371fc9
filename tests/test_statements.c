/* Evidence and Non-claims as statements with stable ids
 * (core/tp_statement.h, harness/tp_statements.c):
 *  - the registry: every id well-formed and unique, an op's ids in its
 *    own namespace, the runtime's in none of the ops';
 *  - tp_say fills in parameters, and the JSON lists keep the order said;
 *  - what the runtime says follows what the caller did: inputs from the
 *    seed or from files, outputs from the kernel or from files;
 *  - docs/evidence.md lists exactly the registry's ids;
 *  - every statement of every recorded results.json is an {id, text} of
 *    the registry, in the list of its kind. */
#define _DEFAULT_SOURCE /* glob */
#include "harness/tp_statements.h"
#include "tests/tap.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IDS 200

typedef struct {
    const tp_statement *st[MAX_IDS];
    const char *producer[MAX_IDS];
    int n;
} registry;

static void collect(const tp_statement *st, const char *producer, void *ctx)
{
    registry *r = ctx;
    if (r->n < MAX_IDS) {
        r->st[r->n] = st;
        r->producer[r->n++] = producer;
    }
}

static int starts_with_op(const char *id)
{
    const char *const *names = tp_op_names();
    for (int k = 0; names[k]; k++) {
        size_t l = strlen(names[k]);
        if (strncmp(id, names[k], l) == 0 && id[l] == '.')
            return 1;
    }
    return 0;
}

static void check_registry(const registry *r)
{
    int bad_id = 0, dup = 0, bad_ns = 0, empty = 0;
    for (int i = 0; i < r->n; i++) {
        const tp_statement *s = r->st[i];
        if (!tp_statement_id_ok(s->id)) {
            bad_id++;
            tap_diag("malformed id \"%s\"", s->id);
        }
        for (int j = 0; j < i; j++)
            if (strcmp(r->st[j]->id, s->id) == 0) {
                dup++;
                tap_diag("id %s declared twice", s->id);
            }
        size_t l = strlen(r->producer[i]);
        int in_own = strcmp(r->producer[i], "runtime") == 0
                         ? !starts_with_op(s->id)
                         : strncmp(s->id, r->producer[i], l) == 0 && s->id[l] == '.';
        if (!in_own) {
            bad_ns++;
            tap_diag("id %s (producer %s) is outside its producer's namespace", s->id, r->producer[i]);
        }
        if (!s->text || !*s->text || (s->kind != TP_EVIDENCE && s->kind != TP_NON_CLAIM))
            empty++;
    }
    tap_ok(r->n > 20 && r->n < MAX_IDS, "the registry holds %d statements", r->n);
    tap_ok(!bad_id, "every id is dot-separated words of [a-z0-9_]");
    tap_ok(!dup, "no id is declared twice");
    tap_ok(!bad_ns, "op ids start with the op's name, runtime ids with no op's name");
    tap_ok(!empty, "every statement has a kind and a text");
    const tp_statement *g = tp_statement_find("gemm.bound.any_order_fp32");
    tap_ok(g && g->kind == TP_EVIDENCE && tp_statement_find("nonclaim.other_inputs") &&
               !tp_statement_find("gemm.bound.no_such"),
           "tp_statement_find finds declared ids and only those");
    tap_ok(!tp_statement_id_ok("gemm") && !tp_statement_id_ok("Gemm.x") && !tp_statement_id_ok("a..b") &&
               !tp_statement_id_ok("a.b.") && tp_statement_id_ok("a.b_2.c"),
           "the id syntax rejects one word, capitals, empty words");
}

static void check_say(void)
{
    static const tp_statement e = {"test.seeded", TP_EVIDENCE, "seed %llu, K = %d"};
    static const tp_statement n = {"test.limit", TP_NON_CLAIM, "nothing about %s"};
    tp_statements s = {0};
    tp_say(&s, &e, 42ULL, 1024);
    tp_say(&s, &n, "other seeds");
    tp_say(&s, &e, 7ULL, 8);
    json_t *ev = tp_statements_json(&s, TP_EVIDENCE), *nc = tp_statements_json(&s, TP_NON_CLAIM);
    char *a = json_dumps(ev, JSON_COMPACT | JSON_SORT_KEYS), *b = json_dumps(nc, JSON_COMPACT | JSON_SORT_KEYS);
    tap_ok(strcmp(a,
                  "[{\"id\":\"test.seeded\",\"text\":\"seed 42, K = 1024\"},{\"id\":\"test.seeded\",\"text\":\"seed "
                  "7, K = 8\"}]") == 0,
           "Evidence: parameters filled in, in the order said (%s)", a);
    tap_ok(strcmp(b, "[{\"id\":\"test.limit\",\"text\":\"nothing about other seeds\"}]") == 0,
           "Non-claims go to their own list (%s)", b);
    free(a), free(b);
    json_decref(ev), json_decref(nc);
    tp_statements_free(&s);
    tap_ok(s.n[0] == 0 && s.n[1] == 0 && !s.list[0] && !s.list[1], "tp_statements_free empties both lists");
}

/* The runtime's statements for a one-input, one-output case, as JSON. */
static json_t *said_for(const tp_case_source *src)
{
    tp_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.kernel.source = "kernels/k.hip";
    plan.kernel.sha256 = "0123456789abcdef0123";
    plan.ntensors = 2;
    plan.tensors[0].name = "x";
    plan.tensors[0].role = TP_ROLE_INPUT;
    plan.tensors[1].name = "y";
    plan.tensors[1].role = TP_ROLE_OUTPUT;
    plan.tensors[1].init = "const(7)";
    json_t *outs = json_pack("{s:{s:i}}", "y", "elements", 12);
    static const tp_op op = {"test_op", "y = x", NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    tp_case c;
    memset(&c, 0, sizeof c);
    c.name = "c1";
    c.seed = 5;
    tp_statements s = {0};
    tp_case_statements(&plan, &op, &c, src, outs, 0.01, 0, &s);
    json_t *r = json_pack("{s:o,s:o}", "evidence", tp_statements_json(&s, TP_EVIDENCE), "non_claims",
                          tp_statements_json(&s, TP_NON_CLAIM));
    tp_statements_free(&s);
    json_decref(outs);
    return r;
}

/* "id1 id2 ..." of a list. */
static void ids_of(const json_t *list, char *buf, size_t len)
{
    size_t n = 0, i;
    json_t *st;
    buf[0] = 0;
    json_array_foreach(list, i, st)
    {
        if (n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", json_string_value(json_object_get(st, "id")));
    }
}

static void check_runtime(void)
{
    char ev[600], nc[600];
    json_t *r = said_for(NULL);
    ids_of(json_object_get(r, "evidence"), ev, sizeof ev);
    ids_of(json_object_get(r, "non_claims"), nc, sizeof nc);
    tap_ok(strcmp(ev, "inputs.regenerated outputs.kernel op.reference claim.audit") == 0,
           "a harness run: inputs from the seed, outputs from the kernel (%s)", ev);
    tap_ok(strcmp(nc, "nonclaim.other_inputs nonclaim.model_conformance nonclaim.model_assumed") == 0,
           "and the runtime's three Non-claims (%s)", nc);
    tap_ok(strstr(json_string_value(json_object_get(json_array_get(json_object_get(r, "evidence"), 0), "text")),
                  "seed 5 ") != NULL &&
               strstr(json_string_value(json_object_get(json_array_get(json_object_get(r, "evidence"), 3), "text")),
                      "<= 0.01 + 0 |exact|") != NULL,
           "texts carry the case's seed and the claim");
    json_decref(r);

    tp_case_source copies = {0};
    copies.ninputs = 1;
    copies.inputs[0] = (tp_source_file){"x", "outputs/c1/input_x.npy", "feedfacefeedface0000", NULL, 0};
    r = said_for(&copies);
    ids_of(json_object_get(r, "evidence"), ev, sizeof ev);
    tap_ok(strcmp(ev, "inputs.from_files outputs.kernel op.reference claim.audit") == 0,
           "a harness run with --input: inputs from files, not from the seed (%s)", ev);
    tap_ok(strstr(json_string_value(json_object_get(json_array_get(json_object_get(r, "evidence"), 0), "text")),
                  "x = outputs/c1/input_x.npy (sha256 feedfacefeedface...)") != NULL,
           "naming the kept copy and its checksum");
    json_decref(r);

    tp_case_source files = {0};
    files.ninputs = 1;
    files.inputs[0] = (tp_source_file){"x", "x.npy", "aaaaaaaaaaaaaaaa0000", "<i8 narrowed to i32", 0};
    files.outputs_from_files = 1;
    files.noutputs = 1;
    files.outputs[0] = (tp_source_file){"y", "y.npy", "bbbbbbbbbbbbbbbb0000", NULL, 0};
    json_t *ov = json_pack("{s:s}", "accumulation", "fp32_faithful");
    files.model_overrides = ov;
    files.nskipped = 1;
    files.skipped[0] = "z";
    r = said_for(&files);
    ids_of(json_object_get(r, "evidence"), ev, sizeof ev);
    ids_of(json_object_get(r, "non_claims"), nc, sizeof nc);
    tap_ok(strcmp(ev, "inputs.from_files outputs.from_files outputs.initial_from_init model.overridden op.reference "
                      "claim.audit") == 0,
           "tolproof check: files, the init assumed, the model override (%s)", ev);
    tap_ok(strcmp(nc, "nonclaim.other_files nonclaim.model_conformance nonclaim.model_assumed "
                      "nonclaim.output_not_checked") == 0,
           "and its Non-claims: other files, the output not given (%s)", nc);
    json_decref(r);
    files.ninitial = 1;
    files.initial[0] = (tp_source_file){"y", "y0.npy", "cccccccccccccccc0000", NULL, 0};
    r = said_for(&files);
    ids_of(json_object_get(r, "evidence"), ev, sizeof ev);
    tap_ok(strstr(ev, "outputs.initial_from_file") && !strstr(ev, "outputs.initial_from_init"),
           "an --initial file replaces the contract's init in the Evidence (%s)", ev);
    json_decref(r);
    json_decref(ov);
}

static void check_doc(const registry *r)
{
    FILE *f = fopen("docs/evidence.md", "r");
    if (!tap_ok(f != NULL, "docs/evidence.md exists"))
        return;
    static char doc[1 << 17];
    size_t len = fread(doc, 1, sizeof doc - 1, f);
    doc[len] = 0;
    fclose(f);
    int missing = 0, unknown = 0;
    for (int i = 0; i < r->n; i++) {
        char quoted[200];
        snprintf(quoted, sizeof quoted, "| `%s` |", r->st[i]->id);
        if (!strstr(doc, quoted)) {
            missing++;
            tap_diag("docs/evidence.md has no row for %s", r->st[i]->id);
        }
    }
    /* every table row "| `ID` |" names a registered id */
    for (char *p = strstr(doc, "\n| `"); p; p = strstr(p + 1, "\n| `")) {
        char id[200];
        if (sscanf(p, "\n| `%199[^`]`", id) == 1 && !tp_statement_find(id)) {
            unknown++;
            tap_diag("docs/evidence.md lists %s, which no producer declares", id);
        }
    }
    tap_ok(!missing && !unknown, "docs/evidence.md has one row per registered id and no other");
}

static int check_list(const json_t *list, tp_statement_kind kind, const char *where)
{
    static int diags = 5; /* the first few are enough to act on */
    size_t i;
    json_t *st;
    int bad = 0;
    json_array_foreach(list, i, st)
    {
        const char *id = json_string_value(json_object_get(st, "id"));
        const tp_statement *d = id ? tp_statement_find(id) : NULL;
        if (!json_is_string(json_object_get(st, "text")) || json_object_size(st) != 2 || !d || d->kind != kind) {
            if (!bad && diags-- > 0)
                tap_diag("%s[%zu]: %s", where, i, !id ? "not an {id, text} statement" : !d ? id : "wrong list");
            bad = 1;
        }
    }
    return bad;
}

static void check_recorded(void)
{
    glob_t g;
    int files = 0, lists = 0, bad = 0;
    const char *patterns[] = {"recorded/*/*/results.json", "recorded/variants/*/*/results.json"};
    for (int p = 0; p < 2; p++) {
        if (glob(patterns[p], 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            json_error_t je;
            json_t *res = json_load_file(g.gl_pathv[i], 0, &je);
            files++;
            size_t k;
            json_t *cr;
            json_array_foreach(json_object_get(res, "cases"), k, cr)
            {
                const json_t *ev = json_object_get(cr, "evidence"), *nc = json_object_get(cr, "non_claims");
                if (!ev && !nc)
                    continue; /* refused and error cases say nothing */
                char where[4200];
                snprintf(where, sizeof where, "%s: case %s: evidence", g.gl_pathv[i],
                         json_string_value(json_object_get(cr, "case")));
                bad |= !ev || !nc || check_list(ev, TP_EVIDENCE, where);
                snprintf(where, sizeof where, "%s: case %s: non_claims", g.gl_pathv[i],
                         json_string_value(json_object_get(cr, "case")));
                bad |= check_list(nc, TP_NON_CLAIM, where);
                lists += 2;
            }
            json_decref(res);
        }
        globfree(&g);
    }
    if (files == 0) {
        printf("ok %d # SKIP no recorded results.json\n", ++tap_n);
        return;
    }
    tap_ok(!bad, "every statement of %d recorded results.json (%d lists) is a registered {id, text} in the list "
                 "of its kind",
           files, lists);
}

int main(void)
{
    registry r = {0};
    tp_statement_registry(collect, &r);
    check_registry(&r);
    check_say();
    check_runtime();
    check_doc(&r);
    check_recorded();
    return tap_done();
}
