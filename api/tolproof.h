/* The C API of tolproof: `tolproof check` on tensors in memory, for
 * programs and language bindings (python/tolproof calls it through
 * ctypes). build/libtolproof.so exports these functions and nothing else;
 * they run the command's own code path (cli/tp_check_tensors.c), so a
 * result is the JSON `tolproof check --json` writes and a refusal is the
 * line it prints.
 *
 * Stable: TOLPROOF_API_VERSION changes when a signature or the meaning of
 * a field does; new functions may be added without a change. */
#ifndef TOLPROOF_API_H
#define TOLPROOF_API_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TOLPROOF_API_VERSION 1

/* One tensor of the check: either a .npy file (path set) or memory. */
typedef struct {
    const char *kind;   /* "input", "output" or "initial" (an output's content before the producer ran) */
    const char *name;   /* the contract's tensor name */
    const char *path;   /* a .npy file to read, exactly as `tolproof check --input NAME=PATH`; or NULL */
    /* memory (path NULL): */
    const char *dtype;    /* NumPy dtype string of the data: "<f2", "<f4", "<i4", "<i8", or "<V2" (bfloat16 bits) */
    int rank;             /* 0 to 4 */
    const int64_t *shape; /* rank extents */
    const void *data;     /* C order, little-endian; read during the call only */
    const char *origin;   /* what the result and messages call it, e.g. "numpy.ndarray" (NULL: "array") */
} tolproof_tensor;

/* Checks the tensors against a contract.
 *   contract   a name, looked up as PLANS_DIR/NAME.plan.json, or the path of a plan JSON
 *   plans_dir  NULL: gen/ beside this library (build/gen for build/libtolproof.so)
 *   backend    NULL or "cuda", or "hip": whose documented device-function ulp bounds apply
 *   model      nmodel strings KEY=VALUE, as `--model` (VALUE read as JSON, else a string)
 *   dims       ndims strings NAME=N, as `--dim`
 * Returns 0 when every given output lies within its bound, 1 on a
 * violation, 2 when the check is refused (bad input: wrong dtype or shape,
 * a missing tensor, an unknown model key, ...), -1 when out of memory.
 * *json (if json is not NULL) receives the result exactly as `--json`
 * writes it (for a refusal: verdict "refused" and its reason), *text (if
 * text is not NULL) the summary the command prints, or for a refusal the
 * one-line reason it prints after "tolproof check: ". Free both with
 * tolproof_free.
 * With TOLPROOF_TIMINGS=1 in the environment, the call writes the wall
 * time of each phase to stderr as it ends, as `tolproof check --timings`
 * does. */
int tolproof_check(const char *contract, const char *plans_dir, const char *backend, const tolproof_tensor *tensors,
                   int ntensors, const char *const *model, int nmodel, const char *const *dims, int ndims, char **json,
                   char **text);

/* Where op gemm's exact sums are computed in the tolproof_check calls of
 * this process that follow: on the GPU (on != 0), as `tolproof check
 * --device` does, or on the CPU (on == 0, the default). The GPU exact
 * provider is lib_path when not NULL, else $TP_GEMM_CUDA_LIB, else
 * libtp_gemm_cuda.so beside this library; it is loaded and its GPU probed
 * once, and stays loaded. Returns 0, or 2 with the one-line reason in
 * *err (when err is not NULL; free it with tolproof_free): the library
 * missing or not the provider, or no GPU; the CPU path is then in use.
 * Other ops compute on the CPU either way; a result whose sums came from
 * the GPU has the field exact_provider. */
int tolproof_gpu_exact(int on, const char *lib_path, char **err);

/* Frees a string tolproof_check returned. */
void tolproof_free(char *p);

/* TOLPROOF_API_VERSION of the library (a binding checks it matches its own). */
int tolproof_api_version(void);

/* Where the library looks up contract names (gen/ beside it). */
const char *tolproof_plans_dir(void);

#ifdef __cplusplus
}
#endif
#endif
