/*
 * A program as it ships, for the preload library's safety test (tests/hosted/preload_safety.sh):
 * nothing of msamp in it. It allocates from its own constructor, from a thread started there
 * (before main) and from threads started in main, from a SIGALRM handler every 100 us, calls
 * every interposed allocator entry (checking results, alignment and malloc_usable_size),
 * dlopen()s a library, and forks: a child that allocates and exits (its allocations of 777 bytes
 * must reach no stream), a child that execs this program again with the environment as it is
 * (profiled: its own stream) and one that execs it without LD_PRELOAD (not profiled: no stream).
 * Prints the truth of its own sites for msamp_check sites ("site NAME SIZE ALLOCATED LIVE"), the
 * signal handler's included (they were sampled about 5 times as often as their bytes said before
 * msamp_decide drew the next gap ahead: a handler landing between its thread's crossing and the
 * next gap sampled the same crossing again; tests/hosted/signal_rate.sh measures it).
 * Usage: preload_app DLOPEN_LIB   |   preload_app --child
 */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CTOR_KEEP 1000
#define EARLY_N 20000
#define LATE_THREADS 4
#define LATE_N 20000
#define LATE_KEEP 100
#define MAIN_N 400000

/* Per thread: the early thread, the late ones and main churn at once (a shared one would have one
 * thread free another's block). */
static _Thread_local void *volatile sink;
static void *ctor_blocks[CTOR_KEEP];
static pthread_t early;
static volatile sig_atomic_t on_signal_count, in_main_loop;

__attribute__((noinline)) static void ctor_keep(void)
{
    for (int i = 0; i < CTOR_KEEP; i++)
        ctor_blocks[i] = malloc(256);
}

__attribute__((noinline)) static void early_churn(void)
{
    for (int i = 0; i < EARLY_N; i++) {
        sink = malloc(128);
        free(sink);
    }
}

static void *early_main(void *arg)
{
    (void)arg;
    early_churn();
    return NULL;
}

/* Before main: the program's own constructor allocates and starts a thread. */
__attribute__((constructor)) static void program_start(void)
{
    ctor_keep();
    if (pthread_create(&early, NULL, early_main, NULL) != 0)
        abort();
}

__attribute__((noinline)) static void late_churn(void)
{
    for (int i = 0; i < LATE_N; i++) {
        sink = malloc(160);
        free(sink);
    }
}

__attribute__((noinline)) static void late_keep(void **keep)
{
    for (int i = 0; i < LATE_KEEP; i++)
        keep[i] = malloc(1000);
}

static void *late_main(void *arg)
{
    late_churn();
    late_keep(arg);
    return NULL;
}

/* glibc's malloc is not async-signal-safe: the handler's size (96) and the main loop's (64) have
 * tcache bins of their own, both warm, so neither ever takes the arena's lock; what the handler
 * interrupts is msamp's own path, most of the time. */
__attribute__((noinline)) static void on_signal(int sig)
{
    (void)sig;
    if (!in_main_loop)
        return;
    void *p = malloc(96);
    free(p);
    on_signal_count++;
}

__attribute__((noinline)) static void main_churn(void)
{
    for (int i = 0; i < MAIN_N; i++) {
        sink = malloc(64);
        free(sink);
    }
}

/* Every interposed entry, its result checked: n blocks of each, all freed. */
static int every_entry(void)
{
    void *p;
    long page = sysconf(_SC_PAGESIZE);

    for (int i = 0; i < 100; i++) {
        char *a = calloc(10, 30);
        if (a == NULL || a[0] != 0 || a[299] != 0 || malloc_usable_size(a) < 300)
            return 1;
        a = realloc(a, 3000);
        if (a == NULL || malloc_usable_size(a) < 3000)
            return 1;
        free(a);
        if (posix_memalign(&p, 64, 500) != 0 || (uintptr_t)p % 64 != 0)
            return 1;
        free(p);
        if ((p = aligned_alloc(128, 512)) == NULL || (uintptr_t)p % 128 != 0)
            return 1;
        free(p);
        if ((p = memalign(256, 700)) == NULL || (uintptr_t)p % 256 != 0)
            return 1;
        free(p);
        if ((p = valloc(100)) == NULL || (uintptr_t)p % (uintptr_t)page != 0)
            return 1;
        free(p);
        if ((p = pvalloc(100)) == NULL || (uintptr_t)p % (uintptr_t)page != 0 ||
            malloc_usable_size(p) < (size_t)page)
            return 1;
        free(p);
    }
    return 0;
}

static int run_child(char **argv, char **env)
{
    pid_t pid = fork();
    int status;

    if (pid < 0)
        return 1;
    if (pid == 0) {
        execve("/proc/self/exe", argv, env);
        _exit(127);
    }
    return waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

int main(int argc, char **argv)
{
    static void *late_blocks[LATE_THREADS][LATE_KEEP];
    pthread_t late[LATE_THREADS];
    int status;

    if (argc > 1 && strcmp(argv[1], "--child") == 0) {
        for (int i = 0; i < 1000; i++)
            free(malloc(555));
        return 0;
    }
    if (argc < 2 || pthread_join(early, NULL) != 0)
        return 2;
    for (int i = 0; i < LATE_THREADS; i++)
        if (pthread_create(&late[i], NULL, late_main, late_blocks[i]) != 0)
            return 1;
    for (int i = 0; i < LATE_THREADS; i++)
        if (pthread_join(late[i], NULL) != 0)
            return 1;
    if (every_entry() != 0) {
        fprintf(stderr, "preload_app: an allocator entry gave a wrong result\n");
        return 1;
    }

    /* dlopen: a library loaded after start-up, its code calling the allocator. */
    void *lib = dlopen(argv[1], RTLD_NOW);
    char *(*dup)(const char *) = lib ? (char *(*)(const char *))dlsym(lib, "preload_dl_dup") : NULL;
    if (dup == NULL) {
        fprintf(stderr, "preload_app: dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
    for (int i = 0; i < 1000; i++)
        free(dup("a string copied by a library dlopen()ed after start-up"));
    dlclose(lib);

    /* The signal phase. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    free(malloc(96)); /* both tcache bins warm */
    free(malloc(64));
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 100}, {0, 100}};
    setitimer(ITIMER_REAL, &it, NULL);
    in_main_loop = 1;
    main_churn();
    in_main_loop = 0;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);

    /* fork: a child that allocates and exits; then exec with and without LD_PRELOAD. */
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        for (int i = 0; i < 10000; i++)
            free(malloc(777));
        exit(0);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    char *child_argv[] = {argv[0], "--child", NULL};
    if (run_child(child_argv, environ) != 0)
        return 1;
    static char *clean_env[256];
    int n = 0;
    for (char **e = environ; *e != NULL && n < 255; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0)
            clean_env[n++] = *e;
    if (run_child(child_argv, clean_env) != 0)
        return 1;

    printf("site ctor_keep 256 %d %d\n", CTOR_KEEP, CTOR_KEEP);
    printf("site early_churn 128 %d 0\n", EARLY_N);
    printf("site late_churn 160 %d 0\n", LATE_THREADS * LATE_N);
    printf("site late_keep 1000 %d %d\n", LATE_THREADS * LATE_KEEP, LATE_THREADS * LATE_KEEP);
    printf("site main_churn 64 %d 0\n", MAIN_N);
    printf("site on_signal 96 %d 0\n", (int)on_signal_count);
    return 0;
}
