/* A resolved plan: what gen/tpgen.py plan writes from a contract (JSON),
 * read once into these structs by core/tp_plan_json.c and used by the
 * harness runtime, the checker and the tolproof command. Shapes, index
 * ranges, requirements and the launch shape stay expressions over the
 * dims (core/tp_expr.h): a case gives them values (core/tp_case.h). */
#ifndef TP_PLAN_H
#define TP_PLAN_H
#include "core/tp_tensor.h"
#include "core/tp_value.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TP_ROLE_INPUT = 0, TP_ROLE_OUTPUT } tp_role;

typedef struct {
    char *name;
    tp_role role;
    tp_dtype dtype;
    int rank;
    char *shape[TP_MAX_RANK]; /* one expression per extent */
    /* Outputs: the contents before the launch: "poison" (all bits set,
     * also when NULL), "zeros" or an f16 fill (core/tp_rng.h). */
    char *init;
    /* Index inputs: the range [values[0], values[1]) the kernel can take,
     * as expressions; both NULL when the contract declares none. */
    char *values[2];
} tp_plan_tensor;

/* A condition on the dims that every case must meet, and why. */
typedef struct {
    char *expr, *message;
} tp_plan_require;

/* What a case expects of a kernel that meets the contract (`expect` of
 * the contract's case; harness/tp_expect.h says what follows from it). A
 * plan written before cases carried the key (the recorded runs) leaves it
 * TP_EXPECT_UNSTATED: such a case expects a pass unless the current
 * contract's plan says otherwise (`--expect-from`). */
typedef enum { TP_EXPECT_UNSTATED = 0, TP_EXPECT_PASS, TP_EXPECT_REFUSED, TP_EXPECT_VIOLATED } tp_expected;

/* "pass", "refused" or "violated" (UNSTATED reads "pass": its default). */
const char *tp_expected_word(tp_expected e);

typedef struct {
    char *name;
    uint64_t seed;
    /* The value of each dim of the plan, in the plan's order; checked
     * (positive) when the case is built, so that a plan can record a
     * case the contract refuses. */
    int64_t dims[TP_MAX_DIMS];
    /* Per tensor of the plan: the fill of an input; NULL for outputs (and
     * for an input the case forgot, refused when it is built). */
    char *fill[TP_MAX_TENSORS];
    char *note;
    tp_expected expect;
    /* The case's watchdog in seconds (the contract's timeout_s): a case whose
     * device work takes longer is recorded as an error "by": "timeout"
     * (harness/tp_supervise.h). 0 when the contract gives none: the
     * harness's default applies. */
    double timeout_s;
} tp_plan_case;

typedef struct tp_plan {
    char *contract, *contract_file, *contract_sha256;
    char *op;      /* the tp_op (oracles/registry.c) that checks the outputs */
    char *summary; /* one line: what the kernel computes */
    struct {
        char *source; /* path from the repository root */
        char *entry;  /* the __global__ function */
        char *sha256; /* of the source when the plan was made */
        int nargs;
        char **args;  /* tensor and dim names in parameter order */
    } kernel;
    int ndims;
    char *dims[TP_MAX_DIMS];
    int ntensors;
    tp_plan_tensor tensors[TP_MAX_TENSORS];
    int nrequirements;
    tp_plan_require *requirements;
    int ncases;
    tp_plan_case *cases;
    /* The tolerance the kernel's authors claimed, audited per element:
     * |y - exact| <= atol + rtol |exact| (an absent one is 0). */
    struct {
        double atol, rtol;
        char *source;
    } claim;
    /* The launch shape: 1 to 3 block and grid extents and the dynamic
     * shared memory in bytes, as expressions over the dims. */
    struct {
        int nblock, ngrid;
        char *block[3], *grid[3];
        char *shared_bytes;
    } launch;
    tp_value *model; /* the contract's [model] table, as the op reads it */
    /* Plans of the kernels/variants sources: which variant and what it should
     * get; every field NULL for a contract's own kernel. */
    struct {
        char *name, *expect, *contract, *what;
    } variant;
} tp_plan;

/* Reads and validates a plan (from its JSON text or a file): every field
 * the project uses, with its type. NULL with one line in err naming the
 * first field that is missing or of the wrong type. In tp_plan_json.c, the
 * only place that knows the plan is JSON. */
tp_plan *tp_plan_parse(const char *text, char *err, size_t errlen);
tp_plan *tp_plan_load(const char *path, char *err, size_t errlen);
void tp_plan_free(tp_plan *plan);

/* The index of a case or tensor of the plan by name, or -1. */
int tp_plan_case_index(const tp_plan *plan, const char *name);
int tp_plan_tensor_index(const tp_plan *plan, const char *name);

#ifdef __cplusplus
}
#endif
#endif
