/*
 * Cost of sampled allocations for `make bench`: from the bottom of a 32-frame call chain, times
 * batches of malloc(64) (1000 blocks, freed untimed afterwards) and of malloc(64)+free pairs.
 * Run once with MSAMP_INTERVAL=1 (every call sampled: walk, intern, live table, records) and once
 * with MSAMP_DISABLE=1 (the wrappers' fast path only); the difference is the sampling cost.
 * Prints ns per call and msamp's drop counters.
 * Usage: bench_sampled BATCHES
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "msamp.h"

#define DEPTH 32
#define BATCH 1000

static volatile uintptr_t sink;
static unsigned batches;
static double alloc_ns = 1e30, pair_ns = 1e30;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best of the batches: the cost without the other agents' noise on this machine. */
static void measure(void)
{
    static void *blocks[BATCH];
    for (unsigned b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (unsigned i = 0; i < BATCH; i++)
            blocks[i] = malloc(64);
        double t1 = now_ns();
        for (unsigned i = 0; i < BATCH; i++)
            free(blocks[i]);
        double t2 = now_ns();
        for (unsigned i = 0; i < BATCH; i++) {
            void *p = malloc(64);
            sink ^= (uintptr_t)p;
            free(p);
        }
        double t3 = now_ns();
        if ((t1 - t0) / BATCH < alloc_ns)
            alloc_ns = (t1 - t0) / BATCH;
        if ((t3 - t2) / BATCH < pair_ns)
            pair_ns = (t3 - t2) / BATCH;
        /* Let the writer thread drain the ring between batches. */
        nanosleep(&(struct timespec){0, 2 * 1000 * 1000}, NULL);
    }
}

__attribute__((noinline)) static void descend(unsigned depth)
{
    if (depth > 1)
        descend(depth - 1);
    else
        measure();
    sink ^= depth; /* no tail call: every level keeps its frame */
}

int main(int argc, char **argv)
{
    struct msamp_stats s;

    batches = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 50;
    descend(DEPTH);
    printf("alloc_ns %.1f pair_ns %.1f\n", alloc_ns, pair_ns);
    if (msamp_get_stats(&s) == 0)
        printf("samples %u ring_drops %u live_full %u truncated %u\n", s.samples, s.ring_records,
               s.live_full, s.truncated);
    return 0;
}
