/* The Evidence and Non-claims of a checked case: the runtime's own
 * statements (where the tensors came from, what was computed, the claim
 * audit, the limits of any verdict), the op's (its exact method and
 * bound), and the registry of every statement id a check can produce.
 * The statement type is core/tp_statement.h; docs/evidence.md lists the
 * ids. */
#ifndef TP_STATEMENTS_H
#define TP_STATEMENTS_H
#include "core/tp_op.h"
#include "core/tp_plan.h"
#include "core/tp_statement.h"

#include <jansson.h>

#define TP_SOURCE_MAX 8

/* A tensor read from a file: name, path as the result shows it, SHA-256
 * (hex) and an optional note (e.g. an index file's conversion). With
 * in_memory set, a tensor the C API was handed in memory instead: path is
 * what its caller calls it ("numpy.ndarray"), sha256 that of its .npy
 * encoding. */
typedef struct {
    const char *name, *path, *sha256, *note;
    int in_memory;
} tp_source_file;

/* Where the tensors of a case came from, as its caller knows it. A NULL
 * (or zeroed) source: every input regenerated from the case's seed, the
 * outputs produced by the contract's kernel (a harness run, and its
 * replay). */
typedef struct {
    int ninputs; /* inputs read from files; the others come from the seed */
    tp_source_file inputs[TP_SOURCE_MAX];
    int outputs_from_files; /* the kernel was not run: outputs[] were read (tolproof check) */
    int noutputs;
    tp_source_file outputs[TP_SOURCE_MAX];
    int ninitial; /* outputs' pre-launch content read from files */
    tp_source_file initial[TP_SOURCE_MAX];
    const json_t *model_overrides; /* {KEY: value} changed from the contract's [model], or NULL */
    int nskipped;                  /* outputs not given, hence not checked */
    const char *skipped[TP_SOURCE_MAX];
    /* When set: called before anything reads the files' records (their
     * sha256 may still be computed in the background until then). */
    void (*wait)(void *arg);
    void *wait_arg;
} tp_case_source;

/* Inputs given to a harness with --input: it keeps a copy of each as
 * outputs/CASE/input_NAME.npy (relative to the run directory), which a
 * replay reads. Fills src->inputs from a case result's "inputs_from"
 * ({NAME: sha256}, NULL for none) in the case's tensor order, citing
 * those copies; paths holds their names. */
#define TP_SOURCE_PATH 600
void tp_case_source_copies(tp_case_source *src, const tp_case *c, const json_t *inputs_from,
                           char paths[TP_SOURCE_MAX][TP_SOURCE_PATH]);

/* Says the Evidence and Non-claims of one checked case into out: the
 * runtime's, with the op's (op->say) in between. plan is the plan the case
 * was checked under, outputs the case result's "outputs" object. */
void tp_case_statements(const tp_plan *plan, const tp_op *op, const tp_case *c, const tp_case_source *src,
                        const json_t *outputs, double atol, double rtol, tp_statements *out);

/* The list of one kind as results.json holds it: [{"id": ..., "text": ...}]. */
json_t *tp_statements_json(const tp_statements *s, tp_statement_kind kind);

/* The registry: calls each() for every statement a check can make, the
 * runtime's first (producer "runtime"), then every registered op's
 * (producer the op's name), in declaration order. */
void tp_statement_registry(void (*each)(const tp_statement *st, const char *producer, void *ctx), void *ctx);
/* The declaration of an id, or NULL. */
const tp_statement *tp_statement_find(const char *id);
#endif
