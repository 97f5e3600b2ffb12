/*
 * fork and exec under msamp, for the fork test. The parent allocates, forks a child that
 * allocates blocks of a size the parent never uses (777 bytes) and exits through exit(), then
 * marks its own stream and, if argv[1] names a program, forks a second child that execs it.
 * The parent's stream must decode cleanly and hold nothing of the first child's.
 * Usage: fork_app [PROGRAM [ARGS...]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msamp.h"

static volatile uintptr_t sink;

static void churn(size_t size, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        void *p = malloc(size);
        sink ^= (uintptr_t)p;
        free(p);
    }
}

int main(int argc, char **argv)
{
    int status;

    churn(100, 1000);
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        churn(777, 100000);
        exit(0);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    if (msamp_mark("after fork", strlen("after fork")) != 0)
        return 1;
    churn(200, 1000);
    if (argc > 1) {
        pid = fork();
        if (pid < 0)
            return 2;
        if (pid == 0) {
            execv(argv[1], &argv[1]);
            _exit(127);
        }
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return 1;
    }
    churn(300, 1000);
    printf("fork_app: parent done\n");
    return 0;
}
