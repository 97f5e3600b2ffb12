/* The hosted port's life in the process: started by a constructor before main() (the settings,
 * the output, msamp_init(), the drain: no thread unless MSAMP_FLUSH=thread), flushed by a
 * destructor after every other one, and off in a fork child. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hosted.h"
#include "msamp.h"

atomic_int msamp_hosted_running;

#if MSAMP_CFG_HEAP_STATS
/* The heap's figures at a bounded cost (docs/HEALTH.md, "glibc: the walk's budget"). glibc's
 * mallinfo2 walks every free chunk of every arena holding that arena's lock: every thread's malloc
 * waits for it (133 ms at 10^6 free chunks). The hook walks only when the walk's worst case fits
 * the budget: at most msamp_hosted_walk_ns a call (MSAMP_HEAP_WALK_US, default 1000 us) and at
 * most 0.1 % of the wall time (a credit that grows by 1 us a ms up to one call's budget, which
 * each walk spends). The worst case is the most free chunks the heap can hold (its private
 * resident bytes over glibc's smallest chunk, 32 B on 64-bit: free chunks are disjoint and each
 * one's header is written) times the most nanoseconds a walked chunk has cost
 * (MSAMP_HOSTED_WALK_CHUNK_NS at least). Otherwise the figures come from /proc/self/statm (no
 * allocator lock): the total is the process's private resident bytes, free and the free blocks
 * unknown. */
#define CHUNK_MIN (4u * sizeof(size_t)) /* glibc's MINSIZE */

uint64_t msamp_hosted_walk_ns = (uint64_t)MSAMP_HOSTED_HEAP_WALK_US * 1000u;
static atomic_flag heap_busy = ATOMIC_FLAG_INIT; /* one caller walks at a time */
static int64_t walk_credit; /* ns the walks may take now: 0.1 % of the time, at most one budget */
static uint64_t credit_at;  /* when walk_credit was last topped up (0: never, the credit full) */
static uint64_t chunk_ns = MSAMP_HOSTED_WALK_CHUNK_NS; /* the most a walked chunk has cost */
static _Atomic uint64_t cost_calls, cost_walks, cost_total_ns, cost_longest_ns, cost_walk_ns,
    cost_cpu_ns;

static uint64_t clock_ns(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#define now_ns() clock_ns(CLOCK_MONOTONIC)

static void raise_to(_Atomic uint64_t *max, uint64_t v)
{
    uint64_t was = atomic_load(max);
    while (v > was && !atomic_compare_exchange_weak(max, &was, v))
        ;
}

/* The process's private resident bytes: /proc/self/statm's resident less shared pages. 0: unknown. */
static uintptr_t private_resident(void)
{
    char b[160];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, b, sizeof(b) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    b[n] = 0;
    uintptr_t f[3] = {0, 0, 0}; /* size resident shared (pages) */
    const char *p = b;
    for (int i = 0; i < 3; i++) {
        char *end;
        f[i] = (uintptr_t)strtoul(p, &end, 10);
        if (end == p)
            return 0;
        p = end;
    }
    return f[1] > f[2] ? (f[1] - f[2]) * (uintptr_t)sysconf(_SC_PAGESIZE) : 0;
}

void msamp_port_heap_stats(struct msamp_heap_stats *out)
{
    uint64_t t0 = now_ns(), cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    uintptr_t resident = private_resident();
    int walk = 0;
    if (!atomic_flag_test_and_set(&heap_busy)) {
        uint64_t worst = (uint64_t)(resident / CHUNK_MIN) * chunk_ns;
        int64_t cap = (int64_t)msamp_hosted_walk_ns;
        walk_credit = credit_at == 0 ? cap : walk_credit + (int64_t)((t0 - credit_at) / 1000u);
        if (walk_credit > cap)
            walk_credit = cap;
        credit_at = t0;
        walk = resident != 0 && walk_credit >= 0 && worst <= (uint64_t)walk_credit;
        if (!walk)
            atomic_flag_clear(&heap_busy);
    }
    if (walk) {
        uint64_t w0 = now_ns();
        struct mallinfo2 m = mallinfo2();
        uint64_t d = now_ns() - w0, n = m.ordblks + m.smblks;
        walk_credit -= (int64_t)d;
        if (n >= 1024 && d / n > chunk_ns)
            chunk_ns = d / n; /* a slower machine than the floor: later bounds use it */
        atomic_fetch_add(&cost_walks, 1);
        raise_to(&cost_walk_ns, d);
        atomic_flag_clear(&heap_busy);
        out->total = m.arena + m.hblkhd;
        out->free = m.fordblks;
        out->free_blocks = n;
        out->valid = MSAMP_HEAP_TOTAL | MSAMP_HEAP_FREE | MSAMP_HEAP_FREE_BLOCKS;
    } else if (resident != 0) {
        out->total = resident;
        out->valid = MSAMP_HEAP_TOTAL;
    }
    uint64_t d = now_ns() - t0;
    atomic_fetch_add(&cost_calls, 1);
    atomic_fetch_add(&cost_total_ns, d);
    raise_to(&cost_longest_ns, d);
    raise_to(&cost_cpu_ns, clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
}

void msamp_hosted_heap_cost(struct msamp_hosted_heap_cost *c)
{
    c->calls = atomic_load(&cost_calls);
    c->walks = atomic_load(&cost_walks);
    c->total_ns = atomic_load(&cost_total_ns);
    c->longest_ns = atomic_load(&cost_longest_ns);
    c->longest_walk_ns = atomic_load(&cost_walk_ns);
    c->longest_cpu_ns = atomic_load(&cost_cpu_ns);
}
#endif

/* fork: the lock is taken around fork() so the child never inherits it held; the child keeps
 * running with profiling off and writes nothing (the ring's bytes belong to the parent's stream).
 * A program the child exec()s starts its own profile. */
static void fork_prepare(void)
{
    msamp_port_lock();
}

static void fork_parent(void)
{
    msamp_port_unlock(0);
}

static void fork_child(void)
{
    msamp_port_unlock(0);
    msamp_hosted_output_forked();
    if (atomic_exchange(&msamp_hosted_running, 0))
        msamp_disable();
}

static __attribute__((constructor(101))) void msamp_hosted_start(void)
{
    struct msamp_hosted_settings s;
    int rc;

    if (!msamp_hosted_settings(&s))
        return;
    msamp_hosted_contexts_start();
    msamp_hosted_stack_bounds(&msamp_hosted_self);
    msamp_hosted_maps_refresh();
    if (msamp_hosted_output_open(s.output) != 0)
        return;
    rc = msamp_init(&s.cfg);
    if (rc != MSAMP_OK) {
        msamp_hosted_say("msamp: initialisation failed (%s)%s; profiling off\n",
                         rc == MSAMP_ERR_INVAL ? "invalid setting" : "state", "");
        return;
    }
    atomic_store(&msamp_hosted_running, 1);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    msamp_hosted_output_start(s.flush, s.exit_timeout_ms);
}

/* The final flush, after the program's atexit handlers and other destructors (priority 101 runs
 * last among destructors). Allocations made after it are sampled but never sent. */
static __attribute__((destructor(101))) void msamp_hosted_stop(void)
{
    if (atomic_exchange(&msamp_hosted_running, 0))
        msamp_hosted_output_stop();
}
