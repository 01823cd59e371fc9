#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG, mkdtemp */
#include "cli/tp_guard.h"

#include "cli/tp_tree.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define MARKER ".tolproof-temporary"

/* Removes PARENT/PREFIX.PID.* directories of ours whose process is gone. */
static void remove_stale(const char *parent, const char *prefix)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    size_t pl = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, pl) != 0 || e->d_name[pl] != '.')
            continue;
        char *end;
        long pid = strtol(e->d_name + pl + 1, &end, 10);
        if (end == e->d_name + pl + 1 || *end != '.' || pid <= 0 || pid == (long)getpid())
            continue;
        /* EPERM means a live process of another user: not ours to judge */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[4200], marker[4300];
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        snprintf(marker, sizeof marker, "%s/" MARKER, path);
        struct stat st, ms;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && lstat(marker, &ms) == 0 &&
            S_ISREG(ms.st_mode))
            tp_remove_tree(path);
    }
    closedir(d);
}

int tp_guard_mkdtemp(const char *parent, const char *prefix, char *out, size_t outlen)
{
    remove_stale(parent, prefix);
    int n = snprintf(out, outlen, "%s/%s.%ld.XXXXXX", parent, prefix, (long)getpid());
    if (n < 0 || (size_t)n >= outlen || !mkdtemp(out))
        return -1;
    char marker[4300];
    snprintf(marker, sizeof marker, "%s/" MARKER, out);
    FILE *f = fopen(marker, "w");
    if (!f || fprintf(f, "a temporary directory of tolproof (pid %ld); removed when it ends\n", (long)getpid()) < 0 ||
        fclose(f) != 0) {
        tp_remove_tree(out);
        return -1;
    }
    return 0;
}

static volatile sig_atomic_t got_signal;
static volatile pid_t child;

static void pass_on(int sig)
{
    got_signal = sig;
    if (child > 0)
        kill(-child, sig);
}

static const int handled[] = {SIGINT, SIGTERM, SIGHUP};
#define NHANDLED (sizeof handled / sizeof handled[0])

int tp_guard_run(const char *tmp, int (*work)(void *ctx), void *ctx)
{
    fflush(stdout);
    fflush(stderr);
    sigset_t block, old_mask;
    sigemptyset(&block);
    for (size_t i = 0; i < NHANDLED; i++)
        sigaddset(&block, handled[i]);
    sigprocmask(SIG_BLOCK, &block, &old_mask);
    struct sigaction sa, old[NHANDLED];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pass_on; /* no SA_RESTART: waitpid returns to look at got_signal */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NHANDLED; i++)
        sigaction(handled[i], &sa, &old[i]);
    pid_t parent = getpid();
    got_signal = 0;
    pid_t pid = fork();
    if (pid == 0) {
        /* its own process group, so that the tar and gzip it spawns are
         * stopped with it; and it dies with this process */
        setpgid(0, 0);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        if (getppid() != parent)
            _exit(2);
        for (size_t i = 0; i < NHANDLED; i++)
            sigaction(handled[i], &old[i], NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        exit(work(ctx));
    }
    int status = 0, rc;
    if (pid < 0) {
        rc = 2;
        fprintf(stderr, "tolproof: cannot start a process: %s\n", strerror(errno));
    } else {
        setpgid(pid, pid); /* also here: no signal can come before the group exists */
        child = pid;
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        child = 0;
        kill(-pid, SIGKILL); /* what the child spawned and left running */
        rc = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
    }
    /* a killed gzip may still be closing a file in it: try a few times */
    for (int i = 0; i < 50 && tp_remove_tree(tmp) != 0; i++)
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    for (size_t i = 0; i < NHANDLED; i++)
        sigaction(handled[i], &old[i], NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    if (got_signal) {
        signal(got_signal, SIG_DFL);
        raise(got_signal);
    }
    return rc;
}
