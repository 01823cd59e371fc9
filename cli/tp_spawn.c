#define _POSIX_C_SOURCE 200809L
#include "cli/tp_spawn.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

int tp_spawn(char *const argv[], const char *out_path) { return spawn(argv, out_path, NULL, 0); }

int tp_spawn_capture(char *const argv[], char *capture, size_t caplen) { return spawn(argv, NULL, capture, caplen); }
