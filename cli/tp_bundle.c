/* `tolproof bundle --out DIR [--proofs DIR] [--tap FILE] [--schema FILE] RUN_DIR...`
 *
 * An evidence bundle is a directory (and DIR.tar.gz of it) that a reviewer
 * re-checks with `tolproof audit` on any machine, without the GPU:
 *
 *   manifest.json          SHA-256 of every other file but timing.json; tool
 *                          versions, git commit and cleanliness, devices,
 *                          seeds and verdicts of every case, proof summaries
 *   manifest.schema.json   the JSON Schema of manifest.json (docs/)
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
 *   tests.tap              with --tap FILE: that log, verbatim
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
 * form, so a flipped whitespace byte fails too. With every other file
 * hashed in the manifest, no byte of a bundle can change unnoticed; and
 * since hashes can be recomputed by anyone, the audit also re-derives every
 * verdict and regenerates every generated file. */
#define _GNU_SOURCE
#include "cli/tp_bundle.h"
#include "harness/tp_check.h"

#include "core/tp_case.h"
#include "core/tp_sha256.h"
#include "cli/tp_replay.h"
#include "harness/tp_report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ------------------------------------------------------------ small helpers */

void tp_bfiles_add(tp_bfiles *fs, const char *path, char *data, size_t len)
{
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 16;
        fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
    }
    fs->v[fs->n].path = strdup(path);
    fs->v[fs->n].data = data;
    fs->v[fs->n].len = len;
    fs->n++;
}

void tp_bfiles_free(tp_bfiles *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->v[i].path);
        free(fs->v[i].data);
    }
    free(fs->v);
    fs->v = NULL;
    fs->n = fs->cap = 0;
}

char *tp_read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static int write_all(const char *path, const void *data, size_t len)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
        if (tp_mkdirs(dir) != 0)
            return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(data, 1, len, f) != len;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

static int copy_file(const char *from, const char *to)
{
    size_t len;
    char *data = tp_read_all(from, &len);
    if (!data)
        return -1;
    int rc = write_all(to, data, len);
    free(data);
    return rc;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

/* A path from its parts into out: -1 when it does not fit, since a path
 * cut short would name another file. */
static int path_of(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int path_of(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Sorted by byte value, not locale, so listings agree everywhere. */
static int list_into(const char *root, const char *rel, json_t *out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s%s%s", root, rel[0] ? "/" : "", rel);
    struct dirent **ents;
    int n = scandir(path, &ents, NULL, by_name);
    if (n < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && rc == 0) {
            char sub[4200], full[4200];
            struct stat st;
            if (path_of(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", name) != 0 ||
                path_of(full, sizeof full, "%s/%s", root, sub) != 0 || lstat(full, &st) != 0)
                rc = -1;
            else if (S_ISDIR(st.st_mode))
                rc = list_into(root, sub, out);
            else
                json_array_append_new(out, json_string(sub)); /* links and others too: the audit refuses them */
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

json_t *tp_bundle_list_files(const char *root)
{
    json_t *out = json_array();
    if (list_into(root, "", out) != 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

/* Runs argv (no shell) with stdout to out_path (NULL: inherited) or, with
 * capture, stdout and stderr into capture. Returns the exit status, or -1
 * when it could not run. */
static int spawn(char *const argv[], const char *out_path, char *capture, size_t caplen)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    int pipefd[2] = {-1, -1};
    if (capture) {
        if (pipe(pipefd) != 0)
            return -1;
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
        posix_spawn_file_actions_addclose(&fa, pipefd[0]);
        posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    } else if (out_path)
        posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (capture) {
        close(pipefd[1]);
        size_t n = 0;
        ssize_t got;
        char sink[4096];
        while ((got = read(pipefd[0], n + 1 < caplen ? capture + n : sink,
                           n + 1 < caplen ? caplen - 1 - n : sizeof sink)) > 0)
            if (n + 1 < caplen)
                n += (size_t)got;
        capture[n] = 0;
        close(pipefd[0]);
    }
    if (rc != 0)
        return -1;
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int tp_bundle_spawn(char *const argv[], const char *out_path) { return spawn(argv, out_path, NULL, 0); }

/* ------------------------------------------------------ self-hashed JSON */

static const char SELF_KEY[] = "\"self_sha256\": \"";

int tp_write_selfhashed(const char *path, const json_t *j)
{
    json_t *copy = json_deep_copy(j);
    json_object_del(copy, "self_sha256");
    char *text = json_dumps(copy, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    json_decref(copy);
    if (!text)
        return -1;
    size_t n = strlen(text);
    /* json_dumps ends an indented non-empty object with "\n}" */
    if (n < 3 || strcmp(text + n - 2, "\n}") != 0) {
        free(text);
        return -1;
    }
    text[n - 2] = 0;
    char *prefix = NULL;
    if (asprintf(&prefix, "%s,\n ", text) < 0) {
        free(text);
        return -1;
    }
    free(text);
    char hex[65];
    tp_sha256_hex(prefix, strlen(prefix), hex);
    char *all = NULL;
    int len = asprintf(&all, "%s%s%s\"\n}\n", prefix, SELF_KEY, hex);
    free(prefix);
    if (len < 0)
        return -1;
    int rc = write_all(path, all, (size_t)len);
    free(all);
    return rc;
}

json_t *tp_read_selfhashed(const char *path, int *bad, char *err, size_t errlen)
{
    size_t len;
    *bad = 0;
    char *data = tp_read_all(path, &len);
    if (!data) {
        snprintf(err, errlen, "cannot read it");
        return NULL;
    }
    *bad = 1;
    char *key = NULL;
    for (char *p = data; (p = memmem(p, len - (size_t)(p - data), SELF_KEY, sizeof SELF_KEY - 1)); p++)
        key = p;
    if (!key) {
        snprintf(err, errlen, "no \"self_sha256\" key");
        free(data);
        return NULL;
    }
    size_t at = (size_t)(key - data);
    const char *hex = key + sizeof SELF_KEY - 1;
    size_t rest = len - at - (sizeof SELF_KEY - 1);
    int layout = rest == 64 + 4 && memcmp(hex + 64, "\"\n}\n", 4) == 0;
    for (int i = 0; layout && i < 64; i++)
        layout = (hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f');
    if (!layout) {
        snprintf(err, errlen, "bytes after \"self_sha256\" at byte %zu are not 64 lowercase hex digits and \"\\n}\\n\"",
                 at);
        free(data);
        return NULL;
    }
    char want[65];
    tp_sha256_hex(data, at, want);
    if (memcmp(want, hex, 64) != 0) {
        snprintf(err, errlen, "self_sha256 is %.64s but the first %zu bytes hash to %s", hex, at, want);
        free(data);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    free(data);
    if (!j || !json_is_object(j)) {
        snprintf(err, errlen, "line %d: %s", je.line, j ? "not an object" : je.text);
        json_decref(j);
        return NULL;
    }
    *bad = 0;
    return j;
}


static json_t *or_null(const json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);
    return v ? v : json_null();
}

static const char *str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

typedef struct {
    int cases, pass, fail, refused, implied, strict, loose;
    double worst_ratio;
} run_stats;

static run_stats stats_of(const json_t *res)
{
    run_stats s = {0};
    size_t i;
    json_t *cr;
    json_array_foreach(json_object_get(res, "cases"), i, cr)
    {
        const char *v = str(cr, "verdict");
        s.cases++;
        s.pass += strcmp(v, "pass") == 0;
        s.fail += strcmp(v, "fail") == 0;
        s.refused += strcmp(v, "pass") != 0 && strcmp(v, "fail") != 0;
        const char *name;
        json_t *o;
        int st = 0, lo = 0, counted = 0;
        json_object_foreach(json_object_get(cr, "outputs"), name, o)
        {
            json_t *claim = json_object_get(o, "claim");
            st |= json_integer_value(json_object_get(claim, "strict_elements")) > 0;
            lo |= json_integer_value(json_object_get(claim, "loose_elements")) > 0;
            counted = 1;
            double r = tp_json_to_num(json_object_get(o, "max_err_over_bound"));
            if (strcmp(v, "pass") == 0 && r > s.worst_ratio)
                s.worst_ratio = r;
        }
        if (counted) {
            s.strict += st;
            s.loose += lo;
            s.implied += !st && !lo;
        }
    }
    return s;
}

/* The worst of a per-output statistic over the outputs of a case. */
static double case_stat(const json_t *cr, const char *key)
{
    const char *name;
    json_t *o;
    double m = 0;
    json_object_foreach(json_object_get(cr, "outputs"), name, o) m = fmax(m, tp_json_to_num(json_object_get(o, key)));
    return m;
}

static const char *case_claim(const json_t *cr)
{
    const char *name, *v = "-";
    json_t *o;
    json_object_foreach(json_object_get(cr, "outputs"), name, o)
    {
        const char *w = json_string_value(json_object_get(json_object_get(o, "claim"), "verdict"));
        if (w && (strcmp(v, "-") == 0 || strcmp(v, "implied") == 0))
            v = w;
    }
    return v;
}

static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

static void tex(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '\\': fputs("\\textbackslash{}", f); break;
        case '~': fputs("\\textasciitilde{}", f); break;
        case '^': fputs("\\textasciicircum{}", f); break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}': fputc('\\', f); fputc(*s, f); break;
        default: fputc(*s, f);
        }
}

static void summary_md(FILE *f, const json_t *runs, const json_t *proofs)
{
    fprintf(f, "# Evidence bundle\n\n");
    fprintf(f, "Every verdict below is re-derived by `tolproof audit` from the recorded seeds and the stored "
               "outputs; times are in `timing.json`, hashes in `manifest.json`.\n\n");
    fprintf(f, "## Contracts\n\n");
    fprintf(f, "| run | contract | device | arch | backend | cases | pass | fail | refused | max err/bound (passing "
               "cases) | claim: implied / too strict / too loose (cases) | contract met |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        const json_t *dev = json_object_get(res, "device");
        run_stats s = stats_of(res);
        fprintf(f, "| %s | %s | ", str(r, "run"), str(res, "contract"));
        md_cell(f, str(dev, "name"));
        fprintf(f, " | %s | %s | %d | %d | %d | %d | %.3g | %d / %d / %d | %s |\n", str(dev, "arch"),
                str(res, "backend"), s.cases, s.pass, s.fail, s.refused, s.worst_ratio, s.implied, s.strict, s.loose,
                s.fail ? "**violated**" : "met");
    }
    if (json_array_size(proofs)) {
        fprintf(f, "\n## Proofs (Frama-C/WP)\n\n| oracle | tiers | goals | proved | provers |\n|---|---|---|---|---|\n");
        json_t *p;
        json_array_foreach(proofs, i, p)
        {
            json_int_t goals = json_integer_value(json_object_get(p, "goals")),
                       proved = json_integer_value(json_object_get(p, "proved"));
            fprintf(f, "| %s | %s | %lld | %s%lld%s | ", str(p, "oracle"), str(p, "tiers"), (long long)goals,
                    proved < goals ? "**" : "", (long long)proved, proved < goals ? " (not all proved)**" : "");
            size_t k;
            json_t *pv;
            json_array_foreach(json_object_get(p, "provers"), k, pv)
            {
                fprintf(f, "%s", k ? ", " : "");
                md_cell(f, json_string_value(pv) ? json_string_value(pv) : "");
            }
            fprintf(f, " |\n");
        }
    }
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        const json_t *dev = json_object_get(res, "device");
        fprintf(f, "\n## %s\n\n`%s` on ", str(r, "run"), str(json_object_get(res, "kernel"), "source"));
        md_cell(f, str(dev, "name"));
        fprintf(f, " (%s); results in `runs/%s/results.json` (each case's Evidence and Non-claims lists are "
                   "there).\n\n",
                str(dev, "arch"), str(r, "run"));
        fprintf(f, "| case | seed | dims | verdict | violations | elements | max err | max ulp | max err/bound | "
                   "claim | plots |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        size_t k;
        json_t *cr;
        json_array_foreach(json_object_get(res, "cases"), k, cr)
        {
            const char *verdict = str(cr, "verdict");
            fprintf(f, "| %s | %lld | ", str(cr, "case"), (long long)json_integer_value(json_object_get(cr, "seed")));
            const char *dn;
            json_t *dv;
            int first = 1;
            json_object_foreach(json_object_get(cr, "dims"), dn, dv)
            {
                fprintf(f, "%s%s=%lld", first ? "" : " ", dn, (long long)json_integer_value(dv));
                first = 0;
            }
            if (strcmp(verdict, "pass") != 0 && strcmp(verdict, "fail") != 0) {
                fprintf(f, " | %s: ", verdict);
                md_cell(f, str(cr, "reason"));
                fprintf(f, " | - | - | - | - | - | - | - |\n");
                continue;
            }
            int64_t viol = 0, n = 0;
            const char *on;
            json_t *o;
            json_object_foreach(json_object_get(cr, "outputs"), on, o)
            {
                viol += json_integer_value(json_object_get(o, "violations"));
                n += json_integer_value(json_object_get(o, "elements"));
            }
            fprintf(f, " | %s%s%s | %lld | %lld | %.3g | %.3g | %.3g | %s | ", strcmp(verdict, "fail") == 0 ? "**" : "",
                    verdict, strcmp(verdict, "fail") == 0 ? "**" : "", (long long)viol, (long long)n,
                    case_stat(cr, "max_abs_err"), case_stat(cr, "max_ulp_err"), case_stat(cr, "max_err_over_bound"),
                    case_claim(cr));
            first = 1;
            json_object_foreach(json_object_get(cr, "outputs"), on, o)
            {
                fprintf(f, "%s[%s](plots/%s/%s/%s.svg)", first ? "" : " ", on, str(r, "run"), str(cr, "case"), on);
                first = 0;
            }
            fprintf(f, " |\n");
        }
    }
}

static void summary_tex(FILE *f, const json_t *runs)
{
    fprintf(f, "%% tolproof evidence bundle: one row per contract run (needs \\usepackage{booktabs}).\n");
    fprintf(f, "%% Claim: cases where the authors' tolerance is implied by the proven bound / too strict (it\n");
    fprintf(f, "%% rejects outputs the model admits) / too loose (it accepts outputs the model rules out).\n");
    fprintf(f, "\\begin{tabular}{lllrrrrrl}\n\\toprule\n");
    fprintf(f, "Contract & Device & Arch & Cases & Pass & Fail & Refused & Max err/bound & Claim (impl./strict/loose) "
               "\\\\\n\\midrule\n");
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        const json_t *dev = json_object_get(res, "device");
        run_stats s = stats_of(res);
        tex(f, str(r, "run"));
        fprintf(f, " & ");
        tex(f, str(dev, "name"));
        fprintf(f, " & ");
        tex(f, str(dev, "arch"));
        fprintf(f, " & %d & %d & %d & %d & %.3g & %d / %d / %d \\\\\n", s.cases, s.pass, s.fail, s.refused,
                s.worst_ratio, s.implied, s.strict, s.loose);
    }
    fprintf(f, "\\bottomrule\n\\end{tabular}\n");
}

static void combined_tap(FILE *f, const json_t *runs)
{
    size_t total = 0, i, k;
    json_t *r, *cr;
    json_array_foreach(runs, i, r) total += json_array_size(json_object_get(json_object_get(r, "results"), "cases"));
    fprintf(f, "1..%zu\n", total);
    size_t n = 0;
    json_array_foreach(runs, i, r)
    {
        json_array_foreach(json_object_get(json_object_get(r, "results"), "cases"), k, cr)
        {
            char line[600];
            tp_case_line(line, sizeof line, cr);
            fprintf(f, "%s %zu - %s/%s: %s\n", strcmp(str(cr, "verdict"), "pass") == 0 ? "ok" : "not ok", ++n,
                    str(r, "run"), str(cr, "case"), line);
        }
    }
}

void tp_bundle_reports(tp_bfiles *out, const json_t *runs, const json_t *proofs)
{
    char *buf;
    size_t len;
    FILE *f;
    size_t i;
    json_t *r;
    /* Written from the parsed results.json rather than copied: the
     * harness's own results.tap picks the claim word of the first output in
     * the order the checker built them, which a parsed file (sorted keys)
     * does not keep, so only a rewritten log can be regenerated by the
     * audit byte for byte. */
    json_array_foreach(runs, i, r)
    {
        char path[400];
        snprintf(path, sizeof path, "runs/%s/results.tap", str(r, "run"));
        f = open_memstream(&buf, &len);
        tp_write_tap(f, json_object_get(r, "results"));
        fclose(f);
        tp_bfiles_add(out, path, buf, len);
    }
    f = open_memstream(&buf, &len);
    summary_md(f, runs, proofs);
    fclose(f);
    tp_bfiles_add(out, "summary.md", buf, len);
    f = open_memstream(&buf, &len);
    summary_tex(f, runs);
    fclose(f);
    tp_bfiles_add(out, "summary.tex", buf, len);
    f = open_memstream(&buf, &len);
    combined_tap(f, runs);
    fclose(f);
    tp_bfiles_add(out, "results.tap", buf, len);
}

/* The seed of case `name` in a run's plan.json (as JSON: the manifest
 * copies it as it is), or NULL. */
static json_t *plan_seed(const json_t *plan, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(plan, "cases"), i, c)
    {
        if (json_is_string(json_object_get(c, "name")) && strcmp(str(c, "name"), name) == 0)
            return json_object_get(c, "seed");
    }
    return NULL;
}

json_t *tp_bundle_derived_manifest(const json_t *runs, const json_t *proofs)
{
    json_t *mruns = json_array(), *devices = json_array(), *mproofs = json_array();
    size_t i, k;
    json_t *r, *cr, *p;
    json_array_foreach(runs, i, r)
    {
        const json_t *res = json_object_get(r, "results");
        json_t *cases = json_array();
        json_array_foreach(json_object_get(res, "cases"), k, cr)
        {
            /* refused cases record no seed; the plan has it for every case */
            json_t *seed = json_object_get(cr, "seed");
            if (!seed && json_is_string(json_object_get(cr, "case")))
                seed = plan_seed(json_object_get(r, "plan"), str(cr, "case"));
            json_t *c = json_pack("{s:s,s:O,s:s}", "case", str(cr, "case"), "seed", seed ? seed : json_null(),
                                  "verdict", str(cr, "verdict"));
            if (json_object_get(cr, "inputs_from"))
                json_object_set(c, "inputs_from", json_object_get(cr, "inputs_from"));
            json_array_append_new(cases, c);
        }
        const json_t *dev = json_object_get(res, "device");
        json_t *d = json_pack("{s:s,s:s,s:I,s:I,s:s,s:s}", "name", str(dev, "name"), "arch", str(dev, "arch"),
                              "driver_version", json_integer_value(json_object_get(dev, "driver_version")),
                              "runtime_version", json_integer_value(json_object_get(dev, "runtime_version")),
                              "backend", str(res, "backend"), "compiler_version", str(res, "compiler_version"));
        int seen = 0;
        json_t *e;
        json_array_foreach(devices, k, e) seen |= json_equal(e, d);
        json_array_append_new(mruns,
                              json_pack("{s:s,s:s,s:s,s:O,s:s,s:s,s:s,s:s,s:o}", "dir", "",
                                        "contract", str(res, "contract"),
                                        "contract_sha256", str(res, "contract_sha256"), "device", d, "backend",
                                        str(res, "backend"), "compiler_version", str(res, "compiler_version"),
                                        "kernel_source", str(json_object_get(res, "kernel"), "source"),
                                        "kernel_sha256", str(json_object_get(res, "kernel"), "sha256"), "cases",
                                        cases));
        char dir[300];
        snprintf(dir, sizeof dir, "runs/%s", str(r, "run"));
        json_object_set_new(json_array_get(mruns, i), "dir", json_string(dir));
        if (!seen)
            json_array_append(devices, d);
        json_decref(d);
    }
    json_array_foreach(proofs, i, p)
    {
        json_array_append_new(mproofs, json_pack("{s:s,s:O,s:O,s:O,s:O}", "oracle", str(p, "oracle"), "goals",
                                                 or_null(p, "goals"), "proved", or_null(p, "proved"), "provers",
                                                 or_null(p, "provers"), "tiers", or_null(p, "tiers")));
    }
    return json_pack("{s:o,s:o,s:o}", "runs", mruns, "devices", devices, "proofs", mproofs);
}

/* ------------------------------------------------------------ the bundler */

/* The first line a tool prints about its version; "unknown" when it is
 * missing or fails: a bundle records what it can, it never fails on this. */
static json_t *tool_version(char *const argv[])
{
    char out[4096];
    int rc = spawn(argv, NULL, out, sizeof out);
    char *s = out;
    while (*s == '\n' || *s == ' ' || *s == '\r')
        s++;
    s[strcspn(s, "\r\n")] = 0;
    for (size_t n = strlen(s); n && s[n - 1] == ' '; n--)
        s[n - 1] = 0;
    return json_string(rc == 0 && *s ? s : "unknown");
}

static json_t *tools(void)
{
    json_t *t = json_object();
    struct {
        const char *key;
        char *argv[5];
    } all[] = {
        {"frama-c", {"frama-c", "-version", NULL}},
        {"why3", {"why3", "--version", NULL}},
        {"z3", {"z3", "--version", NULL}},
        {"cvc4", {"cvc4", "--version", NULL}},
        {"gappa", {"gappa", "--version", NULL}},
        {"coqc", {"coqc", "--version", NULL}},
        {"python3", {"/usr/bin/python3", "--version", NULL}},
        {"jinja2", {"/usr/bin/python3", "-c", "import jinja2; print(jinja2.__version__)", NULL}},
        {"cc", {"gcc", "--version", NULL}},
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        json_object_set_new(t, all[i].key, tool_version(all[i].argv));
    return t;
}

static json_t *git_state(void)
{
    char out[256];
    char *head[] = {"git", "rev-parse", "HEAD", NULL}, *status[] = {"git", "status", "--porcelain", NULL};
    int rc = spawn(head, NULL, out, sizeof out);
    out[strcspn(out, "\r\n")] = 0;
    json_t *commit = json_string(rc == 0 && strlen(out) == 40 ? out : "unknown");
    json_t *clean = rc != 0 ? json_string("unknown")
                    : spawn(status, NULL, out, sizeof out) != 0 ? json_string("unknown")
                                                                 : json_boolean(out[0] == 0);
    return json_pack("{s:o,s:o}", "commit", commit, "clean", clean);
}

static int by_goal(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "goal")),
                  json_string_value(json_object_get(*(json_t *const *)b, "goal")));
}

/* Each goal's prover and status from a Frama-C log, without the times
 * (they live in timing.json) and without "(cached)", which says where the
 * answer came from, not what it was. Sorted by goal: with -wp-par the
 * log's order is not stable. */
static json_t *goal_results(const char *log)
{
    size_t len;
    char *text = tp_read_all(log, &len);
    if (!text)
        return NULL;
    json_t **v = NULL;
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "[wp] [", 6) != 0)
            continue;
        char *end = strstr(line, "] Goal ");
        if (!end)
            continue;
        *end = 0;
        char *prover = line + 6, *goal = end + 7;
        char *cached = strstr(prover, " (cached)");
        if (cached)
            *cached = 0;
        char *colon = strstr(goal, " : ");
        const char *status = prover;
        if (colon) {
            *colon = 0;
            status = colon + 3;
            char *paren = strstr(colon + 3, " (");
            if (paren)
                *paren = 0;
        }
        v = realloc(v, (n + 1) * sizeof *v);
        v[n++] = json_pack("{s:s,s:s,s:s}", "goal", goal, "prover", prover, "status", status);
    }
    free(text);
    if (n)
        qsort(v, n, sizeof *v, by_goal);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, v[i]);
    free(v);
    return a;
}

static int json_name(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 5 && strcmp(e->d_name + n - 5, ".json") == 0 && strcmp(e->d_name, "summary.json") != 0;
}

/* Copies the proof reports of `from` into DIR/proofs, their times into
 * timing. -1 with err set on a report that cannot be read. */
static int import_proofs(const char *from, const char *dir, json_t *timing, char *err, size_t errlen)
{
    struct dirent **ents;
    int n = scandir(from, &ents, json_name, by_name);
    if (n < 0)
        return 0; /* no proofs run yet: the bundle says so by having none */
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4200], log[4200], to[4200];
        snprintf(path, sizeof path, "%s/%s", from, ents[i]->d_name);
        json_error_t je;
        json_t *p = rc ? NULL : json_load_file(path, 0, &je);
        if (!rc && (!p || !json_is_string(json_object_get(p, "oracle")))) {
            snprintf(err, errlen, "%s: not a proof report (%s)", path, p ? "no \"oracle\"" : je.text);
            rc = -1;
        }
        if (p && !rc) {
            const char *oracle = json_string_value(json_object_get(p, "oracle"));
            json_t *secs = json_object_get(p, "seconds");
            if (secs)
                json_object_set_new(timing, oracle, json_pack("{s:O}", "seconds", secs));
            json_object_del(p, "seconds");
            snprintf(log, sizeof log, "%s/%.*s.log", from, (int)strlen(ents[i]->d_name) - 5, ents[i]->d_name);
            json_t *goals = goal_results(log);
            if (goals)
                json_object_set_new(p, "goal_results", goals);
            snprintf(to, sizeof to, "%s/proofs", dir);
            int made = tp_mkdirs(to);
            snprintf(to, sizeof to, "%s/proofs/%s", dir, ents[i]->d_name);
            if (made != 0 || tp_write_json(to, p) != 0) {
                snprintf(err, errlen, "%s: cannot write", to);
                rc = -1;
            }
        }
        json_decref(p);
        free(ents[i]);
    }
    free(ents);
    return rc;
}

json_t *tp_bundle_load_proofs(const char *root, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/proofs", root);
    json_t *all = json_array();
    struct dirent **ents;
    int n = scandir(dir, &ents, json_name, by_name);
    for (int i = 0; i < n; i++) {
        char path[4200];
        json_error_t je;
        int fits = path_of(path, sizeof path, "%s/%s", dir, ents[i]->d_name) == 0;
        if (all && !fits) {
            snprintf(err, errlen, "proofs/%s: the path is longer than %zu bytes", ents[i]->d_name, sizeof path - 1);
            json_decref(all);
            all = NULL;
        }
        json_t *p = all ? json_load_file(path, JSON_REJECT_DUPLICATES, &je) : NULL;
        if (all && !p) {
            snprintf(err, errlen, "proofs/%s:%d: %s", ents[i]->d_name, je.line, je.text);
            json_decref(all);
            all = NULL;
        }
        if (p)
            json_array_append_new(all, p);
        free(ents[i]);
    }
    if (n > 0)
        free(ents);
    return all;
}

static int copy_outputs(const char *run, const char *to, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/outputs", run);
    struct dirent **cases;
    int nc = scandir(dir, &cases, NULL, by_name);
    if (nc < 0)
        return 0; /* every case refused: nothing was written */
    int rc = 0;
    for (int i = 0; i < nc; i++) {
        char cdir[4200];
        if (path_of(cdir, sizeof cdir, "%s/%s", dir, cases[i]->d_name) != 0 && !rc) {
            snprintf(err, errlen, "%s/%s: the path is longer than %zu bytes", dir, cases[i]->d_name, sizeof cdir - 1);
            rc = -1;
        }
        struct dirent **files;
        int nf = rc || cases[i]->d_name[0] == '.' || !is_dir(cdir) ? -1 : scandir(cdir, &files, NULL, by_name);
        for (int k = 0; k < nf; k++) {
            const char *name = files[k]->d_name;
            size_t len = strlen(name);
            if (!rc && len > 4 && strcmp(name + len - 4, ".npy") == 0) {
                char from[4200], dest[4200];
                if (path_of(from, sizeof from, "%s/%s", cdir, name) != 0 ||
                    path_of(dest, sizeof dest, "%s/outputs/%s/%s", to, cases[i]->d_name, name) != 0 ||
                    copy_file(from, dest) != 0) {
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

static void usage(FILE *f)
{
    fprintf(f, "usage: tolproof bundle --out DIR [--proofs DIR] [--tap FILE] [--schema FILE] RUN_DIR...\n"
               "  --proofs DIR  proof reports (ORACLE.json and .log, from proofs/wp.sh; default build/prove)\n"
               "  --tap FILE    a test log to include verbatim as tests.tap\n"
               "  --schema FILE the manifest's JSON Schema (default docs/manifest.schema.json)\n"
               "Writes DIR and DIR.tar.gz; a DIR that exists must be an earlier bundle (it is replaced).\n");
}

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "tolproof bundle: ");
    fprintf(stderr, fmt, a, b ? b : "");
    fputc('\n', stderr);
    return 2;
}

int tp_bundle_main(int argc, char **argv)
{
    const char *out = NULL, *proofs = "build/prove", *tap = NULL, *schema = "docs/manifest.schema.json";
    const char *runs_in[512];
    int nruns = 0;
    for (int i = 0; i < argc; i++) {
        const char **opt = strcmp(argv[i], "--out") == 0      ? &out
                           : strcmp(argv[i], "--proofs") == 0 ? &proofs
                           : strcmp(argv[i], "--tap") == 0    ? &tap
                           : strcmp(argv[i], "--schema") == 0 ? &schema
                                                              : NULL;
        if (opt && i + 1 < argc)
            *opt = argv[++i];
        else if (opt || argv[i][0] == '-' || nruns == 512) {
            usage(stderr);
            return 2;
        } else
            runs_in[nruns++] = argv[i];
    }
    if (!out || !nruns) {
        usage(stderr);
        return 2;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* err holds a message naming up to two paths */
    char dir[4096], path[4200], from[4200], err[2 * 4200 + 200];
    snprintf(dir, sizeof dir, "%s", out);
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
        dir[n - 1] = 0;
    if (is_dir(dir)) {
        snprintf(path, sizeof path, "%s/manifest.json", dir);
        if (access(path, F_OK) != 0)
            return fail("%s exists and is not a bundle (no manifest.json): not replacing it", dir, NULL);
        char *rm[] = {"rm", "-rf", "--", dir, NULL};
        if (spawn(rm, NULL, NULL, 0) != 0)
            return fail("cannot remove the earlier bundle %s", dir, NULL);
    }
    if (tp_mkdirs(dir) != 0)
        return fail("cannot create %s", dir, NULL);

    json_t *runs = json_array(), *timing_runs = json_object(), *timing_proofs = json_object();
    int status = 0;
    for (int i = 0; i < nruns && !status; i++) {
        char src[4096];
        snprintf(src, sizeof src, "%s", runs_in[i]);
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
        char to[4200];
        snprintf(to, sizeof to, "%s/runs/%s", dir, name);
        const char *files[] = {"plan.json", "results.json"};
        for (int k = 0; k < 2 && !status; k++) {
            if (path_of(from, sizeof from, "%s/%s", src, files[k]) != 0 ||
                path_of(path, sizeof path, "%s/%s", to, files[k]) != 0)
                status = fail("%s: the path is too long for %s", to, files[k]);
            else if (copy_file(from, path) != 0)
                status = fail("cannot copy %s to %s", from, path);
        }
        if (!status && copy_outputs(src, to, err, sizeof err) != 0)
            status = fail("%s%s", err, NULL);
        snprintf(from, sizeof from, "%s/timing.json", src);
        json_t *t = json_load_file(from, 0, &je);
        json_object_set_new(timing_runs, name, t ? t : json_null());
        if (!status && path_of(path, sizeof path, "%s/plan.json", to) != 0)
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
    if (!status && import_proofs(proofs, dir, timing_proofs, err, sizeof err) != 0)
        status = fail("%s%s", err, NULL);
    snprintf(path, sizeof path, "%s/manifest.schema.json", dir);
    if (!status && copy_file(schema, path) != 0)
        status = fail("cannot copy the manifest schema %s (run from the repository root, or give --schema)", schema,
                      NULL);
    snprintf(path, sizeof path, "%s/tests.tap", dir);
    if (!status && tap && copy_file(tap, path) != 0)
        status = fail("cannot copy %s", tap, NULL);

    /* generated files: reports from the results, plots from the copies */
    tp_bfiles gen = {0};
    json_t *proof_list = status ? NULL : tp_bundle_load_proofs(dir, err, sizeof err);
    if (!status && !proof_list)
        status = fail("%s%s", err, NULL);
    if (!status)
        tp_bundle_reports(&gen, runs, proof_list);
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        if (status)
            break;
        char rdir[4200];
        tp_plan *plan = NULL;
        if (path_of(rdir, sizeof rdir, "%s/runs/%s", dir, str(r, "run")) != 0 ||
            path_of(path, sizeof path, "%s/plan.json", rdir) != 0)
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
            if (c && tp_bundle_case_plots(&gen, str(r, "run"), plan, rec, c, err, sizeof err) != 0)
                status = fail("%s: %s", rdir, err);
            tp_case_free(c);
            if (status)
                break;
        }
        tp_plan_free(plan);
    }
    for (size_t k = 0; k < gen.n && !status; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, gen.v[k].path);
        if (write_all(path, gen.v[k].data, gen.v[k].len) != 0)
            status = fail("cannot write %s", path, NULL);
    }
    tp_bfiles_free(&gen);

    /* the manifest: derived sections, environment, then every file's hash */
    json_t *manifest = status ? NULL : tp_bundle_derived_manifest(runs, proof_list);
    json_t *list = status ? NULL : tp_bundle_list_files(dir);
    if (!status && !list)
        status = fail("cannot list %s", dir, NULL);
    if (!status) {
        json_object_set_new(manifest, "tolproof_bundle", json_integer(TP_BUNDLE_FORMAT));
        json_object_set_new(manifest, "schema", json_string("manifest.schema.json"));
        json_object_set_new(manifest, "tools", tools());
        json_object_set_new(manifest, "git", git_state());
        json_t *hashes = json_object();
        json_t *f;
        json_array_foreach(list, i, f)
        {
            char sha[65];
            snprintf(path, sizeof path, "%s/%s", dir, json_string_value(f));
            if (tp_sha256_file(path, sha) != 0) {
                status = fail("cannot read %s", path, NULL);
                break;
            }
            json_object_set_new(hashes, json_string_value(f), json_string(sha));
        }
        json_object_set_new(manifest, "files", hashes);
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

    /* the archive: its bytes depend on the files alone */
    if (!status) {
        char parent[4096], tmp[4200], gz[4200];
        snprintf(parent, sizeof parent, "%s", dir);
        char *slash = strrchr(parent, '/');
        const char *base = slash ? slash + 1 : dir;
        if (slash == parent)
            parent[1] = 0;
        else if (slash)
            *slash = 0;
        else
            snprintf(parent, sizeof parent, ".");
        snprintf(tmp, sizeof tmp, "%s.tar.tmp", dir);
        snprintf(gz, sizeof gz, "%s.tar.gz", dir);
        char *tar[] = {"tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner",
                       "--mode=a+rX,u+w,go-w", "--format=gnu", "-C", parent, "-cf", tmp, "--", (char *)base, NULL};
        char *gzip[] = {"gzip", "-n", "-9", "-c", tmp, NULL};
        if (spawn(tar, NULL, NULL, 0) != 0 || spawn(gzip, gz, NULL, 0) != 0)
            status = fail("tar or gzip failed writing %s", gz, NULL);
        unlink(tmp);
        if (!status)
            printf("bundle: %s and %s (%zu runs, %zu files)\n", dir, gz, json_array_size(runs),
                   json_array_size(list) + 2);
    }
    json_decref(timing);
    json_decref(manifest);
    json_decref(list);
    json_decref(proof_list);
    json_decref(runs);
    return status;
}
