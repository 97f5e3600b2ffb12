/*
 * Allocations from a signal handler while the interrupted thread may be inside msamp, for the
 * signal test. The main thread mallocs and frees in a loop (MSAMP_INTERVAL=1: every call takes the
 * core's lock); a profiling timer fires every 100 us of CPU time, and its handler allocates from a
 * pool allocator of its own (async-signal-safe, unlike malloc) that msamp profiles through
 * MSAMP_WRAP_ALLOCATOR. A handler that lands while its thread holds the lock must be turned away
 * by the reentrancy guard (counted as reentrant), not spin on the lock: the test's timeout
 * catches a deadlock. Exit 0 when done, printing the counts.
 * With SIZE, each handler run allocates one block of SIZE bytes instead (the rate test: a handler
 * that lands while its thread decides must not sample the thread's spent countdown again).
 * Usage: signal_app SECONDS [SIZE]
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include "msamp.h"

/* The pool allocator (signal_pool.c): in its own file, so the calls here are undefined references
 * that -Wl,--wrap=pool_alloc,--wrap=pool_free sends to the wrappers below. */
void *pool_alloc(size_t size);
void pool_free(void *p);
void pool_init(void);

static volatile sig_atomic_t handled;
static size_t one_size; /* 0: a 32- and a 16-byte block a run */

MSAMP_WRAP_ALLOCATOR(pool_alloc, pool_free)

static void on_prof(int sig)
{
    (void)sig;
    void *a = pool_alloc(one_size ? one_size : 32), *b = one_size ? NULL : pool_alloc(16);
    pool_free(a);
    if (b != NULL)
        pool_free(b);
    handled++;
}

static volatile uintptr_t sink;

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    one_size = argc > 2 ? (size_t)atol(argv[2]) : 0;
    struct sigaction sa = {0};
    struct itimerval it = {{0, 100}, {0, 100}};
    struct timespec t0, t;
    unsigned long loops = 0;

    pool_init();
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0 || setitimer(ITIMER_PROF, &it, NULL) != 0)
        return 2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (unsigned i = 0; i < 1000; i++) {
            void *p = malloc(64 + (i & 255));
            sink ^= (uintptr_t)p;
            free(p);
        }
        loops++;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    it = (struct itimerval){{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &it, NULL);

    struct msamp_stats s;
    if (msamp_get_stats(&s) != 0)
        return 2;
    printf("signal_app: %lu000 malloc+free pairs, %d handler runs, %u samples, %u reentrant "
           "(turned away by the guard), %u ring drops, %u raises\n",
           loops, (int)handled, s.samples, s.reentrant, s.ring_records, s.raises);
    return handled > 0 ? 0 : 1;
}
