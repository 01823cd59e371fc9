/* `tolproof bundle`: writes an evidence bundle.
 *
 * An evidence bundle is a directory (and DIR.tar.gz of it) that a reviewer
 * re-checks with `tolproof audit` on any machine, without the GPU:
 *
 *   manifest.json          SHA-256 of every other file but timing.json; tool
 *                          versions, git commit and cleanliness, devices,
 *                          seeds and verdicts of every case, proof summaries
 *   manifest.schema.json   the JSON Schema of manifest.json: the
 *                          docs/manifest.schema.json this tolproof was built
 *                          with (the audit requires exactly that text)
 *   timing.json            every time and timestamp: kernel timings of each
 *                          run, proof times, the bundle's creation time
 *   runs/RUN/              plan.json, results.json (verdicts, worst elements,
 *                          claim audit, Evidence and Non-claims per case),
 *                          results.tap (rewritten from results.json),
 *                          outputs/CASE/TENSOR.npy (and the
 *                          input_NAME.npy copies of cases run with --input);
 *                          RUN is the contract, ".2", ".3"... when two runs
 *                          share one
 *   proofs/ORACLE.json     each oracle's WP report (goals, proved, provers,
 *                          tiers, and each goal's prover and status from the
 *                          Frama-C log), its time moved to timing.json
 *   plots/RUN/CASE/OUTPUT.svg   err/bound histogram and worst elements
 *   summary.md, summary.tex, results.tap (all runs' cases as one TAP stream)
 *   index.html             the page to read it by: summary, proofs, every
 *                          case with its verdict, plots, Evidence and
 *                          Non-claims (tp_html.h; static, no script)
 *   tests.tap              with --tap FILE: that log, verbatim
 *   signature.json         with --sign KEY: an Ed25519 signature of
 *                          manifest.json and timing.json (tp_sign.h)
 *
 * Reproducibility: everything but timing.json is a function of the runs'
 * seeds and outputs, the proof reports and the tools, so two runs with the
 * same seeds on the same device bundle to byte-identical files except
 * timing.json. That is why the runs' results.md (it prints kernel times)
 * and the Frama-C logs (per-goal times) are not copied as they are, and why
 * the .tar.gz, which holds timing.json, differs between such bundles while
 * its other members do not. The archive itself is written with sorted
 * names, mtime 0, owner and group 0 and `gzip -n`, so it depends on the
 * files alone.
 *
 * Integrity: the manifest cannot hash itself and timing.json must stay out
 * of its list (it differs between runs). Both end in a last key
 * "self_sha256" whose value is the SHA-256 of every byte of the file before
 * that key's opening quote: computed on the raw bytes, not on a parsed
 * form, so a flipped whitespace byte fails too (tp_selfhash). With every
 * other file hashed in the manifest, no byte of a bundle can change
 * unnoticed; and since hashes can be recomputed by anyone, the audit
 * (cmd_audit.c) also re-derives every verdict and regenerates every
 * generated file. What none of that shows is who made the bundle: that
 * is the signature's job (README, "Trust model").
 *
 * Safety: the bundle is built in a temporary sibling directory of DIR and
 * renamed into place, in a child process whose end, however it comes,
 * removes that directory (tp_guard); an existing DIR is replaced only when
 * it is empty or a bundle whose manifest lists every file in it, and it
 * is moved aside by rename, never removed with what tolproof did not
 * write.
 *
 * This file collects: it copies the runs and the proof reports, has the
 * generated files made (tp_bundle_reports: summaries and TAP logs; tp_svg:
 * plots, from cases rebuilt by tp_replay), then writes the manifest
 * (tp_manifest) and the archive. */
#define _GNU_SOURCE /* strsignal */
#include "cli/cmd_bundle.h"

#include "cli/tp_bfiles.h"
#include "cli/tp_bundle_reports.h"
#include "cli/tp_files.h"
#include "cli/tp_guard.h"
#include "cli/tp_html.h"
#include "cli/tp_manifest.h"
#include "cli/tp_manifest_schema.h"
#include "cli/tp_proofs.h"
#include "cli/tp_replay.h"
#include "cli/tp_selfhash.h"
#include "cli/tp_sign.h"
#include "cli/tp_spawn.h"
#include "cli/tp_svg.h"
#include "cli/tp_tree.h"
#include "cli/tp_untar.h"
#include "core/tp_case.h"
#include "core/tp_plan.h"
#include "harness/tp_report.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

/* Copies the .npy files of every RUN/outputs/CASE/ (the outputs and the
 * input copies of cases run with --input) under `to`. -1 with err set. */
static int copy_outputs(const char *run, const char *to, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/outputs", run);
    struct dirent **cases;
    int nc = scandir(dir, &cases, NULL, tp_by_name);
    if (nc < 0)
        return 0; /* every case refused: nothing was written */
    int rc = 0;
    for (int i = 0; i < nc; i++) {
        char cdir[4200];
        if (tp_path_of(cdir, sizeof cdir, "%s/%s", dir, cases[i]->d_name) != 0 && !rc) {
            snprintf(err, errlen, "%s/%s: the path is longer than %zu bytes", dir, cases[i]->d_name, sizeof cdir - 1);
            rc = -1;
        }
        struct dirent **files;
        int nf = rc || cases[i]->d_name[0] == '.' || !tp_is_dir(cdir) ? -1 : scandir(cdir, &files, NULL, tp_by_name);
        for (int k = 0; k < nf; k++) {
            const char *name = files[k]->d_name;
            size_t len = strlen(name);
            if (!rc && len > 4 && strcmp(name + len - 4, ".npy") == 0) {
                char from[4200], dest[4200];
                if (tp_path_of(from, sizeof from, "%s/%s", cdir, name) != 0 ||
                    tp_path_of(dest, sizeof dest, "%s/outputs/%s/%s", to, cases[i]->d_name, name) != 0 ||
                    tp_copy_file(from, dest) != 0) {
                    snprintf(err, errlen, "cannot copy %s to %s", from, dest);
                    rc = -1;
                }
            }
            free(files[k]);
        }
        if (nf >= 0)
            free(files);
        free(cases[i]);
    }
    free(cases);
    return rc;
}

#define SYNOPSIS                                                                                                       \
    "tolproof bundle --out DIR [--proofs DIR | --no-proofs] [--tap FILE] [--sign KEY.pem] RUN_DIR...\n"

const char tp_bundle_usage[] = "       " SYNOPSIS;

void tp_bundle_help(FILE *f)
{
    fprintf(f, "usage: " SYNOPSIS
               "Writes an evidence bundle DIR and DIR.tar.gz from run directories (as a harness writes\n"
               "them): the runs (plans, results, outputs), the proof reports, summary.md, summary.tex,\n"
               "SVG plots of err/bound, index.html (a static page of all of it: summary, proofs, each\n"
               "case's verdict, plots, Evidence and Non-claims; no script, no network), results.tap,\n"
               "manifest.json (SHA-256 of every file, tool versions,\n"
               "devices, git commit, seeds), manifest.schema.json (the schema this tolproof ships),\n"
               "timing.json (every time and timestamp) and, with --sign, signature.json. `tolproof audit`\n"
               "re-checks it on any machine.\n"
               "  --out DIR     the bundle. It is built in a temporary sibling (.DIR.tolproof.PID.*) and\n"
               "                renamed into place: an interrupted run leaves DIR as it was. A DIR that\n"
               "                exists must be empty or a bundle written by tolproof holding nothing\n"
               "                else, and a DIR.tar.gz an archive of one; anything else is refused, and\n"
               "                never deleted\n"
               "  --proofs DIR  proof reports (ORACLE.json and .log, from proofs/wp.sh; default build/prove);\n"
               "                a bundle needs at least one\n"
               "  --no-proofs   a bundle without proof reports (its summary.md and audit say so)\n"
               "  --tap FILE    a test log to include verbatim as tests.tap\n"
               "  --sign KEY    sign manifest.json and timing.json with this Ed25519 private key (PEM, as\n"
               "                `openssl genpkey -algorithm ed25519` writes it) into signature.json;\n"
               "                `tolproof audit --key PUB` checks it\n"
               "Exit status: 0 written, 2 bad arguments, a DIR that is not a bundle, a file that cannot\n"
               "be read or written, or an interrupted run.\n");
}

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "tolproof bundle: ");
    fprintf(stderr, fmt, a, b ? b : "");
    fputc('\n', stderr);
    return 2;
}

typedef struct {
    const char *proofs, *tap;
    int no_proofs;
    const char **runs;
    int nruns;
    EVP_PKEY *key;   /* --sign */
    char final[4096]; /* DIR as given, without trailing slashes */
    char parent[4096], base[256];
    char tmp[4200]; /* the temporary sibling: tmp/BASE is the new bundle */
    int replace;     /* DIR exists (empty, or an earlier bundle) */
} bundle_job;

/* 1 when every file under dir is one `tolproof bundle` wrote: dir holds a
 * manifest.json with its self-hash that lists them (manifest.json,
 * timing.json and signature.json apart), and nothing but regular files and
 * directories. Only then may DIR be replaced: a thesis saved into an old
 * bundle directory is not listed, so it is never deleted. */
static int earlier_bundle(const char *dir, char *why, size_t whylen)
{
    char path[4200], err[1200];
    tp_limits lim = tp_bundle_limits();
    if (tp_tree_check(dir, &lim, err, sizeof err) != 0) {
        snprintf(why, whylen, "%s", err);
        return 0;
    }
    int bad;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_t *m = tp_read_selfhashed(path, &bad, err, sizeof err);
    const json_t *files = json_object_get(m, "files");
    if (!m || !json_is_integer(json_object_get(m, "tolproof_bundle")) || !json_is_object(files)) {
        snprintf(why, whylen, "no manifest.json of a tolproof bundle");
        json_decref(m);
        return 0;
    }
    json_t *list = tp_list_files(dir);
    size_t i;
    json_t *f;
    int ok = list != NULL;
    json_array_foreach(list, i, f)
    {
        const char *p = json_string_value(f);
        if (ok && strcmp(p, "manifest.json") && strcmp(p, "timing.json") && strcmp(p, "signature.json") &&
            !json_object_get(files, p)) {
            snprintf(why, whylen, "%s is not one of its files", p);
            ok = 0;
        }
    }
    json_decref(list);
    json_decref(m);
    return ok;
}

static int is_empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return d && n == 0;
}

/* Before any work: where the bundle goes, and whether what is there may
 * be replaced. 0, or 2 after saying why not. */
static int check_destination(bundle_job *job)
{
    char why[1300], gz[4200];
    if (!job->base[0] || strcmp(job->base, ".") == 0 || strcmp(job->base, "..") == 0)
        return fail("--out %s: name a directory to write", job->final, NULL);
    struct stat st;
    if (lstat(job->final, &st) == 0) {
        if (S_ISLNK(st.st_mode))
            return fail("%s is a symbolic link: not replacing it (give its target)", job->final, NULL);
        if (!S_ISDIR(st.st_mode))
            return fail("%s exists and is not a directory: not replacing it", job->final, NULL);
        if (!is_empty_dir(job->final) && !earlier_bundle(job->final, why, sizeof why))
            return fail("%s is not empty and not a bundle written by tolproof (%s): not replacing it", job->final,
                        why);
        job->replace = 1;
    }
    snprintf(gz, sizeof gz, "%s.tar.gz", job->final);
    tp_limits lim = tp_bundle_limits();
    if (lstat(gz, &st) == 0 && !(S_ISREG(st.st_mode) && tp_untar_is_bundle_archive(gz, job->base, &lim)))
        return fail("%s exists and is not an archive of a bundle named %s: not replacing it", gz, job->base);
    return 0;
}

/* In the guarded child: writes the bundle into tmp/BASE and its archive
 * into tmp/BASE.tar.gz, then renames both into place. */
static int build(void *ctx)
{
    bundle_job *job = ctx;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* err holds a message naming up to two paths */
    char dir[4500], path[4700], from[4200], err[2 * 4200 + 200];
    snprintf(dir, sizeof dir, "%s/%s", job->tmp, job->base);
    if (tp_mkdirs(dir) != 0)
        return fail("cannot create %s", dir, NULL);

    json_t *runs = json_array(), *timing_runs = json_object(), *timing_proofs = json_object();
    int status = 0;
    for (int i = 0; i < job->nruns && !status; i++) {
        char src[4096];
        snprintf(src, sizeof src, "%s", job->runs[i]);
        for (size_t n = strlen(src); n > 1 && src[n - 1] == '/'; n--)
            src[n - 1] = 0;
        snprintf(from, sizeof from, "%s/results.json", src);
        json_error_t je;
        json_t *res = json_load_file(from, 0, &je);
        if (!res) {
            status = fail("%s: %s", from, je.text);
            break;
        }
        /* the contract names the run; a second run of it gets ".2" */
        char name[256], base[240];
        snprintf(base, sizeof base, "%s", str(res, "contract")[0] ? str(res, "contract") : "run");
        for (char *p = base; *p; p++)
            if (!(*p == '_' || *p == '-' || *p == '.' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
                  (*p >= 'A' && *p <= 'Z')))
                *p = '_';
        snprintf(name, sizeof name, "%s", base);
        for (int k = 2; json_object_get(timing_runs, name); k++)
            snprintf(name, sizeof name, "%s.%d", base, k);
        char to[4800];
        snprintf(to, sizeof to, "%s/runs/%s", dir, name);
        const char *files[] = {"plan.json", "results.json"};
        for (int k = 0; k < 2 && !status; k++) {
            if (tp_path_of(from, sizeof from, "%s/%s", src, files[k]) != 0 ||
                tp_path_of(path, sizeof path, "%s/%s", to, files[k]) != 0)
                status = fail("%s: the path is too long for %s", to, files[k]);
            else if (tp_copy_file(from, path) != 0)
                status = fail("cannot copy %s to %s", from, path);
        }
        if (!status && copy_outputs(src, to, err, sizeof err) != 0)
            status = fail("%s%s", err, NULL);
        snprintf(from, sizeof from, "%s/timing.json", src);
        json_t *t = json_load_file(from, 0, &je);
        json_object_set_new(timing_runs, name, t ? t : json_null());
        if (!status && tp_path_of(path, sizeof path, "%s/plan.json", to) != 0)
            status = fail("%s: the path is too long for %s", to, "plan.json");
        tp_plan *typed = status ? NULL : tp_plan_load(path, err, sizeof err);
        if (!status && !typed)
            status = fail("%s%s", err, NULL);
        tp_plan_free(typed);
        /* the manifest copies the seeds of refused cases from it */
        json_t *plan = status ? NULL : json_load_file(path, 0, &je);
        json_array_append_new(runs, json_pack("{s:s,s:o,s:o}", "run", name, "results", res, "plan",
                                              plan ? plan : json_null()));
    }
    if (!status && !job->no_proofs && tp_proofs_import(job->proofs, dir, timing_proofs, err, sizeof err) != 0)
        status = fail("%s%s", err, NULL);
    snprintf(path, sizeof path, "%s/manifest.schema.json", dir);
    if (!status && tp_write_all(path, tp_manifest_schema(), strlen(tp_manifest_schema())) != 0)
        status = fail("cannot write %s", path, NULL);
    snprintf(path, sizeof path, "%s/tests.tap", dir);
    if (!status && job->tap && tp_copy_file(job->tap, path) != 0)
        status = fail("cannot copy %s", job->tap, NULL);

    /* generated files: reports from the results, plots from the copies */
    tp_bfiles gen = {0};
    json_t *proof_list = status ? NULL : tp_proofs_load(dir, err, sizeof err);
    if (!status && !proof_list)
        status = fail("%s%s", err, NULL);
    if (!status && !job->no_proofs && json_array_size(proof_list) == 0)
        status = fail("no proof reports (ORACLE.json) in %s: run `ninja prove`, or give --no-proofs for a bundle that "
                      "says it shows no proof",
                      job->proofs, NULL);
    if (!status) {
        tp_bundle_reports(&gen, runs, proof_list);
        tp_html_index(&gen, runs, proof_list);
    }
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        if (status)
            break;
        char rdir[4200];
        tp_plan *plan = NULL;
        if (tp_path_of(rdir, sizeof rdir, "%s/runs/%s", dir, str(r, "run")) != 0 ||
            tp_path_of(path, sizeof path, "%s/plan.json", rdir) != 0)
            snprintf(err, sizeof err, "%s/runs/%s: the path is too long", dir, str(r, "run"));
        else
            plan = tp_plan_load(path, err, sizeof err);
        if (!plan) {
            status = fail("%s%s", err, NULL);
            break;
        }
        const json_t *res = json_object_get(r, "results");
        const char *backend = str(res, "backend")[0] ? str(res, "backend") : "cuda";
        size_t k;
        json_t *rec;
        json_array_foreach(json_object_get(res, "cases"), k, rec)
        {
            tp_case *c = tp_replay_load_case(rdir, plan, backend, rec, NULL, err, sizeof err);
            if (!c && err[0]) {
                status = fail("%s/%s", rdir, err);
                break;
            }
            if (c && tp_svg_case_plots(&gen, str(r, "run"), plan, rec, c, err, sizeof err) != 0)
                status = fail("%s: %s", rdir, err);
            tp_case_free(c);
            if (status)
                break;
        }
        tp_plan_free(plan);
    }
    for (size_t k = 0; k < gen.n && !status; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, gen.v[k].path);
        if (tp_write_all(path, gen.v[k].data, gen.v[k].len) != 0)
            status = fail("cannot write %s", path, NULL);
    }
    tp_bfiles_free(&gen);

    /* the manifest: derived sections, environment, then every file's hash */
    json_t *manifest = status ? NULL : tp_manifest_derived(runs, proof_list);
    json_t *list = status ? NULL : tp_list_files(dir);
    if (!status && !list)
        status = fail("cannot list %s", dir, NULL);
    if (!status) {
        json_object_set_new(manifest, "tolproof_bundle", json_integer(TP_BUNDLE_FORMAT));
        json_object_set_new(manifest, "schema", json_string("manifest.schema.json"));
        json_object_set_new(manifest, "tools", tp_manifest_tools());
        json_object_set_new(manifest, "git", tp_manifest_git());
        json_t *hashes = tp_manifest_hashes(dir, list, err, sizeof err);
        if (!hashes)
            status = fail("%s%s", err, NULL);
        json_object_set_new(manifest, "files", hashes ? hashes : json_object());
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    time_t now = time(NULL);
    char stamp[64];
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *timing = json_pack("{s:s,s:f,s:o,s:o}", "bundle_created_utc", stamp, "bundle_seconds",
                               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), "runs",
                               timing_runs, "proofs", timing_proofs);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (!status && tp_write_selfhashed(path, manifest) != 0)
        status = fail("cannot write %s", path, NULL);
    snprintf(path, sizeof path, "%s/timing.json", dir);
    if (!status && tp_write_selfhashed(path, timing) != 0)
        status = fail("cannot write %s", path, NULL);

    if (!status && job->key && tp_sign_bundle(dir, job->key, err, sizeof err) != 0)
        status = fail("%s%s", err, NULL);

    /* the archive: its bytes depend on the files alone; written under a
     * temporary name, so that a killed gzip leaves no truncated DIR.tar.gz */
    char tar_tmp[4600], gz_tmp[4600], gz[4200], old[4600];
    snprintf(tar_tmp, sizeof tar_tmp, "%s/%s.tar", job->tmp, job->base);
    snprintf(gz_tmp, sizeof gz_tmp, "%s/%s.tar.gz", job->tmp, job->base);
    snprintf(gz, sizeof gz, "%s.tar.gz", job->final);
    if (!status) {
        char *tar[] = {"tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner",
                       "--mode=a+rX,u+w,go-w", "--format=gnu", "-C", job->tmp, "-cf", tar_tmp, "--", job->base, NULL};
        char *gzip[] = {"gzip", "-n", "-9", "-c", tar_tmp, NULL};
        if (tp_spawn(tar, NULL) != 0 || tp_spawn(gzip, gz_tmp) != 0)
            status = fail("tar or gzip failed writing %s", gz, NULL);
    }
    /* into place: the earlier bundle moves into the temporary directory
     * (removed with it), the new one takes its name */
    snprintf(old, sizeof old, "%s/earlier", job->tmp);
    if (!status && job->replace && rename(job->final, old) != 0)
        status = fail("cannot move the earlier bundle %s aside", job->final, NULL);
    if (!status && rename(dir, job->final) != 0) {
        status = fail("cannot rename the new bundle to %s", job->final, NULL);
        if (job->replace)
            rename(old, job->final);
    }
    if (!status && rename(gz_tmp, gz) != 0)
        status = fail("cannot rename the new archive to %s", gz, NULL);
    if (!status)
        printf("bundle: %s and %s (%zu runs, %zu files%s)\n", job->final, gz, json_array_size(runs),
               json_array_size(list) + 2, job->key ? ", signed" : "");
    json_decref(timing);
    json_decref(manifest);
    json_decref(list);
    json_decref(proof_list);
    json_decref(runs);
    return status;
}

int tp_bundle_main(int argc, char **argv)
{
    bundle_job job = {.proofs = "build/prove"};
    const char *out = NULL, *sign = NULL;
    const char *runs_in[512];
    for (int i = 2; i < argc; i++) {
        const char **opt = strcmp(argv[i], "--out") == 0      ? &out
                           : strcmp(argv[i], "--proofs") == 0 ? &job.proofs
                           : strcmp(argv[i], "--tap") == 0    ? &job.tap
                           : strcmp(argv[i], "--sign") == 0   ? &sign
                                                              : NULL;
        if (strcmp(argv[i], "--no-proofs") == 0)
            job.no_proofs = 1;
        else if (opt && i + 1 < argc)
            *opt = argv[++i];
        else if (opt || argv[i][0] == '-' || job.nruns == 512) {
            tp_bundle_help(stderr);
            return 2;
        } else
            runs_in[job.nruns++] = argv[i];
    }
    if (!out || !job.nruns) {
        tp_bundle_help(stderr);
        return 2;
    }
    job.runs = runs_in;
    char err[1000];
    if (sign && !(job.key = tp_sign_load_private(sign, err, sizeof err)))
        return fail("--sign %s%s", err, NULL);
    snprintf(job.final, sizeof job.final, "%s", out);
    for (size_t n = strlen(job.final); n > 1 && job.final[n - 1] == '/'; n--)
        job.final[n - 1] = 0;
    snprintf(job.parent, sizeof job.parent, "%s", job.final);
    char *slash = strrchr(job.parent, '/');
    snprintf(job.base, sizeof job.base, "%s", slash ? slash + 1 : job.final);
    if (slash == job.parent)
        job.parent[1] = 0;
    else if (slash)
        *slash = 0;
    else
        snprintf(job.parent, sizeof job.parent, ".");
    int rc = check_destination(&job);
    char prefix[300];
    snprintf(prefix, sizeof prefix, ".%s.tolproof", job.base);
    if (!rc && (tp_mkdirs(job.parent) != 0 || tp_guard_mkdtemp(job.parent, prefix, job.tmp, sizeof job.tmp) != 0))
        rc = fail("cannot create a temporary directory in %s", job.parent, NULL);
    if (!rc) {
        rc = tp_guard_run(job.tmp, build, &job);
        if (rc < 0) {
            fprintf(stderr, "tolproof bundle: stopped by signal %d (%s); %s is as it was\n", -rc, strsignal(-rc),
                    job.final);
            rc = 2;
        }
    }
    EVP_PKEY_free(job.key);
    return rc;
}
