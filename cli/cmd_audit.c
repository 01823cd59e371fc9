/* `tolproof audit [--quiet] BUNDLE`: re-checks an evidence bundle (a
 * directory or its .tar.gz) on any machine, without a GPU. A hash proves a
 * file is the one the manifest lists, not that it is right; so besides
 * every hash the audit re-derives every case from the seeds and stored
 * outputs and regenerates every file the bundler generated (summaries,
 * TAP logs, plots, the manifest's own runs/devices/proofs sections) and
 * compares them byte for byte. Edit a verdict and fix up every hash, and
 * the recomputation still disagrees. */
#define _GNU_SOURCE
#include "cli/cmd_audit.h"

#include "cli/tp_bfiles.h"
#include "cli/tp_bundle_reports.h"
#include "cli/tp_files.h"
#include "cli/tp_guard.h"
#include "cli/tp_html.h"
#include "cli/tp_manifest.h"
#include "cli/tp_manifest_schema.h"
#include "cli/tp_proofs.h"
#include "core/tp_sha256.h"
#include "cli/tp_replay.h"
#include "cli/tp_schema.h"
#include "cli/tp_selfhash.h"
#include "cli/tp_sign.h"
#include "cli/tp_spawn.h"
#include "cli/tp_svg.h"
#include "cli/tp_tally.h"
#include "cli/tp_tree.h"
#include "cli/tp_untar.h"
#include "core/tp_plan.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int checks, failed, quiet;
    char first[1600];
    tp_bfiles plots;
    int plot_errors;
    EVP_PKEY *key;      /* --key: the public key the bundle must be signed by */
    int signature;      /* tp_sign_verify's answer */
    char signer[32];    /* fingerprint of the key signature.json names */
    int no_proofs;      /* the bundle has no proof reports */
    int gpu_errors;     /* cases recorded as errors by device, fault or timeout: the GPU's word */
    const char *bundle; /* as given */
} audit;

static void report(audit *a, int ok, const char *file, const char *fmt, ...)
{
    char what[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    a->checks++;
    if (!ok) {
        a->failed++;
        if (!a->first[0])
            snprintf(a->first, sizeof a->first, "%s: %s", file, what);
    }
    if (!ok || !a->quiet)
        printf("%s - %s: %s\n", ok ? "ok" : "not ok", file, what);
}

/* Byte-for-byte comparison with the regenerated contents. */
static void compare_bytes(audit *a, const char *file, const char *want, size_t wlen)
{
    size_t len;
    char *got = tp_read_all(file, &len);
    if (!got) {
        report(a, 0, file, "missing or unreadable");
        return;
    }
    size_t i = 0, line = 1;
    while (i < len && i < wlen && got[i] == want[i])
        line += got[i++] == '\n';
    if (i == len && i == wlen)
        report(a, 1, file, "matches its regeneration from the bundle's results");
    else
        report(a, 0, file, "first disagreement at byte %zu (line %zu) with its regeneration from the bundle's results",
               i, line);
    free(got);
}

static void on_case(void *ctx, const char *dir, const tp_plan *plan, const json_t *rec, const tp_case *c)
{
    audit *a = ctx;
    char err[800];
    if (tp_svg_case_plots(&a->plots, dir + 5 /* "runs/" */, plan, rec, c, err, sizeof err) != 0) {
        char file[600];
        snprintf(file, sizeof file, "%s/results.json", dir);
        report(a, 0, file, "case %s: cannot recompute its plots: %s", json_string_value(json_object_get(rec, "case")),
               err);
    }
}

static int in_list(const json_t *list, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) if (strcmp(json_string_value(v), s) == 0) return 1;
    return 0;
}

static int safe_run_dir(const char *d)
{
    return d && strncmp(d, "runs/", 5) == 0 && d[5] && !strchr(d + 5, '/') && strcmp(d + 5, ".") != 0 &&
           strcmp(d + 5, "..") != 0;
}

static int audit_root(audit *a)
{
    char err[1400];
    int bad;
    json_t *manifest = tp_read_selfhashed("manifest.json", &bad, err, sizeof err);
    if (!manifest) {
        report(a, 0, "manifest.json", "%s", err);
        return bad ? 1 : 2;
    }
    report(a, 1, "manifest.json", "self_sha256 matches its bytes");
    int rc = 0;

    /* structure, against the schema this tolproof was built with for the
     * bundle's format (format 2 bundles, written before index.html, have
     * their own): a bundle's own copy is only compared with it (a bundle
     * that brings `{}` as its schema would check itself) */
    long long format = json_integer_value(json_object_get(manifest, "tolproof_bundle"));
    const char *schema_text = tp_manifest_schema_of(format) ? tp_manifest_schema_of(format) : tp_manifest_schema();
    const char *schema_doc = schema_text == tp_manifest_schema() ? "docs/manifest.schema.json"
                                                                 : "docs/manifest.schema.v2.json";
    json_error_t je;
    json_t *schema = json_loads(schema_text, JSON_REJECT_DUPLICATES, &je);
    int s = schema ? tp_schema_validate(schema, manifest, err, sizeof err) : -1;
    report(a, s == 0, "manifest.json",
           s == 0 ? "follows the manifest schema this tolproof ships (%s)"
                  : "does not follow the manifest schema this tolproof ships (%s): %s",
           schema_doc, schema ? err : je.text);
    json_decref(schema);
    size_t slen;
    char *copy = tp_read_all("manifest.schema.json", &slen);
    int same = copy && slen == strlen(schema_text) && memcmp(copy, schema_text, slen) == 0;
    report(a, same, "manifest.schema.json",
           copy ? "%s the schema this tolproof ships (%s)" : "missing or unreadable",
           same ? "is byte for byte" : "differs from", schema_doc);
    free(copy);
    const json_t *files = json_object_get(manifest, "files");
    const json_t *mruns = json_object_get(manifest, "runs");
    if (!tp_manifest_schema_of(format) || !json_is_object(files) || !json_is_array(mruns)) {
        report(a, 0, "manifest.json",
               "not a tolproof_bundle %d (or %d) manifest (format %lld; a files object and a runs array)",
               TP_BUNDLE_FORMAT, TP_BUNDLE_FORMAT_OLDEST, format);
        json_decref(manifest);
        return 2;
    }
    if (format != TP_BUNDLE_FORMAT)
        report(a, 1, "manifest.json",
               "a format %lld bundle (written before index.html): audited as that format, against its schema", format);

    /* every hash, and nothing unlisted */
    json_t *list = tp_list_files(".");
    if (!list) {
        report(a, 0, ".", "cannot list the bundle");
        json_decref(manifest);
        return 2;
    }
    int nbad = a->failed;
    size_t i;
    json_t *f;
    json_array_foreach(list, i, f)
    {
        const char *p = json_string_value(f);
        if (strcmp(p, "manifest.json") == 0 || strcmp(p, "timing.json") == 0 || strcmp(p, "signature.json") == 0)
            continue;
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode))
            report(a, 0, p, "not a regular file");
        else if (!json_object_get(files, p))
            report(a, 0, p, "not listed in manifest.json");
    }
    const char *p;
    json_t *h;
    json_object_foreach((json_t *)files, p, h)
    {
        char sha[65];
        if (!in_list(list, p) || tp_sha256_file(p, sha) != 0)
            report(a, 0, p, "listed in manifest.json but missing");
        else if (!json_is_string(h) || strcmp(sha, json_string_value(h)) != 0)
            report(a, 0, p, "SHA-256 %s differs from manifest.json's %s", sha, json_is_string(h) ? json_string_value(h) : "(not a string)");
    }
    if (a->failed == nbad)
        report(a, 1, "manifest.json", "all %zu listed files match their SHA-256, none unlisted", json_object_size(files));
    json_t *timing = tp_read_selfhashed("timing.json", &bad, err, sizeof err);
    report(a, timing != NULL, "timing.json", timing ? "self_sha256 matches its bytes" : "%s", err);
    json_decref(timing);

    /* every run listed, every case re-derived */
    json_t *runs = json_array();
    json_t *on_disk = tp_list_files("runs");
    json_array_foreach(on_disk, i, f)
    {
        char top[600], dir[700];
        snprintf(top, sizeof top, "%s", json_string_value(f));
        top[strcspn(top, "/")] = 0;
        snprintf(dir, sizeof dir, "runs/%s", top);
        int listed = 0;
        size_t k;
        json_t *r;
        json_array_foreach(mruns, k, r) listed |= strcmp(json_string_value(json_object_get(r, "dir")) ?: "", dir) == 0;
        if (!listed)
            report(a, 0, json_string_value(f), "belongs to no run of manifest.json's runs, so nothing re-derives it");
    }
    json_decref(on_disk);
    json_t *r;
    json_array_foreach(mruns, i, r)
    {
        const char *dir = json_string_value(json_object_get(r, "dir"));
        if (!safe_run_dir(dir)) {
            report(a, 0, "manifest.json", "runs[%zu].dir is not runs/NAME", i);
            continue;
        }
        char file[700];
        snprintf(file, sizeof file, "%s/results.json", dir);
        json_t *res = json_load_file(file, JSON_REJECT_DUPLICATES, &je);
        if (!res) {
            report(a, 0, file, "cannot be read: line %d: %s", je.line, je.text);
            continue;
        }
        /* as JSON for the manifest (the seeds of refused cases); replay
         * below reads it as a plan and reports what is wrong with it */
        snprintf(file, sizeof file, "%s/plan.json", dir);
        json_t *plan = json_load_file(file, 0, &je);
        if (!plan)
            plan = json_null();
        snprintf(file, sizeof file, "%s/results.json", dir);
        tp_replay_opts opts = {.on_case = on_case, .ctx = a};
        int ncases = 0;
        int s = tp_replay_dir(dir, a->quiet, NULL, &ncases, &opts);
        a->checks += ncases;
        a->gpu_errors += opts.gpu_errors;
        tp_tally t;
        char contract[320];
        tp_tally_results(res, &t);
        tp_tally_contract(&t, contract, sizeof contract);
        if (s)
            report(a, 0, file, "%s", opts.first[0] ? strchr(opts.first, ' ') + 1 : "does not re-derive");
        else if (opts.gpu_errors)
            report(a, 1, file,
                   "%d case(s) re-derived from the seeds and the stored outputs, %d error(s) by device, fault or timeout "
                   "on the GPU's word; contract: %s",
                   ncases - opts.gpu_errors, opts.gpu_errors, contract);
        else
            report(a, 1, file, "all %d case(s) re-derived from the seeds and the stored outputs; contract: %s", ncases,
                   contract);
        json_array_append_new(runs, json_pack("{s:s,s:o,s:o}", "run", dir + 5, "results", res, "plan", plan));
    }

    /* every generated file */
    json_t *proofs = tp_proofs_load(".", err, sizeof err);
    a->no_proofs = proofs && json_array_size(proofs) == 0;
    if (!proofs)
        report(a, 0, "proofs", "%s", err);
    else {
        tp_bfiles gen = {0};
        tp_bundle_reports(&gen, runs, proofs);
        if (format >= 3)
            tp_html_index(&gen, runs, proofs);
        for (size_t k = 0; k < gen.n; k++)
            compare_bytes(a, gen.v[k].path, gen.v[k].data, gen.v[k].len);
        tp_bfiles_free(&gen);
        json_t *want = tp_manifest_derived(runs, proofs);
        const char *key;
        json_t *v;
        json_object_foreach(want, key, v)
        {
            char path[1024];
            snprintf(path, sizeof path, ".%s", key);
            if (tp_json_first_difference(json_object_get(manifest, key), v, path, sizeof path))
                report(a, 0, "manifest.json", "first disagreement at %s with the bundle's results and proofs", path);
            else
                report(a, 1, "manifest.json", ".%s matches the bundle's results and proofs", key);
        }
        json_decref(want);
    }
    for (size_t k = 0; k < a->plots.n; k++)
        compare_bytes(a, a->plots.v[k].path, a->plots.v[k].data, a->plots.v[k].len);
    json_array_foreach(list, i, f)
    {
        const char *q = json_string_value(f);
        int made = 0;
        for (size_t k = 0; k < a->plots.n && !made; k++)
            made = strcmp(a->plots.v[k].path, q) == 0;
        if (strncmp(q, "plots/", 6) == 0 && !made)
            report(a, 0, q, "no re-derived case has this plot");
    }
    json_decref(proofs);
    json_decref(runs);
    json_decref(list);
    json_decref(manifest);

    /* who vouches for these bytes: only a signature can say */
    a->signature = tp_sign_verify(".", a->key, a->signer, err, sizeof err);
    if (a->signature != 1 || a->key)
        report(a, a->signature == 0, "signature.json", "%s%s", err,
               a->signature == 1 ? "; --key asks for a bundle signed by that key" : "");
    return rc;
}

/* What the audit showed and what it cannot show, in words, after the tally. */
static void trust_statement(const audit *a)
{
    printf("# shown: every verdict%s re-derived from the bundled tensors and the seeds, every generated file\n"
           "#   regenerated, every file hashed in manifest.json, nothing unlisted\n",
           a->gpu_errors ? " with outputs" : "");
    printf("# on the GPU's word alone: %d verdict(s), errors by device, fault or timeout (a kernel that faulted or hung\n"
           "#   leaves no outputs to re-derive); a contract with such a case is not met\n",
           a->gpu_errors);
    if (a->no_proofs)
        printf("# not shown: that any oracle is proven (the bundle has no proof reports)\n");
    if (a->signature == 0 && a->key)
        printf("# signed: by key %s, the key given with --key: its holder vouches for these exact bytes,\n"
               "#   the git commit, tool versions and timing.json included\n",
               a->signer);
    else if (a->signature == 0)
        printf("# signed: by key %s, which no --key named: the bytes are as that key's holder signed them,\n"
               "#   but who holds it is not shown (give --key PUB with a public key you trust)\n",
               a->signer);
    else if (a->signature == 1)
        printf("# unsigned: who produced this bundle is not shown. Anyone can rewrite outputs and recompute every\n"
               "#   hash; the git commit, tool versions and timing.json are the bundler's word. Only a signature\n"
               "#   checked with --key shows who made it\n");
    printf("# not shown by any bundle: that a GPU really ran the kernel (the outputs could come from anywhere)\n");
}

#define SYNOPSIS "tolproof audit [--quiet] [--key PUB.pem] BUNDLE_DIR|BUNDLE.tar.gz\n"

const char tp_audit_usage[] = "       " SYNOPSIS;

void tp_audit_help(FILE *f)
{
    fprintf(f, "usage: " SYNOPSIS
               "Re-checks an evidence bundle (written by `tolproof bundle`) without a GPU: every hash,\n"
               "the manifest against the schema this tolproof ships (docs/manifest.schema.json; the\n"
               "bundle's copy must be that file), every case of every plan re-derived from the seeds\n"
               "and stored outputs, every generated file (summaries, index.html, TAP logs, plots, the\n"
               "manifest's runs, devices and proofs) regenerated and compared byte for byte, and\n"
               "signature.json. A format 2 bundle (\"tolproof_bundle\": 2, written before index.html)\n"
               "is audited as that format, against docs/manifest.schema.v2.json and without index.html.\n"
               "Prints one TAP-style line per check, then what the audit showed and what it cannot,\n"
               "and how many verdicts rest on the GPU's word alone (errors by device, fault or timeout: a kernel\n"
               "that faulted or hung leaves no outputs; its contract is not met):\n"
               "an unsigned bundle shows that its files agree with each other, not who made it (anyone\n"
               "can rewrite outputs and recompute every hash); a signature checked with --key shows who\n"
               "made it; nothing in a bundle shows that a GPU really ran the kernel.\n"
               "  --quiet    print only the checks that fail (and one short line per re-derived case)\n"
               "  --key PUB  require a valid Ed25519 signature by this public key (PEM, as written by\n"
               "             `openssl pkey -in KEY -pubout`)\n"
               "Before anything is read, a bundle must hold only regular files and directories (no links,\n"
               "FIFOs or devices), at most %d of them, no file over %lld MiB, %lld MiB in all, and\n"
               "paths of at most %d bytes and %d levels. An archive is read member by member into a\n"
               "temporary directory (removed however the audit ends) and refused at the first member\n"
               "that is not a regular file or directory, lies outside its one top-level directory,\n"
               "comes twice or crosses a limit.\n"
               "Exit status: 0 everything matches, 1 a disagreement (a signature included), 2 unreadable\n"
               "or refused.\n",
            TP_BUNDLE_MAX_ENTRIES, TP_BUNDLE_MAX_FILE_BYTES >> 20, TP_BUNDLE_MAX_TOTAL_BYTES >> 20, TP_BUNDLE_MAX_PATH,
            TP_BUNDLE_MAX_DEPTH);
}

/* The audit of one bundle directory, from inside it: paths are reported
 * relative to the bundle root, the same for a directory and its archive.
 * 0, 1 or 2 as the command's exit status. */
static int audit_dir(audit *a, const char *root)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char cwd[PATH_MAX], err[1200];
    tp_limits lim = tp_bundle_limits();
    if (tp_tree_check(root, &lim, err, sizeof err) != 0) {
        printf("not ok - %s: cannot be audited: %s\n", a->bundle, err);
        return 2;
    }
    if (!getcwd(cwd, sizeof cwd) || chdir(root) != 0) {
        printf("not ok - %s: cannot enter it\n", root);
        return 2;
    }
    int rc = audit_root(a);
    if (chdir(cwd) != 0)
        rc = 2;
    if (!rc && a->failed)
        rc = 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("# audit of %s: %d check(s), %d failed, %.1f s: %s\n", a->bundle, a->checks, a->failed,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           rc == 0 ? "everything matches" : "DISAGREEMENT");
    if (rc)
        printf("# first disagreement: %s\n", a->first[0] ? a->first : "(none recorded)");
    else
        trust_statement(a);
    return rc;
}

typedef struct {
    audit *a;
    const char *archive, *tmp;
} archive_job;

/* In the guarded child: extract, then audit. */
static int audit_archive(void *ctx)
{
    archive_job *job = ctx;
    char top[256], err[1200], root[PATH_MAX];
    tp_limits lim = tp_bundle_limits();
    if (tp_untar(job->archive, job->tmp, &lim, top, sizeof top, err, sizeof err) != 0) {
        printf("not ok - %s: cannot be audited: %s\n", job->archive, err);
        return 2;
    }
    snprintf(root, sizeof root, "%s/%s", job->tmp, top);
    return audit_dir(job->a, root);
}

int tp_audit_main(int argc, char **argv)
{
    audit a = {0};
    const char *bundle = NULL, *key = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0)
            a.quiet = 1;
        else if (strcmp(argv[i], "--key") == 0 && i + 1 < argc)
            key = argv[++i];
        else if (!bundle && argv[i][0] != '-')
            bundle = argv[i];
        else
            bundle = NULL, i = argc;
    }
    if (!bundle) {
        tp_audit_help(stderr);
        return 2;
    }
    a.bundle = bundle;
    char err[1200];
    if (key && !(a.key = tp_sign_load_public(key, err, sizeof err))) {
        fprintf(stderr, "tolproof audit: --key %s\n", err);
        return 2;
    }
    struct stat st;
    int rc;
    if (stat(bundle, &st) != 0) {
        printf("not ok - %s: cannot be read\n", bundle);
        rc = 2;
    } else if (S_ISDIR(st.st_mode))
        rc = audit_dir(&a, bundle);
    else {
        /* an archive: extracted into a temporary directory that is removed
         * however the audit ends (a crash, Ctrl-C, a kill) */
        char tmp[PATH_MAX];
        const char *t = getenv("TMPDIR");
        if (tp_guard_mkdtemp(t && *t ? t : "/tmp", "tolproof-audit", tmp, sizeof tmp) != 0) {
            printf("not ok - %s: cannot create a temporary directory in %s\n", bundle, t && *t ? t : "/tmp");
            rc = 2;
        } else {
            archive_job job = {&a, bundle, tmp};
            rc = tp_guard_run(tmp, audit_archive, &job);
            if (rc < 0) {
                printf("not ok - %s: the audit stopped on signal %d (%s); its temporary directory is removed\n",
                       bundle, -rc, strsignal(-rc));
                printf("# audit of %s: DISAGREEMENT (the audit did not finish)\n", bundle);
                rc = 2;
            }
        }
    }
    tp_bfiles_free(&a.plots);
    EVP_PKEY_free(a.key);
    return rc;
}
