/* The C API (api/tolproof.h) over the command's code path: the tensors
 * become a tp_check_request exactly as `tolproof check`'s options do, and
 * the result is serialized as its --json file is. */
#define _GNU_SOURCE /* dladdr, open_memstream */
#include "api/tolproof.h"

#include "cli/tp_check_tensors.h"
#include "cli/tp_device_provider.h"
#include "core/tp_timings.h"
#include "oracles/gemm/gemm_exact_provider.h"

#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

/* harness/tp_report.c's fill_json writes results.json and --json files
 * with these flags; tests/python (test_api.py) compares the two byte for
 * byte, so a change there that is not made here fails a test. */
#define RESULT_JSON_FLAGS (JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(17))

API int tolproof_api_version(void) { return TOLPROOF_API_VERSION; }

API const char *tolproof_plans_dir(void)
{
    static char dir[4200];
    if (!dir[0]) {
        Dl_info info;
        const char *lib = dladdr((void *)tolproof_plans_dir, &info) && info.dli_fname ? info.dli_fname : "";
        const char *slash = strrchr(lib, '/');
        if (slash)
            snprintf(dir, sizeof dir, "%.*s/gen", (int)(slash - lib), lib);
        else
            snprintf(dir, sizeof dir, "gen");
    }
    return dir;
}

API void tolproof_free(char *p) { free(p); }

API int tolproof_gpu_exact(int on, const char *lib_path, char **err)
{
    /* the provider once loaded, and the library it came from */
    static const tp_gemm_exact_provider *loaded;
    static char loaded_from[4200];
    if (err)
        *err = NULL;
    if (!on) {
        tp_gemm_exact_provider_set(NULL);
        return 0;
    }
    char path[4200], why[1200] = "";
    const char *env = getenv("TP_GEMM_CUDA_LIB");
    if (lib_path)
        snprintf(path, sizeof path, "%s", lib_path);
    else if (env && *env)
        snprintf(path, sizeof path, "%s", env);
    else {
        const char *dir = tolproof_plans_dir(); /* DIR/gen: the library's folder */
        snprintf(path, sizeof path, "%.*s/libtp_gemm_cuda.so", (int)(strlen(dir) - 4), dir);
    }
    if (loaded && strcmp(path, loaded_from) == 0) {
        tp_gemm_exact_provider_set(loaded);
        return 0;
    }
    tp_gemm_exact_provider_set(NULL);
    if (tp_device_provider_load_path(path, why, sizeof why) != 0) {
        if (err)
            *err = strdup(why);
        return 2;
    }
    loaded = tp_gemm_exact_provider_get();
    snprintf(loaded_from, sizeof loaded_from, "%s", path);
    return 0;
}

/* A memory tensor's shape as the request holds it; refused (2) with the
 * reason in r->err when it cannot be one. */
static int take_memory(tp_check_request *r, tp_given *g, const tolproof_tensor *t)
{
    const char *what = t->origin ? t->origin : "array";
    if (!t->dtype)
        return tp_check_refuse(r, "%s %s: %s: no dtype given", g->kind, g->name, what);
    if (t->rank < 0 || t->rank > TP_MAX_RANK)
        return tp_check_refuse(r, "%s %s: %s has %d dimensions (at most %d are supported)", g->kind, g->name, what,
                               t->rank, TP_MAX_RANK);
    if (t->rank > 0 && !t->shape)
        return tp_check_refuse(r, "%s %s: %s: no shape given", g->kind, g->name, what);
    int64_t numel = 1;
    for (int d = 0; d < t->rank; d++) {
        /* the .npy reader's limit: 2^40 elements, so that sizes never overflow */
        if (t->shape[d] < 0 || (t->shape[d] > 0 && numel > ((int64_t)1 << 40) / t->shape[d]))
            return tp_check_refuse(r, "%s %s: %s: extent %lld of dimension %d (expected 0 to 2^40 elements in all)",
                                   g->kind, g->name, what, (long long)t->shape[d], d);
        numel *= t->shape[d];
        g->shape[d] = t->shape[d];
    }
    if (numel > 0 && !t->data)
        return tp_check_refuse(r, "%s %s: %s: no data given", g->kind, g->name, what);
    g->rank = t->rank;
    g->descr = t->dtype;
    g->mem = t->data;
    g->origin = what;
    return 0;
}

static int fill_request(tp_check_request *r, const tolproof_tensor *tensors, int ntensors, const char *const *model,
                        int nmodel, const char *const *dims, int ndims)
{
    if (ntensors < 0 || ntensors > TP_CHECK_MAX_GIVEN)
        return tp_check_refuse(r, "%d tensors given (expected at most %d)", ntensors, TP_CHECK_MAX_GIVEN);
    if (nmodel < 0 || nmodel > TP_CHECK_MAX_MODELS)
        return tp_check_refuse(r, "more than %d --model options", TP_CHECK_MAX_MODELS);
    if (ndims < 0 || ndims > TP_MAX_DIMS)
        return tp_check_refuse(r, "more than %d --dim options", TP_MAX_DIMS);
    for (int i = 0; i < nmodel; i++)
        r->models[r->nmodels++] = model[i];
    for (int i = 0; i < ndims; i++)
        r->dimargs[r->ndimargs++] = dims[i];
    for (int i = 0; i < ntensors; i++) {
        const tolproof_tensor *t = &tensors[i];
        const char *kinds[] = {"input", "output", "initial"};
        int k = -1;
        for (int j = 0; j < 3; j++)
            if (t->kind && strcmp(t->kind, kinds[j]) == 0)
                k = j;
        if (k < 0)
            return tp_check_refuse(r, "tensor %d: kind %s (expected input, output or initial)", i,
                                   t->kind ? t->kind : "(none)");
        if (!t->name || !t->name[0])
            return tp_check_refuse(r, "%s %d: no name given", kinds[k], i);
        tp_given *g = &r->g[r->ng++];
        g->kind = kinds[k];
        g->name = strdup(t->name);
        if (!g->name)
            return -1;
        g->path = t->path;
        if (!t->path && take_memory(r, g, t) != 0)
            return 2;
    }
    return 0;
}

API int tolproof_check(const char *contract, const char *plans_dir, const char *backend, const tolproof_tensor *tensors,
                       int ntensors, const char *const *model, int nmodel, const char *const *dims, int ndims,
                       char **json, char **text)
{
    if (json)
        *json = NULL;
    if (text)
        *text = NULL;
    /* TOLPROOF_TIMINGS=1: each phase's wall time on stderr as it ends, as
     * the command's --timings (read per call, so a process can turn it on
     * for one call). */
    const char *timings = getenv("TOLPROOF_TIMINGS");
    tp_timings_enable(timings && *timings && strcmp(timings, "0") != 0);
    const double t_call = tp_timing_start();
    tp_check_request *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->contract = contract;
    r->plans_dir = plans_dir ? plans_dir : tolproof_plans_dir();
    r->backend = backend ? backend : "cuda";
    char *summary = NULL;
    size_t summary_len = 0;
    r->summary = text ? open_memstream(&summary, &summary_len) : NULL;
    json_t *res = NULL;
    int rc;
    if (text && !r->summary)
        rc = -1;
    else if (strcmp(r->backend, "cuda") != 0 && strcmp(r->backend, "hip") != 0)
        rc = tp_check_refuse(r, "--backend %s: expected cuda or hip", r->backend);
    else if (!contract)
        rc = tp_check_refuse(r, "--contract NAME is required (see tolproof --help)");
    else
        rc = fill_request(r, tensors, ntensors, model, nmodel, dims, ndims);
    if (rc == 0)
        rc = tp_check_tensors(r, &res);
    if (r->summary)
        fclose(r->summary);
    if (rc == 2) {
        json_decref(res);
        res = tp_check_refusal(r);
        free(summary);
        summary = strdup(r->err);
    }
    if (rc >= 0 && json && !(*json = json_dumps(res, RESULT_JSON_FLAGS)))
        rc = -1;
    if (rc >= 0 && text)
        *text = summary;
    else
        free(summary);
    json_decref(res);
    tp_check_request_release(r);
    free(r);
    tp_timing_end(t_call, "whole tolproof_check call");
    return rc;
}
