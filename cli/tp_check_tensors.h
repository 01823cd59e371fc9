/* Checks given tensors against a contract: the one code path of
 * `tolproof check` (tensors from .npy files) and of the C API
 * (api/tolproof.h; tensors in memory, e.g. NumPy or PyTorch arrays). The
 * given tensors are the case: their shapes fix the contract's dims, the
 * contract's requirements and index ranges apply, and the result is the
 * harness's case result (tp_check_case), told where its tensors came from. */
#ifndef TP_CHECK_TENSORS_H
#define TP_CHECK_TENSORS_H
#include "core/tp_dtype.h"
#include "core/tp_tensor.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#define TP_CHECK_MAX_GIVEN 24
#define TP_CHECK_MAX_MODELS 32

/* One given tensor: a .npy file (path), or memory (path NULL). */
typedef struct {
    const char *kind; /* "input", "output", "initial" */
    char *name;       /* owned: tp_check_request_release frees it */
    const char *path; /* the .npy file to read, or NULL */
    /* a tensor in memory (path NULL): C order, little-endian */
    const char *descr;  /* its NumPy dtype string ("<f2", "<f4", "<i4", "<i8", "<V2") */
    const void *mem;    /* rank and shape below; copied, never kept */
    const char *origin; /* what messages and the result call it ("numpy.ndarray") */
    /* set by the check */
    tp_dtype dt;
    int rank;
    int64_t shape[TP_MAX_RANK];
    void *data;
    char sha[65];          /* of the file, or of the tensor's .npy encoding (format 1.0) */
    const char *converted; /* a note when an index tensor was widened or narrowed */
} tp_given;

typedef struct {
    tp_given g[TP_CHECK_MAX_GIVEN];
    int ng;
    const char *models[TP_CHECK_MAX_MODELS]; /* "KEY=VALUE", as --model */
    const char *dimargs[TP_MAX_DIMS];        /* "NAME=N", as --dim */
    int nmodels, ndimargs;
    const char *contract;  /* a name (plans_dir/NAME.plan.json) or the path of a plan JSON */
    const char *plans_dir; /* where names are looked up */
    const char *backend;   /* "cuda" or "hip" */
    FILE *summary;         /* the text summary `tolproof check` prints, or NULL */
    char err[1600];        /* why the check was refused (exit status 2) */
    /* When set: called once the tensors are read and the case built, just
     * before the first reference; non-zero (err set, one line) refuses the
     * check. `tolproof check --device` waits there for the GPU provider it
     * loads in the background while the files are read. */
    int (*ready)(void *arg, char *err, size_t errlen);
    void *ready_arg;
    /* Set by tp_check_tensors: tp_timing_start() once every file is read
     * (0 with --timings off), for the phase "after the files were read". */
    double files_read_at;
} tp_check_request;

/* 0 every given output within its bound, 1 a violation (*result: the case
 * result as --json writes it), 2 refused: r->err says why in one line. */
int tp_check_tensors(tp_check_request *r, json_t **result);

/* What --json writes for a refusal: verdict, reason and the contract. */
json_t *tp_check_refusal(const tp_check_request *r);

/* The refusal of a request that cannot be made (too many tensors, a bad
 * option): sets r->err, returns 2. */
int tp_check_refuse(tp_check_request *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Frees the names and tensor data a request holds. */
void tp_check_request_release(tp_check_request *r);
#endif
