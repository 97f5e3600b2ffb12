/* Usage: maxrss OUTFILE COMMAND [ARG...]
 * Runs COMMAND and writes its peak resident set (getrusage's ru_maxrss of the child, KiB) to
 * OUTFILE; exits with COMMAND's status (1 if it did not exit normally). For tests/budgets. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: maxrss OUTFILE COMMAND [ARG...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("maxrss: fork");
        return 1;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("maxrss: exec");
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("maxrss: wait4");
        return 1;
    }
    FILE *f = fopen(argv[1], "w");
    if (f == NULL || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f) != 0) {
        perror("maxrss: writing the result");
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
