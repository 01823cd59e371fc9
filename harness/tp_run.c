/* The recording layer of the harness runtime: arguments, the cases of the
 * plan, their checks and the run directory (tp_harness.h). main and the
 * launch loop on top of it are in tp_main.c. */
#define _POSIX_C_SOURCE 200809L
#include "harness/tp_harness.h"

#include "core/tp_case.h"
#include "core/tp_npy.h"
#include "core/tp_op.h"
#include "core/tp_sha256.h"
#include "harness/tp_check.h"
#include "harness/tp_ci.h"
#include "harness/tp_ghfmt.h"
#include "harness/tp_junit.h"
#include "harness/tp_report.h"
#include "harness/tp_supervise.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tp_run {
    const tp_harness_info *info;
    tp_plan *plan;
    char out[2048];
    /* the outermost directory of out that this run created ("" when out
     * already existed): tp_run_abandon removes what is still empty of it */
    char made[2048];
    char root[2048];
    const char *selected[64];
    int nselected;
    int reps;
    json_t *results; /* reproducible */
    json_t *timing;  /* not reproducible */
    tp_case *current;
    /* --input NAME=FILE: replaces a generated input of every selected case */
    struct {
        const char *name, *path;
    } inputs[8];
    int ninputs;
    int dump_inputs;
    json_t *inputs_from; /* of the current case: {NAME: sha256 of FILE} */
    int quiet;           /* a supervised child: the supervisor prints the case lines */
    int keep_partial;    /* results.partial.json after every record (tp_supervise.h) */
    const char *junit;   /* --junit FILE: the run as JUnit XML (tp_junit.h) */
    int github;          /* --format github: workflow annotations on stdout (tp_ghfmt.h) */
};

static void usage(const tp_harness_info *info, const tp_plan *plan, FILE *f)
{
    fprintf(f,
            "usage: harness_%s [--out DIR] [--case NAME]... [--reps N] [--root DIR]\n"
            "       [--input NAME=FILE.npy]... [--dump-inputs] [--case-timeout SECONDS]\n"
            "       [--in-process] [--junit FILE] [--format text|github] [--list] [--help]\n"
            "Runs kernel %s (%s) on every case of contract %s, checks every output element\n"
            "against the exact reference and the bound of the contract's numeric model, and writes\n"
            "DIR/results.json, results.tap, results.md, timing.json, plan.json and the\n"
            "outputs as DIR/outputs/CASE/TENSOR.npy (default DIR: build/runs/%s/%s).\n"
            "--input NAME=FILE.npy replaces input tensor NAME of each selected case (use with\n"
            "--case) by the file's contents; a NAME that is not an input or a file that does not\n"
            "open is refused at once (exit 2, before any device is opened), a file whose dtype,\n"
            "element count, shape or index range does not fit the case refuses the case before\n"
            "any launch. The file is copied to DIR/outputs/CASE/input_NAME.npy and its SHA-256\n"
            "recorded (\"inputs_from\"), so `tolproof replay` re-derives the case from it.\n"
            "--dump-inputs also writes every generated input there.\n"
            "The cases run in a child process, so that a kernel that faults (an illegal address:\n"
            "the context is lost) or hangs is that case's outcome, verdict \"error\" with \"by\":\n"
            "\"fault\" and the CUDA/HIP error text, or \"by\": \"timeout\", and the other cases still\n"
            "run (in a fresh process); a CUDA/HIP call that fails with the context intact is\n"
            "\"by\": \"device\", in the same process. The watchdog limits each case's device work (buffers,\n"
            "copies, launches) to the case's timeout_s in the contract, else 60 s;\n"
            "--case-timeout SECONDS sets it for every case. --in-process runs the cases in this\n"
            "process, without that isolation. DIR/results.partial.json holds the records of the\n"
            "cases finished so far while the run goes on; every result file is written whole\n"
            "(a temporary file renamed), so a run killed midway leaves no truncated file.\n"
            "--junit FILE also writes the run as JUnit XML: one testcase per case and output, a\n"
            "violation a <failure> with the largest err/bound and the first violations, a refusal\n"
            "or an error an <error>, a case not selected <skipped>; a case with its expected\n"
            "outcome passes (an expected refusal or violation says so in <system-out>).\n"
            "--format github also prints GitHub workflow annotations on stdout at the end: an\n"
            "::error line per failing case or output, a ::notice per expected refusal or violation.\n"
            "A case may expect a refusal or a violation (expect = \"refused\" or \"violated\" in the\n"
            "contract; the default is a pass); every case without its expected outcome is named\n"
            "on stderr (\"unexpected outcome: CONTRACT/CASE: expected E, got G\").\n"
            "Exit status: 0 every case run has its expected outcome, 1 a case's verdict is not\n"
            "the expected one (a violation where a pass was expected, a pass where a violation or\n"
            "a refusal was), 2 a case refused or in error against its expectation, bad arguments,\n"
            "a kernel source changed since the build, or results that cannot be written, 3 no GPU\n"
            "(nothing is written then).\n",
            plan->contract, plan->kernel.source, info->backend, plan->contract, info->backend, plan->contract);
}

static void free_run(tp_run *run)
{
    json_decref(run->results);
    json_decref(run->timing);
    json_decref(run->inputs_from);
    tp_case_free(run->current);
    for (int k = 0; k < run->ninputs; k++)
        free((char *)run->inputs[k].name);
    tp_plan_free(run->plan);
    free(run);
}

/* The arguments into run; TP_RUN_READY, or TP_RUN_DONE after --help or
 * --list, or TP_RUN_ERROR after a message. */
static int parse_args(tp_run *run, int argc, char **argv)
{
    const tp_harness_info *info = run->info;
    const char *contract = run->plan->contract;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(info, run->plan, stdout);
            return TP_RUN_DONE;
        } else if (strcmp(a, "--list") == 0) {
            list = 1;
        } else if (strcmp(a, "--out") == 0 && more) {
            if (snprintf(run->out, sizeof run->out, "%s", argv[++i]) >= (int)sizeof run->out) {
                fprintf(stderr, "--out %s: the path is longer than %zu bytes\n", argv[i], sizeof run->out - 1);
                return TP_RUN_ERROR;
            }
        } else if (strcmp(a, "--root") == 0 && more) {
            if (snprintf(run->root, sizeof run->root, "%s", argv[++i]) >= (int)sizeof run->root) {
                fprintf(stderr, "--root %s: the path is longer than %zu bytes\n", argv[i], sizeof run->root - 1);
                return TP_RUN_ERROR;
            }
        } else if (strcmp(a, "--reps") == 0 && more) {
            run->reps = atoi(argv[++i]);
            if (run->reps < 1 || run->reps > 10000) {
                fprintf(stderr, "--reps %s: expected an integer from 1 to 10000\n", argv[i]);
                return TP_RUN_ERROR;
            }
        } else if (strcmp(a, "--junit") == 0 && more) {
            run->junit = argv[++i];
        } else if (strcmp(a, "--format") == 0 && more) {
            const char *v = argv[++i];
            if (strcmp(v, "github") != 0 && strcmp(v, "text") != 0) {
                fprintf(stderr, "--format %s: expected text or github\n", v);
                return TP_RUN_ERROR;
            }
            run->github = strcmp(v, "github") == 0;
        } else if (strcmp(a, "--dump-inputs") == 0) {
            run->dump_inputs = 1;
        } else if (strcmp(a, "--input") == 0 && more) {
            const char *spec = argv[++i], *eq = strchr(spec, '=');
            if (!eq || eq == spec || !eq[1] || eq - spec > 63) {
                fprintf(stderr, "--input %s: expected NAME=FILE.npy (NAME an input tensor of contract %s)\n", spec,
                        contract);
                return TP_RUN_ERROR;
            }
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
            for (int k = 0; k < run->ninputs; k++)
                if (strcmp(run->inputs[k].name, name) == 0) {
                    fprintf(stderr, "--input %s: tensor %s is given twice\n", spec, name);
                    return TP_RUN_ERROR;
                }
            if (run->ninputs == 8) {
                fprintf(stderr, "--input %s: at most 8 --input options\n", spec);
                return TP_RUN_ERROR;
            }
            if (!(run->inputs[run->ninputs].name = strdup(name))) {
                fprintf(stderr, "--input %s: out of memory\n", spec);
                return TP_RUN_ERROR;
            }
            run->inputs[run->ninputs++].path = eq + 1;
        } else if (strcmp(a, "--case") == 0 && more) {
            const char *name = argv[++i];
            if (tp_plan_case_index(run->plan, name) < 0) {
                fprintf(stderr, "--case %s: contract %s has no such case (--list shows them)\n", name, contract);
                return TP_RUN_ERROR;
            }
            if (run->nselected < 64)
                run->selected[run->nselected++] = name;
        } else {
            fprintf(stderr, "unknown or incomplete argument %s\n", a);
            usage(info, run->plan, stderr);
            return TP_RUN_ERROR;
        }
    }
    if (list) {
        for (int i = 0; i < run->plan->ncases; i++)
            printf("%s\t%s\n", run->plan->cases[i].name, run->plan->cases[i].note);
        return TP_RUN_DONE;
    }
    return TP_RUN_READY;
}

/* Each --input names an input tensor of the plan and a file that opens,
 * checked before the device is opened: a typo is a refusal on any machine,
 * not something only a GPU run finds. Its dtype, shape and values are
 * checked per case (tp_run_case_begin), against that case's dims. */
static int check_input_args(const tp_run *run)
{
    const tp_plan *plan = run->plan;
    char inputs[300] = "";
    size_t n = 0;
    for (int t = 0; t < plan->ntensors && n < sizeof inputs; t++)
        if (plan->tensors[t].role == TP_ROLE_INPUT)
            n += (size_t)snprintf(inputs + n, sizeof inputs - n, "%s%s", n ? ", " : "", plan->tensors[t].name);
    for (int k = 0; k < run->ninputs; k++) {
        const char *name = run->inputs[k].name, *path = run->inputs[k].path;
        int t = tp_plan_tensor_index(plan, name);
        if (t < 0 || plan->tensors[t].role != TP_ROLE_INPUT) {
            if (t < 0)
                fprintf(stderr, "--input %s=%s: contract %s has no tensor %s (its inputs: %s)\n", name, path,
                        plan->contract, name, inputs);
            else
                fprintf(stderr, "--input %s=%s: %s is an output of contract %s, not an input (its inputs: %s)\n",
                        name, path, name, plan->contract, inputs);
            return -1;
        }
        struct stat st;
        FILE *f = fopen(path, "rb");
        if (!f || fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode)) {
            if (!f)
                fprintf(stderr, "--input %s=%s: cannot open: %s\n", name, path, strerror(errno));
            else {
                fprintf(stderr, "--input %s=%s: is a directory, not a .npy file\n", name, path);
                fclose(f);
            }
            return -1;
        }
        fclose(f);
    }
    return 0;
}

/* The outermost missing directory on the way to path into made ("" when
 * path exists), before tp_mkdirs creates them. */
static void first_missing(const char *path, char *made, size_t len)
{
    char buf[2048];
    struct stat st;
    made[0] = 0;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++)
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (stat(buf, &st) != 0) {
                snprintf(made, len, "%s", buf);
                return;
            }
            if (!c)
                return;
            *p = c;
        }
}

/* The binary must still match its source: a kernel edited after the build
 * would otherwise be reported under the old fingerprint. */
static int check_fingerprint(const tp_run *run)
{
    const tp_plan *plan = run->plan;
    char path[4200], sha[65];
    snprintf(path, sizeof path, "%s/%s", run->root, plan->kernel.source);
    if (tp_sha256_file(path, sha) != 0) {
        fprintf(stderr, "%s: cannot read the kernel source %s to check its fingerprint (use --root)\n",
                plan->contract, path);
        return -1;
    }
    if (strcmp(sha, plan->kernel.sha256) != 0) {
        fprintf(stderr, "%s: %s has changed since this harness was built (sha256 %s, built from %s): rebuild it\n",
                plan->contract, path, sha, plan->kernel.sha256);
        return -1;
    }
    return 0;
}

int tp_run_open(int argc, char **argv, const tp_harness_info *info, tp_run **out)
{
    *out = NULL;
    tp_run *run = calloc(1, sizeof *run);
    if (!run) {
        fprintf(stderr, "harness: out of memory\n");
        return TP_RUN_ERROR;
    }
    run->info = info;
    run->reps = 20;
    char err[512];
    run->plan = tp_plan_parse(info->plan_json, err, sizeof err);
    if (!run->plan) {
        fprintf(stderr, "harness: embedded plan: %s\n", err);
        free_run(run);
        return TP_RUN_ERROR;
    }
    const char *contract = run->plan->contract;
    snprintf(run->root, sizeof run->root, ".");
    int status = TP_RUN_READY;
    if (snprintf(run->out, sizeof run->out, "build/runs/%s/%s", info->backend, contract) >= (int)sizeof run->out) {
        fprintf(stderr, "%s: the contract's name is too long for a run directory\n", contract);
        status = TP_RUN_ERROR;
    }
    if (status == TP_RUN_READY)
        status = parse_args(run, argc, argv);
    if (status == TP_RUN_READY && (check_input_args(run) != 0 || check_fingerprint(run) != 0))
        status = TP_RUN_ERROR;
    if (status == TP_RUN_READY)
        first_missing(run->out, run->made, sizeof run->made);
    if (status == TP_RUN_READY && tp_mkdirs(run->out) != 0) {
        fprintf(stderr, "%s: cannot create %s\n", contract, run->out);
        status = TP_RUN_ERROR;
    }
    if (status == TP_RUN_READY) {
        run->results = json_pack("{s:s,s:s,s:[]}", "contract", contract, "backend", info->backend, "cases");
        run->timing = json_object();
        if (!run->results || !run->timing) {
            fprintf(stderr, "%s: out of memory\n", contract);
            status = TP_RUN_ERROR;
        }
    }
    if (status != TP_RUN_READY) {
        free_run(run);
        return status;
    }
    *out = run;
    return TP_RUN_READY;
}

const tp_plan *tp_run_plan(const tp_run *run) { return run->plan; }

void tp_run_set_device(tp_run *run, const char *name, const char *arch, int driver_version, int runtime_version)
{
    json_object_set_new(run->results, "device",
                        json_pack("{s:s,s:s,s:i,s:i}", "name", name, "arch", arch, "driver_version", driver_version,
                                  "runtime_version", runtime_version));
}

int tp_run_ncases(const tp_run *run) { return run->plan->ncases; }
int tp_run_reps(const tp_run *run) { return run->reps; }

static const char *case_name(const tp_run *run, int i) { return run->plan->cases[i].name; }

const json_t *tp_run_case_records(const tp_run *run) { return json_object_get(run->results, "cases"); }

int tp_run_case_selected(const tp_run *run, int i)
{
    if (run->nselected == 0)
        return 1;
    for (int k = 0; k < run->nselected; k++)
        if (strcmp(run->selected[k], case_name(run, i)) == 0)
            return 1;
    return 0;
}

/* results.partial.json: the records so far, so that a run killed before
 * its end keeps them (written atomically: never half a file). */
static void write_partial(const tp_run *run)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/results.partial.json", run->out);
    json_t *p = json_copy(run->results);
    if (!p || json_object_set_new(p, "partial", json_string("the run has not finished: cases not listed have no "
                                                            "result yet (results.json replaces this file at the end)")) != 0 ||
        tp_write_json(path, p) != 0)
        fprintf(stderr, "%s: cannot write %s\n", run->plan->contract, path);
    json_decref(p);
}

static void record(tp_run *run, json_t *cr)
{
    char line[600];
    tp_case_line(line, sizeof line, cr);
    if (!run->quiet)
        fprintf(stderr, "[%zu/%d] %s/%s: %s\n", json_array_size(json_object_get(run->results, "cases")) + 1,
                tp_run_ncases(run), run->plan->contract, json_string_value(json_object_get(cr, "case")), line);
    json_array_append_new(json_object_get(run->results, "cases"), cr);
    if (run->keep_partial)
        write_partial(run);
}

static void record_other(tp_run *run, int i, const char *verdict, const char *by, const char *why)
{
    record(run, json_pack("{s:s,s:s,s:s,s:s}", "case", case_name(run, i), "verdict", verdict, "by", by, "reason", why));
}

tp_case *tp_run_case_begin(tp_run *run, int i)
{
    char err[1200];
    tp_case_free(run->current);
    json_decref(run->inputs_from);
    run->inputs_from = NULL;
    run->current = tp_check_case_build(run->plan, i, run->info->backend, err, sizeof err);
    if (!run->current) {
        record_other(run, i, "refused", "plan", err);
        return NULL;
    }
    if (run->ninputs)
        run->inputs_from = json_object();
    for (int k = 0; k < run->ninputs; k++) {
        char sha[65];
        if (tp_case_load_input(run->plan, run->current, run->inputs[k].name, run->inputs[k].path, sha, err,
                               sizeof err) != 0) {
            record_other(run, i, "refused", "input", err);
            tp_case_free(run->current);
            run->current = NULL;
            return NULL;
        }
        json_object_set_new(run->inputs_from, run->inputs[k].name, json_string(sha));
    }
    /* an infinite or NaN --input is refused before the launch, as the
     * checker would refuse it after (tp_op_check_inputs_finite) */
    const tp_op *op = tp_op_find(run->plan->op);
    if (run->ninputs && op && tp_op_check_inputs_finite(op, run->current, err, sizeof err) != 0) {
        char why[1300];
        snprintf(why, sizeof why, "input %s", err);
        record_other(run, i, "refused", "input", why);
        tp_case_free(run->current);
        run->current = NULL;
        return NULL;
    }
    return run->current;
}

/* Copies a --input file next to the outputs, through a temporary name so
 * that a file given from that very place survives; the copy must still
 * have the checksum the case was built from. */
static int copy_input(const char *from, const char *to, const char *sha, char *err, size_t errlen)
{
    char tmp[4500], got[65];
    snprintf(tmp, sizeof tmp, "%s.tmp", to);
    FILE *in = fopen(from, "rb"), *out = in ? fopen(tmp, "wb") : NULL;
    int ok = in && out;
    char buf[1 << 16];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    ok = ok && !ferror(in);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    ok = ok && tp_sha256_file(tmp, got) == 0 && strcmp(got, sha) == 0 && rename(tmp, to) == 0;
    if (!ok) {
        remove(tmp);
        snprintf(err, errlen, "input file %s could not be copied to %s unchanged (sha256 %s expected)", from, to,
                 sha);
        return -1;
    }
    return 0;
}

void tp_run_case_refuse(tp_run *run, int i, const char *why) { record_other(run, i, "refused", "harness", why); }
void tp_run_case_lost(tp_run *run, int i, const char *by, const char *reason) { record_other(run, i, "error", by, reason); }

void tp_run_case_adopt(tp_run *run, json_t *cr, json_t *timing)
{
    const char *name = json_string_value(json_object_get(cr, "case"));
    if (timing && name)
        json_object_set_new(run->timing, name, timing);
    else
        json_decref(timing);
    record(run, cr);
}

json_t *tp_run_timing_of(const tp_run *run, const char *name) { return json_object_get(run->timing, name); }
double tp_run_case_timeout(const tp_run *run, int i) { return run->plan->cases[i].timeout_s; }
const char *tp_run_case_name(const tp_run *run, int i) { return case_name(run, i); }
const char *tp_run_out_dir(const tp_run *run) { return run->out; }
void tp_run_set_quiet(tp_run *run) { run->quiet = 1; }

void tp_run_keep_partial(tp_run *run)
{
    char path[4200];
    run->keep_partial = 1;
    snprintf(path, sizeof path, "%s/results.json", run->out);
    remove(path);
    write_partial(run);
}
void tp_run_case_error(tp_run *run, int i, const char *what) { record_other(run, i, "error", "device", what); }

void tp_run_case_end(tp_run *run, int i, double ms, int reps)
{
    tp_case *c = run->current;
    /* err holds a message naming two paths (copy_input) */
    char err[2 * 4400 + 200], dir[4200], path[4400];
    snprintf(dir, sizeof dir, "%s/outputs/%s", run->out, c->name);
    tp_mkdirs(dir);
    const tp_plan *plan = run->plan;
    for (int t = 0; t < c->ntensors; t++) {
        if (plan->tensors[t].role != TP_ROLE_OUTPUT)
            continue;
        snprintf(path, sizeof path, "%s/%s.npy", dir, c->tensors[t].name);
        if (tp_npy_write(path, c->tensors[t].dtype, c->tensors[t].rank, c->tensors[t].shape, c->tensors[t].data) != 0)
            fprintf(stderr, "%s: cannot write %s\n", plan->contract, path);
    }
    int copied = 1;
    for (int t = 0; t < c->ntensors; t++) {
        if (plan->tensors[t].role == TP_ROLE_OUTPUT)
            continue;
        const tp_tensor *tt = &c->tensors[t];
        snprintf(path, sizeof path, "%s/input_%s.npy", dir, tt->name);
        json_t *sha = json_object_get(run->inputs_from, tt->name);
        if (sha) {
            for (int k = 0; k < run->ninputs; k++)
                if (strcmp(run->inputs[k].name, tt->name) == 0 &&
                    copy_input(run->inputs[k].path, path, json_string_value(sha), err, sizeof err) != 0)
                    copied = 0;
        } else if (run->dump_inputs && tp_npy_write(path, tt->dtype, tt->rank, tt->shape, tt->data) != 0)
            fprintf(stderr, "%s: cannot write %s\n", plan->contract, path);
    }
    /* --input files are cited by their copies, which a replay reads */
    tp_case_source src = {0};
    char copies[TP_SOURCE_MAX][TP_SOURCE_PATH];
    tp_case_source_copies(&src, c, run->inputs_from, copies);
    json_t *cr = copied ? tp_check_case(run->plan, c, &src, err, sizeof err) : NULL;
    if (!cr)
        record_other(run, i, "error", copied ? "checker" : "input", err);
    else {
        if (run->inputs_from)
            json_object_set(cr, "inputs_from", run->inputs_from);
        record(run, cr);
    }
    json_object_set_new(run->timing, c->name, json_pack("{s:f,s:i}", "kernel_ms_median", ms, "reps", reps));
    tp_case_free(c);
    run->current = NULL;
    json_decref(run->inputs_from);
    run->inputs_from = NULL;
}

/* plan.json of the run: the embedded plan as JSON with sorted keys, as
 * every run directory records it (replay reads it back). */
static int write_plan(const tp_run *run, const char *path)
{
    json_t *plan = json_loads(run->info->plan_json, 0, NULL);
    int rc = plan ? tp_write_json(path, plan) : -1;
    json_decref(plan);
    return rc;
}

int tp_run_close(tp_run *run)
{
    char path[4200];
    const tp_harness_info *in = run->info;
    const tp_plan *plan = run->plan;
    json_t *device = json_object_get(run->results, "device");
    if (!device)
        tp_run_set_device(run, "none", "none", 0, 0);
    json_object_set_new(run->results, "kernel",
                        json_pack("{s:s,s:s}", "source", plan->kernel.source, "sha256", plan->kernel.sha256));
    json_object_set_new(run->results, "compiler_version", json_string(in->compiler_version));
    json_object_set_new(run->results, "build_command", json_string(in->build_command));
    json_object_set_new(run->results, "contract_sha256", json_string(plan->contract_sha256));
    /* a run of some cases says which (in plan order), so that replay can
     * tell a case left out on purpose from a result deleted afterwards */
    if (run->nselected) {
        json_t *sel = json_array();
        for (int i = 0; i < tp_run_ncases(run); i++)
            if (tp_run_case_selected(run, i))
                json_array_append_new(sel, json_string(case_name(run, i)));
        json_object_set_new(run->results, "selected_cases", sel);
    }
    snprintf(path, sizeof path, "%s/plan.json", run->out);
    write_plan(run, path);
    snprintf(path, sizeof path, "%s/results.json", run->out);
    int rc = tp_write_json(path, run->results);
    snprintf(path, sizeof path, "%s/timing.json", run->out);
    rc |= tp_write_json(path, run->timing);
    snprintf(path, sizeof path, "%s/results.tap", run->out);
    rc |= tp_write_tap_file(path, run->results);
    snprintf(path, sizeof path, "%s/results.md", run->out);
    rc |= tp_write_markdown_file(path, run->results, run->timing);
    /* the CI formats, from the same records and the plan's expectations */
    snprintf(path, sizeof path, "%s/results.json", run->out);
    tp_ci_suite suite = {.name = plan->contract, .results = run->results, .plan = plan, .file = path};
    if (run->junit && tp_junit_write_file(run->junit, &suite, 1) != 0) {
        fprintf(stderr, "--junit %s: cannot be written\n", run->junit);
        rc = -1;
    }
    if (run->github)
        tp_ghfmt_write(stdout, &suite, 1);
    if (rc == 0 && run->keep_partial) { /* results.json has replaced it */
        snprintf(path, sizeof path, "%s/results.partial.json", run->out);
        remove(path);
    }
    fprintf(stderr, "%s: results in %s\n", plan->contract, run->out);
    free_run(run);
    return rc ? 2 : 0;
}

void tp_run_abandon(tp_run *run)
{
    if (!run)
        return;
    /* nothing was run: the directories this run made go again, from the
     * innermost up to the outermost it made (run->made, a prefix of
     * run->out); rmdir leaves any that is not empty alone */
    if (run->made[0]) {
        char dir[sizeof run->out];
        size_t stop = strlen(run->made);
        snprintf(dir, sizeof dir, "%s", run->out);
        while (strlen(dir) >= stop && rmdir(dir) == 0) {
            char *slash = strrchr(dir, '/');
            if (!slash)
                break;
            *slash = 0;
        }
    }
    free_run(run);
}
