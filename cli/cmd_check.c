/* `tolproof check`: the checker of the harnesses, fed from .npy files
 * instead of a launch. The given tensors are the case: their shapes fix
 * the contract's dims, the contract's requirements and index ranges
 * apply, and the result is the harness's case result (tp_check_case),
 * told that its tensors came from the files given (its Evidence cites
 * them instead of seeds and a launch). The check itself is
 * cli/tp_check_tensors.c, which the C API (api/tolproof.h) shares; this
 * file is the command's arguments, help and output files. */
#define _DEFAULT_SOURCE /* strndup */
#include "cli/cmd_check.h"

#include "cli/tp_check_tensors.h"
#include "cli/tp_device_provider.h"
#include "core/tp_dtype.h"
#include "core/tp_timings.h"
#include "harness/tp_ci.h"
#include "harness/tp_ghfmt.h"
#include "harness/tp_junit.h"
#include "harness/tp_report.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char tp_check_usage[] =
    "       tolproof check --contract NAME|PLAN.json --input NAME=FILE.npy... --output NAME=FILE.npy...\n"
    "                      [--initial NAME=FILE.npy] [--model KEY=VALUE]... [--dim NAME=N]...\n"
    "                      [--backend cuda|hip] [--json FILE] [--junit FILE] [--format text|github]\n"
    "                      [--device] [--timings]\n";

/* A printf format: %s is the NumPy descrs of the dtype table. */
static const char check_help[] =
    "check   checks tensors produced by anything (PyTorch, cuBLAS, your own kernel), saved\n"
    "        as .npy (%s, where <V2 holds bfloat16 bit patterns; C order; format 1.0, 2.0 or 3.0), against the\n"
    "        operation and numeric model of a contract, element by element.\n"
    "        --contract NAME  build/gen/NAME.plan.json next to this binary (`ninja plans`\n"
    "                         writes them), or the path of a plan JSON\n"
    "        --input NAME=F   every input of the contract; i64 indices are narrowed to a\n"
    "                         contract's i32 when every value fits (and i32 widened)\n"
    "        --output NAME=F  at least one output; outputs not given are skipped\n"
    "        --initial NAME=F an output's content before the producer ran (embedding_fwd\n"
    "                         leaves out-of-range rows alone); default: the contract's init\n"
    "        --model KEY=VAL  override a key of the contract's [model] (VAL read as JSON,\n"
    "                         else as a string; KEY.SUB for nested tables), e.g.\n"
    "                         accumulation=fp32_faithful for GEMMs that do not round to\n"
    "                         nearest; GEMM contracts already admit any order (order=any)\n"
    "        --dim NAME=N     a dim that no given tensor's shape fixes\n"
    "        --backend B      whose documented device-function ulp bounds apply (default cuda)\n"
    "        --json FILE      the full result (verdicts, worst elements, claim audit,\n"
    "                         Evidence, Non-claims)\n"
    "        --junit FILE     JUnit XML: one testcase per output (\"check/NAME\"), a violation a\n"
    "                         <failure> with the largest err/bound and the first violations,\n"
    "                         bad input an <error>, an output not given <skipped>\n"
    "        --format F       text (the default) or github: also a GitHub workflow annotation\n"
    "                         (::error) per violated output or for bad input\n"
    "        A violation closer to the exact value than any value the model admits is said\n"
    "        to be more accurate than the declared model admits (counted as more_accurate),\n"
    "        with the --model KEY=VALUE of the op's that would admit it. Ops whose admitted\n"
    "        set is one bit pattern (embedding_fwd, a copy) compare bit patterns: NaN\n"
    "        payloads and the sign of zero count.\n"
    "        An infinite or NaN input is bad input (named by tensor and element) unless the\n"
    "        op's model says how it propagates (embedding_fwd copies it).\n"
    "        --device         exact sums of GEMMs (op gemm, transposes included) on the GPU,\n"
    "                         and the element check there from them: libtp_gemm_cuda.so next\n"
    "                         to this binary (or $TP_GEMM_CUDA_LIB). A seeded sample of at\n"
    "                         least 1000 elements (all when fewer; seed from\n"
    "                         $TP_CROSS_CHECK_SEED, else fresh) is compared with the CPU: the\n"
    "                         exact sums, and each element's reference, verdict and\n"
    "                         statistics, bit for bit; a disagreement is an error (exit 2)\n"
    "                         naming the element. The GPU runs the CPU's bound and check\n"
    "                         code (compiled for it), so the result is the CPU path's, plus\n"
    "                         an exact_provider field (provider, device, sample, seed). No\n"
    "                         library or no GPU: one line, exit 2. Other ops: CPU, said so.\n"
    "        --timings        the wall time of each phase on stderr as it ends (reading\n"
    "                         and hashing each file, the GPU probe, each output's reference\n"
    "                         and its element check, and inside op gemm's --device path\n"
    "                         the GPU's phases and the cross-checks; last, the time after\n"
    "                         the files were read)\n"
    "        Exit status: 0 every element within its bound, 1 a violation, 2 bad input.\n";

/* Where the command writes its result, besides the text summary. */
typedef struct {
    const char *json, *junit;
    int github; /* --format github */
    int device; /* --device: the GPU exact provider */
} check_outputs;

static int parse_args(tp_check_request *a, check_outputs *out, int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0)
            return -1;
        if (strcmp(o, "--device") == 0) {
            out->device = 1;
            continue;
        }
        if (strcmp(o, "--timings") == 0) {
            tp_timings_enable(1);
            continue;
        }
        const char *opts[] = {"--contract", "--input", "--output", "--initial", "--model",
                              "--dim",      "--backend", "--json", "--junit",  "--format"};
        int k = -1;
        for (int j = 0; j < 10; j++)
            if (strcmp(o, opts[j]) == 0)
                k = j;
        if (k < 0)
            return tp_check_refuse(a, "unknown argument %s (see tolproof --help)", o);
        if (i + 1 >= argc)
            return tp_check_refuse(a, "%s needs a value", o);
        const char *v = argv[++i];
        if (k == 0)
            a->contract = v;
        else if (k >= 1 && k <= 3) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1])
                return tp_check_refuse(a, "%s %s: expected NAME=FILE.npy", o, v);
            if (a->ng == TP_CHECK_MAX_GIVEN)
                return tp_check_refuse(a, "more than %d tensor files", TP_CHECK_MAX_GIVEN);
            tp_given *g = &a->g[a->ng++];
            g->kind = k == 1 ? "input" : k == 2 ? "output" : "initial";
            g->name = strndup(v, (size_t)(eq - v));
            g->path = eq + 1;
        } else if (k == 4) {
            if (a->nmodels == TP_CHECK_MAX_MODELS)
                return tp_check_refuse(a, "more than %d --model options", TP_CHECK_MAX_MODELS);
            a->models[a->nmodels++] = v;
        } else if (k == 5) {
            if (a->ndimargs == TP_MAX_DIMS)
                return tp_check_refuse(a, "more than %d --dim options", TP_MAX_DIMS);
            a->dimargs[a->ndimargs++] = v;
        } else if (k == 6) {
            if (strcmp(v, "cuda") != 0 && strcmp(v, "hip") != 0)
                return tp_check_refuse(a, "--backend %s: expected cuda or hip", v);
            a->backend = v;
        } else if (k == 7)
            out->json = v;
        else if (k == 8)
            out->junit = v;
        else {
            if (strcmp(v, "text") != 0 && strcmp(v, "github") != 0)
                return tp_check_refuse(a, "--format %s: expected text or github", v);
            out->github = strcmp(v, "github") == 0;
        }
    }
    if (!a->contract)
        return tp_check_refuse(a, "--contract NAME is required (see tolproof --help)");
    return 0;
}

/* --device: the GPU provider is loaded (dlopen, the GPU probed: about
 * 0.1 s on the H200 host) in a thread while the files are read, and
 * waited for before the first reference (tp_check_request.ready). */
typedef struct {
    const char *argv0;
    pthread_t thread;
    int started, joined, rc;
    char err[1600];
} device_load;

static void *device_load_run(void *arg)
{
    device_load *d = arg;
    double t = tp_timing_start();
    d->rc = tp_device_provider_load(d->argv0, d->err, sizeof d->err);
    tp_timing_end(t, "GPU exact provider loaded and the GPU probed (while the files are read)");
    return NULL;
}

static void device_load_join(device_load *d)
{
    if (d->started && !d->joined)
        pthread_join(d->thread, NULL);
    d->joined = 1;
}

static int device_load_wait(void *arg, char *err, size_t errlen)
{
    device_load *d = arg;
    double t = tp_timing_start();
    device_load_join(d);
    tp_timing_end(t, "waited for the GPU exact provider");
    if (d->rc != 0)
        snprintf(err, errlen, "%s", d->err);
    return d->rc;
}

void tp_check_help(FILE *f)
{
    char descrs[64];
    fprintf(f, "usage:\n%s\n", tp_check_usage);
    fprintf(f, check_help, tp_dtype_list(1, descrs, sizeof descrs));
}

int tp_check_main(int argc, char **argv)
{
    static tp_check_request a; /* 1.6 kB of messages and 24 tensors: not on the stack */
    memset(&a, 0, sizeof a);
    a.backend = "cuda";
    a.summary = stdout;
    check_outputs out = {NULL, NULL, 0, 0};
    int rc = parse_args(&a, &out, argc, argv);
    if (rc < 0) {
        tp_check_help(stdout);
        tp_check_request_release(&a);
        return 0;
    }
    /* A contract name is looked up next to the binary (build/tolproof reads
     * build/gen/), so the command works from any directory. */
    char dir[4096];
    const char *slash = strrchr(argv[0], '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s/gen", (int)(slash - argv[0]), argv[0]);
    else
        snprintf(dir, sizeof dir, "build/gen");
    a.plans_dir = dir;
    json_t *res = NULL;
    double t_all = tp_timing_start(), t = t_all;
    static device_load dl; /* 1.6 kB of message: not on the stack */
    memset(&dl, 0, sizeof dl);
    dl.argv0 = argv[0];
    if (rc == 0 && out.device) {
        dl.started = pthread_create(&dl.thread, NULL, device_load_run, &dl) == 0;
        if (!dl.started)
            device_load_run(&dl);
        a.ready = device_load_wait;
        a.ready_arg = &dl;
    }
    if (rc == 0) {
        rc = tp_check_tensors(&a, &res);
        device_load_join(&dl); /* the check was refused before it waited */
        if (out.device && rc != 2 && !json_object_get(res, "exact_provider"))
            printf("--device: op %s has no GPU exact provider: its references were computed on the CPU\n",
                   json_string_value(json_object_get(res, "op")));
    }
    if (rc == 2) {
        fprintf(stderr, "tolproof check: %s\n", a.err);
        res = tp_check_refusal(&a);
    }
    t = tp_timing_start();
    if (out.json && tp_write_json(out.json, res) != 0) {
        fprintf(stderr, "tolproof check: cannot write %s\n", out.json);
        rc = 2;
    }
    /* the CI formats: the result as the one case "check" of the contract */
    if (out.github || out.junit) {
        json_t *one = tp_ci_single_case_results(json_string_value(json_object_get(res, "contract")), "check", res);
        tp_ci_suite suite = {.name = json_string_value(json_object_get(one, "contract")), .results = one};
        if (out.github)
            tp_ghfmt_write(stdout, &suite, 1);
        if (out.junit && tp_junit_write_file(out.junit, &suite, 1) != 0) {
            fprintf(stderr, "tolproof check: cannot write %s\n", out.junit);
            rc = 2;
        }
        json_decref(one);
    }
    if (out.json)
        tp_timing_end(t, "JSON written");
    json_decref(res);
    tp_check_request_release(&a);
    tp_timing_end(t_all, "whole check after argument parsing");
    if (a.files_read_at > 0) /* what the baseline (reference plus allclose on tensors in memory) compares with */
        tp_timing_end(a.files_read_at, "after the files were read");
    if (out.device && dl.joined && dl.rc == 0) {
        /* Everything is written (the files were closed and renamed into
         * place; stdout and stderr are flushed here). What is left is the
         * CUDA runtime's exit handler, which tears the GPU context down:
         * 0.09 s of a 0.64 s 4096^3 check on the H200 host, for nothing,
         * since the driver releases all of a process's GPU state when it
         * ends. So the process ends here, without the exit handlers. */
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    return rc;
}
