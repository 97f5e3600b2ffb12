/*
 * When msamp's writer thread exists (tests/hosted/lazy.sh). The program checks its own threads as
 * it runs: the tasks in /proc/self/task, their names (the writer is "msamp-writer") and glibc's
 * __libc_single_threaded. It allocates from two known sites and writes the truth for msamp_check
 * sites (as tests/hosted/e2e_app.c: "site NAME SIZE ALLOCATED LIVE", "caller NAME CALLER").
 *
 * Usage: lazy_app MODE WRITER OUTPUT TRUTH
 *   MODE single    single-threaded to the end; at three points it allocates until msamp's OUTPUT
 *                  grows (the ring is drained during the run, not only at exit), at most 400000
 *                  rounds (at MSAMP_INTERVAL=4096 several times the records that fill the ring);
 *                  with WRITER start it then waits up to 30 s for the writer thread to drain.
 *   MODE thread    single-threaded first, then starts a thread of its own that allocates from a
 *                  third site and waits; allocates until the writer appears (WRITER lazy), then
 *                  more; msamp_get_stats' reentrant count must stay 0 (the writer's creation
 *                  allocates inside msamp's guarded path).
 *   MODE exitwake  as thread, then waits until the writer waits between polls (in futex or a
 *                  sleep, by /proc/self/task/TID/syscall) and prints "writer TID" before
 *                  returning from main: the exit must wake it (lazy.sh reads strace's log).
 *   WRITER         what the program expects: lazy (no msamp thread while single-threaded, the
 *                  writer once it has a thread), start (the writer from start-up:
 *                  MSAMP_FLUSH=thread), never (MSAMP_FLUSH=inline).
 * Exit status 0 when every check held; each failed check is printed as "FAIL: ...".
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "msamp.h"

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

enum writer_expect { W_LAZY, W_START, W_NEVER };

static volatile uintptr_t sink;
static enum writer_expect expect;
static const char *output;
static int failed;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        printf("FAIL: " __VA_ARGS__);                                                              \
        putchar('\n');                                                                             \
        failed = 1;                                                                                \
    } while (0)

/* Per site and size: allocated and still held (main's table; the thread keeps its own). */
struct truth {
    const char *site;
    size_t size;
    unsigned long allocated, live;
};

struct table {
    struct truth t[64];
    unsigned n;
};

static struct table main_truth, thread_truth;

static void count(struct table *tb, const char *site, size_t size, int alloc, int live)
{
    unsigned i;
    for (i = 0; i < tb->n; i++)
        if (tb->t[i].site == site && tb->t[i].size == size)
            break;
    if (i == tb->n) {
        if (tb->n == 64)
            abort();
        tb->t[tb->n++] = (struct truth){site, size, 0, 0};
    }
    tb->t[i].allocated += (unsigned long)alloc;
    tb->t[i].live = (unsigned long)((long)tb->t[i].live + live);
}

NOINLINE static void *site_keep(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 1;
    return p;
}

NOINLINE static void *site_free(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 2;
    return p;
}

NOINLINE static void *site_thread(size_t n)
{
    void *p = calloc(1, n);
    sink ^= (uintptr_t)p + 3;
    return p;
}

/* Blocks held until exit (live at msamp's final flush). */
static void *held[1 << 20];
static unsigned nheld;

static void hold(void *p)
{
    if (p == NULL || nheld == sizeof held / sizeof held[0])
        abort();
    held[nheld++] = p;
}

/* One round: a 256-byte block from site_keep (every 8th held) and one of 16..2048 bytes from
 * site_free, freed. */
NOINLINE static void workload(unsigned i)
{
    void *p = site_keep(256);
    count(&main_truth, "site_keep", 256, 1, 0);
    if (i % 8 == 0) {
        hold(p);
        count(&main_truth, "site_keep", 256, 0, 1);
    } else {
        free(p);
    }
    size_t n = (size_t)16 << (i % 8);
    p = site_free(n);
    count(&main_truth, "site_free", n, 1, 0);
    sink ^= (uintptr_t)p;
    free(p);
}

static unsigned rounds;

static void work(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        workload(rounds++);
}

/* The tasks of this process; *writer gets the writer's thread id (0: none). */
static int tasks(pid_t *writer)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    *writer = 0;
    if (d == NULL) {
        FAIL("cannot open /proc/self/task: %s", strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        char path[300], comm[64] = "";
        FILE *f;

        if (e->d_name[0] == '.')
            continue;
        n++;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        f = fopen(path, "r");
        if (f != NULL) {
            if (fgets(comm, sizeof comm, f) == NULL)
                comm[0] = '\0';
            fclose(f);
        }
        if (strcmp(comm, "msamp-writer\n") == 0)
            *writer = (pid_t)atoi(e->d_name);
    }
    closedir(d);
    return n;
}

/* Checks, at the point named `where`, that the process has `want` tasks, a writer or none, and
 * glibc's single-thread flag as expected. Returns the writer's id. */
static pid_t check_threads(const char *where, int want, int want_writer, int want_single)
{
    pid_t w;
    int n = tasks(&w);

    if (n != want)
        FAIL("%s: %d tasks in /proc/self/task, expected %d", where, n, want);
    if ((w != 0) != want_writer)
        FAIL("%s: %s", where, w != 0 ? "a msamp-writer task exists" : "no msamp-writer task");
    if ((__libc_single_threaded != 0) != want_single)
        FAIL("%s: __libc_single_threaded is %d", where, (int)__libc_single_threaded);
    printf("%s: %d task(s)%s, __libc_single_threaded %d\n", where, n, w ? " (msamp-writer)" : "",
           (int)__libc_single_threaded);
    return w;
}

/* Before the program has a thread of its own. */
static void check_alone(const char *where)
{
    if (expect == W_START)
        check_threads(where, 2, 1, 0);
    else
        check_threads(where, 1, 0, 1);
}

static void sleep_ms(long ms);

static long long output_size(void)
{
    struct stat st;
    return stat(output, &st) == 0 ? (long long)st.st_size : -1;
}

/* Allocates until msamp's output has grown, at most `limit` rounds. */
static void until_output_grows(const char *where, unsigned limit)
{
    long long before = output_size();
    unsigned i = 0;

    while (output_size() == before && i < limit) {
        work(64);
        i += 64;
    }
    /* With the writer thread from the start, draining is its job, every 10 ms of its time: a
     * loaded machine may not run it within the rounds above. Wait for it (at most 30 s), without
     * allocating more (it would only fill the ring). The allocating thread's own drains (lazy
     * while single-threaded, inline) are bounded in rounds: no wait for them. */
    for (int ms = 0; expect == W_START && output_size() == before && ms < 30000; ms++)
        sleep_ms(1);
    if (output_size() == before)
        FAIL("%s: msamp's output stayed at %lld bytes for %u rounds", where, before, i);
    else
        printf("%s: the output grew from %lld to %lld bytes within %u rounds\n", where, before,
               output_size(), i);
}

/* The program's own thread: allocates, keeps half, and waits until main says it may end. */
static int quit_pipe[2];

static void *thread_held[2000];

static void *thread_main(void *arg)
{
    char c;

    (void)arg;
    for (unsigned i = 0; i < 2000; i++) {
        size_t n = 24 + (i % 8) * 40;
        void *p = site_thread(n);
        count(&thread_truth, "site_thread", n, 1, 0);
        if (i % 2 == 0) {
            thread_held[i] = p;
            count(&thread_truth, "site_thread", n, 0, 1);
        } else {
            free(p);
        }
    }
    while (read(quit_pipe[0], &c, 1) < 0 && errno == EINTR)
        ;
    return NULL;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Whether thread tid waits in a system call that waits (futex: a condition variable; the
 * sleeps: an uninterruptible pause), by its /proc syscall file. */
static int waiting(pid_t tid)
{
    char path[64], line[256] = "";
    FILE *f;

    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    f = fopen(path, "r");
    if (f == NULL)
        return 0;
    if (fgets(line, sizeof line, f) == NULL)
        line[0] = '\0';
    fclose(f);
    if (line[0] < '0' || line[0] > '9')
        return 0; /* "running" */
    long nr = strtol(line, NULL, 10);
#ifdef SYS_nanosleep
    if (nr == SYS_nanosleep)
        return 1;
#endif
#ifdef SYS_clock_nanosleep
    if (nr == SYS_clock_nanosleep)
        return 1;
#endif
    return nr == SYS_futex;
}

/* After main returned, before msamp's destructor (which runs after every other one). */
static void at_end(void)
{
    check_alone("atexit");
    if (failed) {
        printf("FAIL\n");
        _exit(1);
    }
}

static void write_truth(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        FAIL("cannot write %s", path);
        return;
    }
    for (int k = 0; k < 2; k++) {
        struct table *tb = k ? &thread_truth : &main_truth;
        for (unsigned i = 0; i < tb->n; i++)
            fprintf(f, "site %s %zu %lu %lu\n", tb->t[i].site, tb->t[i].size, tb->t[i].allocated,
                    tb->t[i].live);
    }
    fprintf(f, "caller site_keep workload\ncaller site_free workload\ncaller site_thread thread_main\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    pthread_t t;
    pid_t w = 0;
    struct msamp_stats s;

    if (argc != 5)
        return 2;
    const char *mode = argv[1];
    expect = strcmp(argv[2], "start") == 0 ? W_START : strcmp(argv[2], "never") == 0 ? W_NEVER : W_LAZY;
    output = argv[3];
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (expect == W_START) /* the writer names itself once it runs */
        for (int ms = 0; ms < 30000 && (tasks(&w) < 0 || w == 0); ms++)
            sleep_ms(1);
    check_alone("start");
    work(1000);
    check_alone("after 1000 rounds");
    if (strcmp(mode, "single") == 0) {
        for (int k = 1; k <= 3; k++) {
            char where[32];
            snprintf(where, sizeof where, "checkpoint %d", k);
            until_output_grows(where, 400000);
            work(20000);
            check_alone(where);
        }
    } else {
        if (pipe(quit_pipe) != 0 || pthread_create(&t, NULL, thread_main, NULL) != 0) {
            FAIL("cannot start the program's thread");
            return 1;
        }
        /* The writer starts at the first sampled path after pthread_create (this thread's or the
         * new one's) and names itself: wait for the name, at most 30 s. */
        for (int ms = 0; ms < 30000; ms++) {
            work(16);
            if (tasks(&w) < 0 || w != 0 || expect == W_NEVER)
                break;
            sleep_ms(1);
        }
        work(2000);
        w = check_threads("with a thread of its own", expect == W_NEVER ? 2 : 3, expect != W_NEVER, 0);
        if (strcmp(mode, "exitwake") == 0 && w != 0) {
            /* Wait until the writer waits between polls, then end: the exit must wake it. */
            for (int ms = 0; ms < 30000 && !waiting(w); ms++)
                sleep_ms(1);
            printf("writer %d\n", (int)w);
        }
        if (write(quit_pipe[1], "q", 1) != 1 || pthread_join(t, NULL) != 0)
            FAIL("cannot end the program's thread");
    }
    if (msamp_get_stats(&s) != 0) {
        FAIL("msamp_get_stats failed");
    } else {
        printf("samples %u, frees %u, reentrant %u, ring_records dropped %u\n", s.samples, s.frees,
               s.reentrant, s.ring_records);
        if (s.reentrant != 0)
            FAIL("%u allocations counted as reentrant", s.reentrant);
        if (s.samples == 0)
            FAIL("no samples");
    }
    if (strcmp(mode, "single") == 0) {
        check_alone("end of main");
        atexit(at_end);
    }
    write_truth(argv[4]);
    printf("%s\n", failed ? "FAIL" : "PASS");
    return failed;
}
