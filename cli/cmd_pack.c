/* `tolproof pack` and `tolproof unpack`: a run directory's output tensors
 * from .npy to .tpr (cli/tp_residual_codec.h) and back. Both directions
 * walk the same cases (those of results.json with outputs) and predict
 * with the same code as the replay (cli/tp_packed_output.h); a file is
 * replaced only after its new form is written and checked. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cmd_pack.h"

#include "cli/tp_files.h"
#include "cli/tp_packed_output.h"
#include "cli/tp_replay.h"
#include "core/tp_case.h"
#include "core/tp_jsonfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char tp_pack_usage[] = "       tolproof pack [--case NAME]... RUN_DIR...\n";
const char tp_unpack_usage[] = "       tolproof unpack [--case NAME]... RUN_DIR...\n";

void tp_pack_help(FILE *f)
{
    fprintf(f,
            "usage: tolproof pack [--case NAME]... RUN_DIR...\n"
            "Replaces every output tensor outputs/CASE/NAME.npy of each run directory (plan.json,\n"
            "results.json, outputs/) by NAME.tpr: the .npy header verbatim, the SHA-256 of the .npy\n"
            "file, and per element the signed distance, in the format's order of bit patterns, from\n"
            "the format's rounding of the op's exact reference (the reference's own pattern for a\n"
            "copy), zlib-compressed. Lossless for every bit pattern (NaN payloads, signed zeros,\n"
            "infinities). `tolproof replay`, `bundle` and `audit` read .tpr where the .npy is\n"
            "absent; decoding recomputes the reference and checks the SHA-256, so a reference that\n"
            "changed is an error naming the file, never a different tensor (recorded/MIGRATIONS.md,\n"
            "0004, says how to re-encode then). Input copies (input_NAME.npy) stay .npy.\n"
            "Each .tpr is written through a temporary file and checked to decode to the .npy's bytes\n"
            "before the .npy is removed; outputs already packed are left as they are.\n"
            "--case NAME (repeatable): only the outputs of the cases named, in every run given;\n"
            "a name that is no case of a run's results.json is an error (exit 2).\n"
            "Prints one line per run: outputs packed, bytes before and after.\n"
            "Exit status: 0 every output of every run packed (or already packed), 1 an output that\n"
            "could not be (its .npy kept, the line says why), 2 a run directory cannot be read.\n");
}

void tp_unpack_help(FILE *f)
{
    fprintf(f, "usage: tolproof unpack [--case NAME]... RUN_DIR...\n"
               "The inverse of `tolproof pack`: replaces every outputs/CASE/NAME.tpr of each run\n"
               "directory by the NAME.npy it encodes, byte for byte (its SHA-256 checked), for NumPy\n"
               "and other readers of .npy, and for re-encoding after a change of an exact reference\n"
               "(recorded/migrations/recode.sh runs the unpack of the tolproof that packed them).\n"
               "--case NAME (repeatable): only the outputs of the cases named (decoding a case\n"
               "recomputes its inputs and exact reference: one case of a long-row run takes\n"
               "seconds, the whole run minutes); a name that is no case of a run's results.json\n"
               "is an error (exit 2).\n"
               "Prints one line per run: outputs unpacked, bytes before and after.\n"
               "Exit status: 0 every output unpacked (or already .npy), 1 an output that could not be\n"
               "(its .tpr kept, the line says why), 2 a run directory cannot be read.\n");
}

typedef struct {
    int done, kept, bad;
    size_t before, after;
} tally;

static int file_size(const char *path, size_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    *size = (size_t)st.st_size;
    return 0;
}

/* One output of one case, in the direction asked. 0 or -1 with err. */
static int convert(const char *dir, const tp_plan *plan, const tp_case *c, int t, int unpack, tally *n, char *err,
                   size_t errlen)
{
    const char *name = c->tensors[t].name;
    char npy[4200], tpr[4200];
    if (tp_path_of(npy, sizeof npy, "%s/outputs/%s/%s.npy", dir, c->name, name) != 0 ||
        tp_path_of(tpr, sizeof tpr, "%s/outputs/%s/%s.tpr", dir, c->name, name) != 0) {
        snprintf(err, errlen, "%s/outputs/%s/%s: path too long", dir, c->name, name);
        return -1;
    }
    const char *from = unpack ? tpr : npy, *to = unpack ? npy : tpr;
    size_t a, b;
    int have_from = file_size(from, &a) == 0, have_to = file_size(to, &b) == 0;
    if (have_from && have_to) {
        snprintf(err, errlen, "%s and %s both exist (expected one: which is the record?)", npy, tpr);
        return -1;
    }
    if (!have_from && have_to) { /* already in the form asked */
        n->kept++;
        n->before += b;
        n->after += b;
        return 0;
    }
    if (!have_from) {
        snprintf(err, errlen, "%s: neither it nor %s.%s exists", npy, name, "tpr");
        return -1;
    }
    if (!unpack) {
        if (tp_packed_output_write(npy, tpr, plan, c, t, &a, &b, err, errlen) != 0)
            return -1;
    } else {
        unsigned char *bytes = tp_packed_output_read(tpr, plan, c, t, &b, NULL, err, errlen);
        char tmp[4300];
        if (!bytes)
            return -1;
        int bad = tp_path_of(tmp, sizeof tmp, "%s.tmp", npy) != 0 || tp_write_all(tmp, bytes, b) != 0 ||
                  rename(tmp, npy) != 0;
        free(bytes);
        if (bad) {
            snprintf(err, errlen, "%s: cannot write: %s", npy, strerror(errno));
            remove(tmp);
            return -1;
        }
    }
    if (remove(from) != 0) {
        snprintf(err, errlen, "%s: cannot remove it after writing %s: %s", from, to, strerror(errno));
        return -1;
    }
    n->done++;
    n->before += a;
    n->after += b;
    return 0;
}

/* The cases --case named (none: every case). */
typedef struct {
    char **names;
    int n;
} case_pick;

static int picked(const case_pick *pick, const char *name)
{
    if (pick->n == 0)
        return 1;
    for (int i = 0; i < pick->n; i++)
        if (name && strcmp(pick->names[i], name) == 0)
            return 1;
    return 0;
}

/* Every output of every picked case with outputs in one run. 0, 1 or 2. */
static int convert_run(const char *dir, int unpack, const case_pick *pick)
{
    char path[4200], err[9000];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    tp_plan *plan = tp_plan_load(path, err, sizeof err);
    if (!plan) {
        printf("not ok - %s\n", err);
        return 2;
    }
    snprintf(path, sizeof path, "%s/results.json", dir);
    json_t *res = tp_json_file_load(path, 0, err, sizeof err);
    if (!res) {
        printf("not ok - %s\n", err);
        tp_plan_free(plan);
        return 2;
    }
    const char *backend = json_string_value(json_object_get(res, "backend"));
    tally n = {0};
    size_t i;
    json_t *rec;
    for (int k = 0; k < pick->n; k++) {
        int found = 0;
        json_array_foreach(json_object_get(res, "cases"), i, rec)
        {
            const char *name = json_string_value(json_object_get(rec, "case"));
            found |= name && strcmp(name, pick->names[k]) == 0;
        }
        if (!found) {
            printf("not ok - %s: --case %s: no such case in its results.json\n", dir, pick->names[k]);
            json_decref(res);
            tp_plan_free(plan);
            return 2;
        }
    }
    json_array_foreach(json_object_get(res, "cases"), i, rec)
    {
        if (!picked(pick, json_string_value(json_object_get(rec, "case"))))
            continue;
        /* refused and error cases have no outputs: NULL with err "" */
        tp_case *c = tp_replay_load_inputs(dir, plan, backend ? backend : "cuda", rec, err, sizeof err);
        if (!c && err[0]) {
            printf("not ok - %s/%s: %s\n", dir, json_string_value(json_object_get(rec, "case")), err);
            n.bad++;
        }
        for (int t = 0; c && t < c->ntensors; t++)
            if (plan->tensors[t].role == TP_ROLE_OUTPUT &&
                convert(dir, plan, c, t, unpack, &n, err, sizeof err) != 0) {
                printf("not ok - %s/%s: %s\n", dir, c->name, err);
                n.bad++;
            }
        tp_case_free(c);
    }
    printf("%s - %s: %d output(s) %s, %d already %s, %d left as they were; %zu bytes -> %zu\n",
           n.bad ? "not ok" : "ok", dir, n.done, unpack ? "unpacked" : "packed", n.kept, unpack ? ".npy" : ".tpr",
           n.bad, n.before, n.after);
    json_decref(res);
    tp_plan_free(plan);
    return n.bad ? 1 : 0;
}

static int run(int argc, char **argv, int unpack)
{
    const char *cmd = unpack ? "unpack" : "pack";
    /* argv minus its first two holds every name --case can give */
    case_pick pick = {malloc((size_t)argc * sizeof(char *)), 0};
    if (!pick.names) {
        fprintf(stderr, "tolproof %s: out of memory\n", cmd);
        return 2;
    }
    int ndirs = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--case") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "tolproof %s: --case needs a case name (expected --case NAME)\n", cmd);
                free(pick.names);
                return 2;
            }
            pick.names[pick.n++] = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "tolproof %s: unknown option %s (expected [--case NAME]... RUN_DIR...)\n", cmd, argv[i]);
            free(pick.names);
            return 2;
        } else
            ndirs++;
    }
    if (ndirs == 0) {
        fprintf(stderr, "usage: tolproof %s [--case NAME]... RUN_DIR...\n", cmd);
        free(pick.names);
        return 2;
    }
    int status = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--case") == 0) {
            i++;
            continue;
        }
        int rc = convert_run(argv[i], unpack, &pick);
        status = rc > status ? rc : status;
    }
    free(pick.names);
    return status;
}

int tp_pack_main(int argc, char **argv) { return run(argc, argv, 0); }
int tp_unpack_main(int argc, char **argv) { return run(argc, argv, 1); }
