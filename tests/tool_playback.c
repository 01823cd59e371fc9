/* A stub "GPU" run: a contract's cases through the harness runtime
 * (tp_harness_main: arguments, case building, launch shape and limits,
 * the checker, the run directory and the exit status of expected outcomes)
 * on a host device whose launch writes the outputs of a recorded GPU run
 * (RUN_DIR/outputs/CASE/TENSOR.npy, or the .tpr `tolproof pack` made of
 * it) into the output buffers, as if the
 * kernel had written them. Nothing else changes, and nothing of it is in
 * the runtime: `ninja` on a GPU host runs the same code with tp_gpu.h's
 * device. tests/playback.t runs every recorded contract through it and
 * through gen/steps.py run_harness.
 *
 * A case whose recorded output is missing, or of another dtype or shape
 * than the case's, fails its launch: the runtime records an error. */
#define _POSIX_C_SOURCE 200809L
#include "cli/tp_packed_output.h"
#include "core/tp_plan.h"
#include "harness/tp_device.h"
#include "tests/host_device.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tp_plan *played_plan;
static const char *played_run; /* RUN_DIR */

/* One recorded output (.npy, or .tpr decoded against this case's exact
 * reference: cli/tp_packed_output.h) into the buffer of tensor t, checked
 * against the case's tensor first. Loaded into a copy of the case, so
 * that the harness's own tensors stay as they are. */
static int play_output(const tp_case *c, int t, void *buffer, char *err, size_t errlen)
{
    const tp_tensor *tt = &c->tensors[t];
    tp_case copy = *c;
    char inner[4800];
    copy.tensors[t].data = NULL;
    if (tp_run_output_load(played_run, played_plan, &copy, t, NULL, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "recorded output: %s", inner);
        return -1;
    }
    memcpy(buffer, copy.tensors[t].data, (size_t)tt->numel * tp_dtype_size(tt->dtype));
    free(copy.tensors[t].data);
    return 0;
}

static int play_launch(const tp_case *c, void *const *buffers, const tp_launch_shape *shape, char *err,
                       size_t errlen)
{
    (void)shape;
    for (int t = 0; t < c->ntensors; t++)
        if (played_plan->tensors[t].role == TP_ROLE_OUTPUT && play_output(c, t, buffers[t], err, errlen) != 0)
            return -1;
    return 0;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *more = realloc(text, cap *= 2);
            if (!more)
                free(text);
            text = more;
        }
    }
    fclose(f);
    if (text)
        text[n] = 0;
    return text;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tool_playback PLAN.json RUN_DIR [harness options...]\n"
                        "Runs the cases of PLAN.json through the harness runtime on a host device whose\n"
                        "launch copies RUN_DIR/outputs/CASE/TENSOR.npy (a recorded run) into the outputs.\n"
                        "Harness options and exit status as a generated harness's (--help).\n");
        return 2;
    }
    char *text = read_text(argv[1]), err[600];
    if (!text) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 2;
    }
    tp_plan *plan = tp_plan_parse(text, err, sizeof err);
    if (!plan) {
        fprintf(stderr, "%s: %s\n", argv[1], err);
        free(text);
        return 2;
    }
    played_plan = plan;
    played_run = argv[2];
    /* results.json says where the outputs came from: no one takes this for a GPU run */
    static char device_name[300];
    snprintf(device_name, sizeof device_name, "playback of %s", argv[2]);
    host_device_name = device_name;
    /* the recorded run's backend: the ops' bounds on device math depend on it */
    char path[4200];
    snprintf(path, sizeof path, "%s/results.json", argv[2]);
    json_t *recorded = json_load_file(path, 0, NULL);
    const char *backend = json_string_value(json_object_get(recorded, "backend"));
    char *hargv[64] = {argv[0], "--reps", "1"};
    int hargc = 3;
    for (int i = 3; i < argc && hargc < 63; i++)
        hargv[hargc++] = argv[i];
    tp_harness_info info = {text, backend ? backend : "cuda", "recorded outputs, no kernel run (tests/tool_playback.c)",
                            "tests/tool_playback.c"};
    tp_device device = host_device_with(play_launch);
    int rc = tp_harness_main(hargc, hargv, &info, &device);
    json_decref(recorded);
    tp_plan_free(plan);
    free(text);
    return rc;
}
