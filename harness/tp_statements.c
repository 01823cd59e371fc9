#include "harness/tp_statements.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ the runtime's statements */
static const tp_statement inputs_regenerated = {
    "inputs.regenerated", TP_EVIDENCE,
    "inputs regenerated from seed %llu with the contract's fills (counter-based RNG)"};
/* %s: " NAME = PATH (sha256 PREFIX...)" per file */
static const tp_statement inputs_from_files = {"inputs.from_files", TP_EVIDENCE, "inputs read from .npy files:%s"};
/* %s: " NAME = WHAT (sha256 PREFIX... of its .npy encoding)" per tensor */
static const tp_statement inputs_from_memory = {"inputs.from_memory", TP_EVIDENCE,
                                                "inputs passed in memory through the C API (api/tolproof.h):%s"};
static const tp_statement inputs_others_regenerated = {
    "inputs.others_regenerated", TP_EVIDENCE,
    "the other inputs regenerated from seed %llu with the contract's fills (counter-based RNG)"};
static const tp_statement outputs_kernel = {"outputs.kernel", TP_EVIDENCE,
                                            "kernel %s (sha256 %.16s...) outputs read back and stored as .npy"};
static const tp_statement outputs_from_files = {
    "outputs.from_files", TP_EVIDENCE,
    "outputs produced outside tolproof (the contract's kernel %s was not run), read from .npy files:%s"};
static const tp_statement outputs_from_memory = {
    "outputs.from_memory", TP_EVIDENCE,
    "outputs produced outside tolproof (the contract's kernel %s was not run), passed in memory through the C API:%s"};
static const tp_statement outputs_initial_from_memory = {
    "outputs.initial_from_memory", TP_EVIDENCE,
    "pre-launch content of output %s passed in memory as %s (sha256 %.16s... of its .npy encoding)"};
static const tp_statement outputs_initial_from_file = {
    "outputs.initial_from_file", TP_EVIDENCE, "pre-launch content of output %s read from %s (sha256 %.16s...)"};
static const tp_statement outputs_initial_from_init = {
    "outputs.initial_from_init", TP_EVIDENCE, "pre-launch content of output %s taken from the contract's init %s"};
static const tp_statement model_overridden = {"model.overridden", TP_EVIDENCE,
                                              "numeric model overridden on the command line:%s"};
static const tp_statement op_reference = {
    "op.reference", TP_EVIDENCE,
    "op %s: %s; reference and admitted interval computed for all %lld output elements"};
static const tp_statement outputs_compared_bits = {
    "outputs.compared_bits", TP_EVIDENCE,
    "every output element compared with its admitted bit pattern, bit for bit: a NaN passes only with the same "
    "payload and sign, a zero only with the same sign"};
static const tp_statement claim_audit = {
    "claim.audit", TP_EVIDENCE,
    "claim audit: |y - exact| <= %g + %g |exact| compared with the admitted interval of every element"};
static const tp_statement nonclaim_other_inputs = {"nonclaim.other_inputs", TP_NON_CLAIM,
                                                   "nothing about inputs, shapes or seeds other than this case's"};
static const tp_statement nonclaim_other_files = {
    "nonclaim.other_files", TP_NON_CLAIM,
    "nothing about inputs or shapes other than these files', nor about how the producer computed the outputs "
    "beyond where they lie"};
static const tp_statement nonclaim_other_tensors = {
    "nonclaim.other_tensors", TP_NON_CLAIM,
    "nothing about inputs or shapes other than these tensors', nor about how the producer computed the outputs "
    "beyond where they lie"};
static const tp_statement nonclaim_model_conformance = {
    "nonclaim.model_conformance", TP_NON_CLAIM,
    "a pass does not show the kernel follows the declared model, only that every output lies where an evaluation "
    "the model admits could put it"};
static const tp_statement nonclaim_model_assumed = {
    "nonclaim.model_assumed", TP_NON_CLAIM,
    "the verdict assumes the declared numeric model; a model that misdescribes the kernel's precision path makes "
    "the verdict about that model, not the kernel"};
static const tp_statement nonclaim_output_not_checked = {"nonclaim.output_not_checked", TP_NON_CLAIM,
                                                         "output %s was not given and is not checked"};

static const tp_statement *const runtime_statements[] = {
    &inputs_regenerated,         &inputs_from_files,         &inputs_others_regenerated,
    &outputs_kernel,             &outputs_from_files,        &outputs_initial_from_file,
    &outputs_initial_from_init,  &model_overridden,          &op_reference,
    &outputs_compared_bits,      &claim_audit,                &nonclaim_other_inputs,     &nonclaim_other_files,
    &nonclaim_model_conformance, &nonclaim_model_assumed,    &nonclaim_output_not_checked,
    /* the C API's tensors in memory (api/tolproof.h) */
    &inputs_from_memory,         &outputs_from_memory,       &outputs_initial_from_memory, &nonclaim_other_tensors,
    NULL};

/* " NAME = PATH (sha256 PREFIX...[, NOTE])" for each file (in_memory 0)
 * or " NAME = WHAT (sha256 PREFIX... of its .npy encoding[, NOTE])" for
 * each tensor in memory (in_memory 1), into buf; the count listed. */
static int file_list(char *buf, size_t len, const tp_source_file *f, int n, int in_memory)
{
    size_t at = 0;
    int listed = 0;
    buf[0] = 0;
    for (int i = 0; i < n && at < len; i++) {
        if (!f[i].in_memory != !in_memory)
            continue;
        listed++;
        at += (size_t)snprintf(buf + at, len - at, " %s = %s (sha256 %.16s...%s%s%s)", f[i].name, f[i].path,
                               f[i].sha256, in_memory ? " of its .npy encoding" : "", f[i].note ? ", " : "",
                               f[i].note ? f[i].note : "");
    }
    return listed;
}

static const tp_source_file *find_file(const tp_source_file *f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    return NULL;
}

/* Where the tensors came from: the caller knows, src says. */
static void say_sources(const tp_plan *plan, const tp_case *c, const tp_case_source *src, tp_statements *out)
{
    static const tp_case_source none;
    char buf[4000];
    const char *kernel_source = plan->kernel.source;
    if (!src)
        src = &none;
    int ninputs = 0;
    for (int i = 0; i < plan->ntensors; i++)
        ninputs += plan->tensors[i].role != TP_ROLE_OUTPUT;
    if (src->ninputs == 0)
        tp_say(out, &inputs_regenerated, (unsigned long long)c->seed);
    else {
        if (file_list(buf, sizeof buf, src->inputs, src->ninputs, 0))
            tp_say(out, &inputs_from_files, buf);
        if (file_list(buf, sizeof buf, src->inputs, src->ninputs, 1))
            tp_say(out, &inputs_from_memory, buf);
        if (src->ninputs < ninputs)
            tp_say(out, &inputs_others_regenerated, (unsigned long long)c->seed);
    }
    if (!src->outputs_from_files) {
        tp_say(out, &outputs_kernel, kernel_source, plan->kernel.sha256);
        return;
    }
    if (file_list(buf, sizeof buf, src->outputs, src->noutputs, 0))
        tp_say(out, &outputs_from_files, kernel_source, buf);
    if (file_list(buf, sizeof buf, src->outputs, src->noutputs, 1))
        tp_say(out, &outputs_from_memory, kernel_source, buf);
    /* the checker took each output's pre-launch content from somewhere */
    for (int i = 0; i < plan->ntensors; i++) {
        if (plan->tensors[i].role != TP_ROLE_OUTPUT)
            continue;
        const char *name = plan->tensors[i].name, *init = plan->tensors[i].init;
        const tp_source_file *f = find_file(src->initial, src->ninitial, name);
        if (f)
            tp_say(out, f->in_memory ? &outputs_initial_from_memory : &outputs_initial_from_file, name, f->path,
                   f->sha256);
        else if (init && strcmp(init, "poison") != 0)
            tp_say(out, &outputs_initial_from_init, name, init);
    }
}

static void say_overrides(const json_t *overrides, tp_statements *out)
{
    if (!json_object_size(overrides))
        return;
    char buf[2000];
    size_t n = 0;
    const char *k;
    json_t *v;
    buf[0] = 0;
    json_object_foreach((json_t *)overrides, k, v)
    {
        char *dv = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        if (n < sizeof buf)
            n += (size_t)snprintf(buf + n, sizeof buf - n, " %s = %s", k, dv ? dv : "?");
        free(dv);
    }
    tp_say(out, &model_overridden, buf);
}

void tp_case_source_copies(tp_case_source *src, const tp_case *c, const json_t *inputs_from,
                           char paths[TP_SOURCE_MAX][TP_SOURCE_PATH])
{
    for (int t = 0; t < c->ntensors && src->ninputs < TP_SOURCE_MAX; t++) {
        const char *sha = json_string_value(json_object_get(inputs_from, c->tensors[t].name));
        if (!sha)
            continue;
        int k = src->ninputs++;
        snprintf(paths[k], TP_SOURCE_PATH, "outputs/%s/input_%s.npy", c->name, c->tensors[t].name);
        src->inputs[k] = (tp_source_file){c->tensors[t].name, paths[k], sha, NULL, 0};
    }
}

static int any_in_memory(const tp_case_source *src)
{
    int any = 0;
    for (int i = 0; i < src->ninputs; i++)
        any |= src->inputs[i].in_memory;
    for (int i = 0; i < src->noutputs; i++)
        any |= src->outputs[i].in_memory;
    for (int i = 0; i < src->ninitial; i++)
        any |= src->initial[i].in_memory;
    return any;
}

void tp_case_statements(const tp_plan *plan, const tp_op *op, const tp_case *c, const tp_case_source *src,
                        const json_t *outputs, double atol, double rtol, tp_statements *out)
{
    long long n = 0;
    const char *name;
    json_t *o;
    json_object_foreach((json_t *)outputs, name, o) n += json_integer_value(json_object_get(o, "elements"));
    say_sources(plan, c, src, out);
    if (src)
        say_overrides(src->model_overrides, out);
    tp_say(out, &op_reference, op->name, op->summary, n);
    tp_say(out, !src || !src->outputs_from_files ? &nonclaim_other_inputs
                : any_in_memory(src)                  ? &nonclaim_other_tensors
                                                      : &nonclaim_other_files);
    tp_say(out, &nonclaim_model_conformance);
    tp_say(out, &nonclaim_model_assumed);
    if (op->say)
        op->say(plan->model, c, out);
    if (op->reference_bits) /* tp_check_case compared patterns */
        tp_say(out, &outputs_compared_bits);
    tp_say(out, &claim_audit, atol, rtol);
    for (int i = 0; src && i < src->nskipped; i++)
        tp_say(out, &nonclaim_output_not_checked, src->skipped[i]);
}

json_t *tp_statements_json(const tp_statements *s, tp_statement_kind kind)
{
    json_t *a = json_array();
    for (int i = 0; i < s->n[kind]; i++)
        json_array_append_new(a, json_pack("{s:s,s:s}", "id", s->list[kind][i].id, "text", s->list[kind][i].text));
    return a;
}

/* --------------------------------------------------------------- registry */
void tp_statement_registry(void (*each)(const tp_statement *st, const char *producer, void *ctx), void *ctx)
{
    for (int i = 0; runtime_statements[i]; i++)
        each(runtime_statements[i], "runtime", ctx);
    const char *const *names = tp_op_names();
    for (int k = 0; names[k]; k++) {
        const tp_op *op = tp_op_find(names[k]);
        for (int i = 0; op->statements && op->statements[i]; i++)
            each(op->statements[i], op->name, ctx);
    }
}

typedef struct {
    const char *id;
    const tp_statement *found;
} find_ctx;

static void match(const tp_statement *st, const char *producer, void *ctx)
{
    find_ctx *f = ctx;
    (void)producer;
    if (!f->found && strcmp(st->id, f->id) == 0)
        f->found = st;
}

const tp_statement *tp_statement_find(const char *id)
{
    find_ctx f = {id, NULL};
    tp_statement_registry(match, &f);
    return f.found;
}
