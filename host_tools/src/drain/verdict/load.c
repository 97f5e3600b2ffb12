/* Loading a profile for the verdicts (load.h). */
#include "verdict/load.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pprof/prof_file.h"
#include "util.h"

int verdict_load(struct prof *p, const char *path, char *const *elves, size_t nelf, char *why,
                 size_t whylen)
{
    char err[1024];
    if (prof_read_file(p, path, err, sizeof(err)) == 0)
        return 0;
    if (access(path, R_OK) != 0 && strcmp(path, "-") != 0 && strchr(path, ':') == NULL) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* Not a profile: a stream. drain reads it into a profile in a private directory (the first
     * session's: docs/VERDICTS.md). */
    char dir[] = "/tmp/drain-verdict-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(why, whylen, "temporary directory: %s", strerror(errno));
        return -1;
    }
    char out[sizeof(dir) + 16];
    snprintf(out, sizeof(out), "%s/p.pb.gz", dir);
    char **argv = xcalloc(2 * nelf + 6, sizeof(char *));
    size_t a = 0;
    argv[a++] = (char *)(uintptr_t) "drain";
    argv[a++] = (char *)(uintptr_t) "-q";
    argv[a++] = (char *)(uintptr_t) "-o";
    argv[a++] = out;
    for (size_t i = 0; i < nelf; i++) {
        argv[a++] = (char *)(uintptr_t) "--elf";
        argv[a++] = elves[i];
    }
    argv[a++] = (char *)(uintptr_t)path;
    argv[a] = NULL;
    int rc = -1;
    pid_t pid = fork();
    if (pid == 0) {
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int st = 0;
    if (pid < 0) {
        snprintf(why, whylen, "fork: %s", strerror(errno));
    } else if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(why, whylen, "%s: neither a profile (%s) nor a stream drain could read (drain "
                              "exit %d)", path, err, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    } else if (prof_read_file(p, out, err, sizeof(err)) != 0) {
        snprintf(why, whylen, "%s: %s", path, err);
    } else {
        rc = 0;
    }
    free(argv);
    /* the first session's profile and any later sessions' (STEM.sN.pb.gz) */
    DIR *dp = opendir(dir);
    struct dirent *de;
    while (dp && (de = readdir(dp)) != NULL) {
        char f[sizeof(dir) + 300];
        if (de->d_name[0] == '.')
            continue;
        snprintf(f, sizeof(f), "%s/%.255s", dir, de->d_name);
        unlink(f);
    }
    if (dp)
        closedir(dp);
    rmdir(dir);
    return rc;
}

/* Whether a is one of the NULL-ended list's. */
static int listed(const char *a, const char *const *list)
{
    while (*list && strcmp(a, *list) != 0)
        list++;
    return *list != NULL;
}

int verdict_arg(struct verdict_args *va, int argc, char **argv, int *i, const char *const *own,
                char *why, size_t whylen)
{
    static const char *const common[] = {"--json", "--elf", "-e", NULL};
    const char *a = argv[*i];
    if (*i + 1 >= argc) {
        if (!listed(a, common) && !listed(a, own))
            return 0;
        snprintf(why, whylen, "%s needs a value", a);
        return -1;
    }
    if (strcmp(a, "--json") == 0) {
        va->json = argv[++*i];
        return 1;
    }
    if (strcmp(a, "--elf") != 0 && strcmp(a, "-e") != 0)
        return 0;
    if (va->nelf == VERDICT_MAX_ELF) {
        snprintf(why, whylen, "more than %d --elf", VERDICT_MAX_ELF);
        return -1;
    }
    va->elf[va->nelf++] = argv[++*i];
    return 1;
}

