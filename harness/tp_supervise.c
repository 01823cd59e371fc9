/* tp_harness_main (tp_device.h): the supervisor that runs a harness's
 * cases in a child process under a watchdog, and the child's case loop
 * (why: tp_supervise.h).
 *
 * The child is the same binary exec'd again with its original command line
 * (/proc/self/cmdline, so a wrapper such as tests/tool_emulate.c is re-run
 * whole) and "--tp-child FD FROM PPID" appended: it runs the selected cases
 * from plan index FROM on and writes one JSON line per message to FD:
 *   {"device": {name, arch, driver_version, runtime_version}}  the device is open
 *   {"no_device": TEXT}                                         it is not (exit 3)
 *   {"begin": I}                                                case I starts
 *   {"phase": "device"|"host", "case": I}                       the watchdog runs / stops
 *   {"done": I, "records": [...], "timing": {...}|null}         case I is recorded
 * After a record whose error lost the device context it exits (status 4)
 * and the supervisor starts a fresh child for the cases after it. */
#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG is Linux's; strsignal */
#include "harness/tp_supervise.h"
#include "harness/tp_expect.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ the child */

static int child_fd = -1; /* the pipe to the supervisor, in a supervised child */

/* One message (stolen) as one line; reals keep their 17 digits, so a
 * record read back is the record written. A supervisor gone (EPIPE) ends
 * the child by SIGPIPE. */
static void child_send(json_t *msg)
{
    char *line = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    if (!line) {
        fprintf(stderr, "harness: out of memory for a message to the supervisor\n");
        _exit(2);
    }
    size_t n = strlen(line), off = 0;
    line[n++] = '\n'; /* over the terminating NUL: the length is n now */
    while (off < n) {
        ssize_t w = write(child_fd, line + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(2);
        off += (size_t)w;
    }
    free(line);
}

void tp_supervise_phase(int i, int phase)
{
    if (child_fd >= 0)
        child_send(json_pack("{s:s,s:i}", "phase", phase == TP_PHASE_DEVICE ? "device" : "host", "case", i));
}

/* The last record of the case, when it is an error of the device that
 * lost the context: marked "by": "fault" (the text stays the runtime's). */
static int mark_lost_context(json_t *rec, const tp_device *dev)
{
    const char *verdict = json_string_value(json_object_get(rec, "verdict"));
    const char *by = json_string_value(json_object_get(rec, "by"));
    if (!verdict || !by || strcmp(verdict, "error") != 0 || strcmp(by, "device") != 0 || !dev->context_lost ||
        !dev->context_lost())
        return 0;
    json_object_set_new(rec, "by", json_string("fault"));
    return 1;
}

static int child_main(tp_run *run, const tp_device *dev, int fd, int from, long ppid)
{
    child_fd = fd;
    tp_run_set_quiet(run);
    /* a supervisor killed outright must not leave its child running */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != (pid_t)ppid)
        _exit(2);
    tp_device_props props;
    char err[512];
    memset(&props, 0, sizeof props);
    if (dev->open(&props, err, sizeof err) != 0) {
        child_send(json_pack("{s:s}", "no_device", err));
        tp_run_abandon(run);
        return 3;
    }
    child_send(json_pack("{s:{s:s,s:s,s:i,s:i}}", "device", "name", props.name, "arch", props.arch, "driver_version",
                         props.driver_version, "runtime_version", props.runtime_version));
    const json_t *records = tp_run_case_records(run);
    for (int i = from; i < tp_run_ncases(run); i++) {
        if (!tp_run_case_selected(run, i))
            continue;
        child_send(json_pack("{s:i}", "begin", i));
        size_t before = json_array_size(records);
        tp_case *c = tp_run_case_begin(run, i);
        if (c) /* else the refusal is recorded */
            tp_harness_run_case(run, i, c, dev, &props);
        size_t after = json_array_size(records);
        int lost = after > before && mark_lost_context(json_array_get(records, after - 1), dev);
        json_t *recs = json_array();
        for (size_t k = before; k < after; k++)
            json_array_append(recs, json_array_get(records, k));
        json_t *timing = tp_run_timing_of(run, tp_run_case_name(run, i));
        child_send(json_pack("{s:i,s:o,s:O?}", "done", i, "records", recs, "timing", timing));
        if (lost) { /* nothing more can run in this context */
            fflush(stderr);
            _exit(4);
        }
    }
    tp_run_abandon(run);
    return 0;
}

/* ------------------------------------------------------- the supervisor */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* This process's own command line, NULL-terminated (free both). */
static char **own_command_line(char **text)
{
    *text = NULL;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *more = realloc(buf, 2 * cap + 1);
            if (!more)
                free(buf);
            buf = more, cap *= 2;
        }
    }
    fclose(f);
    if (!buf || len == 0) {
        free(buf);
        return NULL;
    }
    buf[len] = 0;
    size_t argc = 0;
    for (size_t k = 0; k < len; k++)
        argc += buf[k] == 0;
    char **argv = calloc(argc + 5, sizeof *argv); /* room for --tp-child FD FROM PPID and the NULL */
    if (!argv) {
        free(buf);
        return NULL;
    }
    size_t a = 0;
    for (size_t k = 0; k < len; k += strlen(buf + k) + 1)
        argv[a++] = buf + k;
    *text = buf;
    return argv;
}

typedef struct {
    pid_t pid;
    int fd;    /* its messages */
    int errfd; /* its stderr, passed on to ours (-1 at its end) */
    char *buf; /* bytes read, not yet a whole line */
    size_t len, cap;
} child;

static int spawn(child *ch, char **cmd, int from, char *err, size_t errlen)
{
    int p[2], e[2];
    if (pipe(p) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe(e) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(p[0]), close(p[1]);
        return -1;
    }
    fcntl(p[0], F_SETFD, FD_CLOEXEC); /* the child keeps only the write ends */
    fcntl(e[0], F_SETFD, FD_CLOEXEC);
    char fd[24], fr[24], pp[24];
    snprintf(fd, sizeof fd, "%d", p[1]);
    snprintf(fr, sizeof fr, "%d", from);
    snprintf(pp, sizeof pp, "%ld", (long)getpid());
    size_t n = 0;
    while (cmd[n])
        n++;
    cmd[n] = "--tp-child", cmd[n + 1] = fd, cmd[n + 2] = fr, cmd[n + 3] = pp, cmd[n + 4] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        /* its stderr through the supervisor, which keeps the last line of a
         * case (a runtime that aborts says why only there) */
        if (dup2(e[1], STDERR_FILENO) < 0)
            _exit(127);
        close(e[1]);
        execv("/proc/self/exe", cmd);
        fprintf(stderr, "harness: cannot exec /proc/self/exe for the cases: %s\n", strerror(errno));
        _exit(127);
    }
    cmd[n] = NULL;
    close(p[1]);
    close(e[1]);
    if (pid < 0) {
        close(p[0]);
        close(e[0]);
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    ch->pid = pid;
    ch->fd = p[0];
    ch->errfd = e[0];
    ch->len = 0;
    return 0;
}

/* Why a child ended, from its wait status and the last line it wrote on
 * stderr during the case (where a runtime that aborts says why). */
static void ended(int ws, const char *last, char *out, size_t len)
{
    int n;
    if (WIFSIGNALED(ws))
        n = snprintf(out, len, "the harness process running the case was killed by signal %d (%s)", WTERMSIG(ws),
                     strsignal(WTERMSIG(ws)));
    else
        n = snprintf(out, len, "the harness process running the case exited with status %d", WEXITSTATUS(ws));
    if (last && last[0] && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, "; its last output: %s", last);
}

typedef struct {
    tp_run *run;
    double case_timeout; /* --case-timeout, or 0 */
    int have_device;     /* a child has opened the device */
    char no_device[512]; /* why the last child could not, or "" */
    /* of the current child */
    int current;   /* the case begun and not done, or -1 */
    double deadline; /* of the watchdog, or 0 when it does not run */
    int next;      /* plan index the next child starts from */
    int progressed;
    char tail[1024]; /* the end of its stderr since the case began */
    size_t taillen;
} supervisor;

static double limit_of(const supervisor *s, int i)
{
    double plan = tp_run_case_timeout(s->run, i);
    return s->case_timeout > 0 ? s->case_timeout : plan > 0 ? plan : TP_DEFAULT_CASE_TIMEOUT_S;
}

/* One message of the child; -1 for a line that is not one (a bug). */
static int on_message(supervisor *s, const char *line)
{
    json_t *m = json_loads(line, 0, NULL), *v;
    int rc = 0;
    if (!m)
        return -1;
    if ((v = json_object_get(m, "device"))) {
        if (!s->have_device) /* only a run that has a device keeps a partial file */
            tp_run_keep_partial(s->run);
        if (!s->have_device)
            tp_run_set_device(s->run, json_string_value(json_object_get(v, "name")),
                              json_string_value(json_object_get(v, "arch")),
                              (int)json_integer_value(json_object_get(v, "driver_version")),
                              (int)json_integer_value(json_object_get(v, "runtime_version")));
        s->have_device = 1;
        s->deadline = 0;
    } else if ((v = json_object_get(m, "no_device"))) {
        snprintf(s->no_device, sizeof s->no_device, "%s", json_string_value(v) ? json_string_value(v) : "?");
    } else if ((v = json_object_get(m, "begin"))) {
        s->current = (int)json_integer_value(v);
        s->taillen = 0;
    } else if ((v = json_object_get(m, "phase"))) {
        int dev = json_string_value(v) && strcmp(json_string_value(v), "device") == 0;
        s->deadline = dev ? now_s() + limit_of(s, s->current) : 0;
    } else if ((v = json_object_get(m, "done"))) {
        json_t *recs = json_object_get(m, "records"), *timing = json_object_get(m, "timing"), *r;
        size_t k;
        json_array_foreach(recs, k, r)
        {
            tp_run_case_adopt(s->run, json_incref(r), k == 0 && json_is_object(timing) ? json_incref(timing) : NULL);
        }
        s->next = (int)json_integer_value(v) + 1;
        s->current = -1;
        s->deadline = 0;
        s->progressed = 1;
    } else
        rc = -1;
    json_decref(m);
    return rc;
}

/* Reads what the child has written; 1 at the end of its output, 0 for
 * more, -1 on a message that is not one. */
static int read_child(supervisor *s, child *ch)
{
    if (ch->cap - ch->len < 65536) {
        size_t cap = ch->cap ? 2 * ch->cap : 1 << 17;
        char *b = realloc(ch->buf, cap);
        if (!b)
            return -1;
        ch->buf = b, ch->cap = cap;
    }
    ssize_t n = read(ch->fd, ch->buf + ch->len, ch->cap - ch->len - 1);
    if (n < 0)
        return errno == EINTR ? 0 : 1;
    if (n == 0)
        return 1;
    ch->len += (size_t)n;
    char *start = ch->buf, *nl;
    while ((nl = memchr(start, '\n', (size_t)(ch->buf + ch->len - start)))) {
        *nl = 0;
        if (on_message(s, start) != 0)
            return -1;
        start = nl + 1;
    }
    ch->len -= (size_t)(start - ch->buf);
    memmove(ch->buf, start, ch->len);
    return 0;
}

/* Passes what the child wrote on stderr on to ours, keeping its end;
 * 1 at the end of it. */
static int pass_stderr(supervisor *s, child *ch)
{
    char b[4096];
    ssize_t n = read(ch->errfd, b, sizeof b);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0) {
        close(ch->errfd);
        ch->errfd = -1;
        return 1;
    }
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(STDERR_FILENO, b + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += w;
    }
    size_t keep = sizeof s->tail - 1, add = (size_t)n > keep ? keep : (size_t)n;
    if (s->taillen + add > keep) { /* drop the oldest bytes */
        size_t drop = s->taillen + add - keep;
        memmove(s->tail, s->tail + drop, s->taillen - drop);
        s->taillen -= drop;
    }
    memcpy(s->tail + s->taillen, b + n - add, add);
    s->taillen += add;
    return 0;
}

/* The last non-empty line of the child's stderr during the case, or "". */
static void last_line(supervisor *s, char *out, size_t len)
{
    size_t end = s->taillen;
    while (end > 0 && (s->tail[end - 1] == '\n' || s->tail[end - 1] == '\r' || s->tail[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && s->tail[start - 1] != '\n')
        start--;
    snprintf(out, len, "%.*s", (int)(end - start), s->tail + start);
}

/* Every selected case from s->next on, recorded lost for why. */
static void lose_the_rest(supervisor *s, const char *why)
{
    for (int i = s->next; i < tp_run_ncases(s->run); i++)
        if (tp_run_case_selected(s->run, i))
            tp_run_case_lost(s->run, i, "fault", why);
    s->next = tp_run_ncases(s->run);
}

/* Runs one child from s->next until it ends or is killed, recording what
 * it reports and what happened to it. Returns 3 when the very first child
 * found no device (nothing to record), else 0. */
static int run_child(supervisor *s, char **cmd)
{
    child ch = {0};
    char why[700];
    if (spawn(&ch, cmd, s->next, why, sizeof why) != 0) {
        char line[800];
        snprintf(line, sizeof line, "not run: the harness cannot start a process for the cases (%s)", why);
        lose_the_rest(s, line);
        return 0;
    }
    s->current = -1;
    s->progressed = 0;
    s->no_device[0] = 0;
    s->taillen = 0;
    double open_limit = fmax(TP_DEVICE_OPEN_TIMEOUT_S, s->case_timeout);
    s->deadline = now_s() + open_limit;
    int timed_out = 0, broken = 0;
    for (;;) {
        int ms = -1;
        if (s->deadline > 0) {
            double left = s->deadline - now_s();
            ms = left <= 0 ? 0 : (int)ceil(left * 1000);
        }
        struct pollfd pfd[2] = {{ch.fd, POLLIN, 0}, {ch.errfd, POLLIN, 0}};
        int r = poll(pfd, ch.errfd >= 0 ? 2 : 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            timed_out = 1;
            break;
        }
        if (ch.errfd >= 0 && pfd[1].revents) {
            pass_stderr(s, &ch);
            if (!pfd[0].revents)
                continue;
        }
        int e = read_child(s, &ch);
        if (e == 1)
            break;
        if (e < 0) {
            broken = 1;
            break;
        }
    }
    if (timed_out || broken)
        kill(ch.pid, SIGKILL);
    close(ch.fd);
    free(ch.buf);
    /* the rest of its stderr: it ends when the child does (before waitpid, so
     * that a child blocked on a full stderr pipe can end) */
    while (ch.errfd >= 0)
        pass_stderr(s, &ch);
    char last[400];
    last_line(s, last, sizeof last);
    int ws = 0;
    while (waitpid(ch.pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (timed_out && s->current >= 0) {
        snprintf(why, sizeof why, "no result within %g s (watchdog)", limit_of(s, s->current));
        tp_run_case_lost(s->run, s->current, "timeout", why);
        s->next = s->current + 1;
        return 0;
    }
    if (timed_out) { /* before the first case: the device did not open */
        snprintf(why, sizeof why, "not run: the device did not open within %g s", open_limit);
        lose_the_rest(s, why);
        return 0;
    }
    if (s->current >= 0) { /* died inside a case: that case's outcome */
        ended(ws, last, why, sizeof why);
        tp_run_case_lost(s->run, s->current, "fault", why);
        s->next = s->current + 1;
        return 0;
    }
    if (s->no_device[0] && !s->have_device) { /* no GPU at all: a refusal of the whole run */
        fprintf(stderr, "no GPU: %s\n", s->no_device);
        return 3;
    }
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && !broken) {
        s->next = tp_run_ncases(s->run);
        return 0;
    }
    if (!s->progressed) { /* ended between cases without a result: a fresh one would too */
        char how[300];
        if (s->no_device[0])
            snprintf(how, sizeof how, "the device no longer opens: %s", s->no_device);
        else if (broken)
            snprintf(how, sizeof how, "the harness process sent a message that is not one");
        else
            ended(ws, NULL, how, sizeof how);
        snprintf(why, sizeof why, "not run: %s", how);
        lose_the_rest(s, why);
    }
    return 0;
}

/* Writes the results; the exit status is by each case's expected outcome
 * (harness/tp_expect.h), 2 when the results cannot be written. */
static int finish(tp_run *run)
{
    /* expected refusals and violations are results, not failures */
    int expected = tp_expect_run_status(tp_run_plan(run), tp_run_case_records(run), stderr);
    return tp_run_close(run) ? 2 : expected;
}

static int supervise(tp_run *run, double case_timeout, char **cmd)
{
    supervisor s = {run, case_timeout, 0, "", -1, 0, 0, 0, "", 0};
    signal(SIGPIPE, SIG_IGN);
    while (s.next < tp_run_ncases(run)) {
        int any = 0;
        for (int i = s.next; i < tp_run_ncases(run) && !any; i++)
            any = tp_run_case_selected(run, i);
        if (!any)
            break;
        if (run_child(&s, cmd) == 3) {
            tp_run_abandon(run);
            return 3;
        }
    }
    return finish(run);
}

/* Today's loop in this very process: no isolation (--in-process). */
static int run_in_process(tp_run *run, const tp_device *device)
{
    tp_device_props props;
    char err[512];
    memset(&props, 0, sizeof props);
    if (device->open(&props, err, sizeof err) != 0) {
        fprintf(stderr, "no GPU: %s\n", err);
        tp_run_abandon(run);
        return 3;
    }
    tp_run_keep_partial(run);
    tp_run_set_device(run, props.name, props.arch, props.driver_version, props.runtime_version);
    for (int i = 0; i < tp_run_ncases(run); i++) {
        if (!tp_run_case_selected(run, i))
            continue;
        tp_case *c = tp_run_case_begin(run, i);
        if (c) /* else the refusal is recorded */
            tp_harness_run_case(run, i, c, device, &props);
    }
    return finish(run);
}

/* An integer argument of --tp-child, or -1. */
static long number_arg(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || end == s || *end || v < 0 ? -1 : v;
}

int tp_harness_main(int argc, char **argv, const tp_harness_info *info, const tp_device *device)
{
    /* TAP and console lines reach a pipe as they are printed, not at exit */
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* the supervisor's own options, taken out before tp_run_open parses the rest */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        fprintf(stderr, "harness: out of memory\n");
        return 2;
    }
    int nargs = 0, in_process = 0;
    long fd = -1, from = 0, ppid = 0;
    double case_timeout = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--tp-child") == 0 && i + 3 < argc) {
            fd = number_arg(argv[i + 1]), from = number_arg(argv[i + 2]), ppid = number_arg(argv[i + 3]);
            if (fd < 0 || from < 0 || ppid <= 0) {
                fprintf(stderr, "--tp-child: for the harness's own use (FD FROM PPID)\n");
                free(args);
                return 2;
            }
            i += 3;
        } else if (strcmp(argv[i], "--in-process") == 0) {
            in_process = 1;
        } else if (strcmp(argv[i], "--case-timeout") == 0 && i + 1 < argc) {
            char *end;
            case_timeout = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(case_timeout > 0 && case_timeout <= 86400)) {
                fprintf(stderr, "--case-timeout %s: expected a number of seconds in (0, 86400]\n", argv[i]);
                free(args);
                return 2;
            }
        } else
            args[nargs++] = argv[i];
    }
    tp_run *run;
    int status = tp_run_open(nargs, args, info, &run);
    if (status != TP_RUN_READY) {
        free(args);
        return status == TP_RUN_DONE ? 0 : 2;
    }
    if (fd >= 0) {
        status = child_main(run, device, (int)fd, (int)from, ppid);
        free(args);
        return status;
    }
    char *text = NULL, **cmd = in_process ? NULL : own_command_line(&text);
    if (!in_process && !cmd)
        fprintf(stderr, "harness: /proc/self/cmdline cannot be read: the cases run in this process, without fault "
                        "isolation\n");
    status = cmd ? supervise(run, case_timeout, cmd) : run_in_process(run, device);
    free(cmd);
    free(text);
    free(args);
    return status;
}
