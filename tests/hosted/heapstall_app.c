/* The heap hook's stall (tests/hosted/heapstall.sh, docs/HEALTH.md): CHUNKS free chunks of
 * 64-160 B (every other block freed) spread over ARENAS arenas (the main thread's and ARENAS-1
 * threads', which stay alive so each keeps its own arena), then the main thread times each
 * malloc+free pair for SECONDS while msamp's writer polls: pairs of 1100-2636 B, past glibc's
 * per-thread cache (at most 1032 B), so each takes the main arena's lock as a walk does. One line on stdout:
 *   chunks= arenas= pairs= max_us= (the longest pair) mallinfo2_us= (one call of glibc's walk,
 *   after the run: the hook's cost before it was bounded) hook_us= (one direct call of the hook)
 *   calls= walks= longest_us= longest_cpu_us= longest_walk_us= total_us= seconds= (the hook's own
 *   accounting over the run, msamp_hosted_heap_cost; -1 when the library has none).
 * Usage: heapstall_app CHUNKS ARENAS SECONDS */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hosted.h"

#pragma weak msamp_hosted_heap_cost

static long per_arena;
static pthread_barrier_t built, done;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* per_arena free chunks in the caller's arena: 2 per_arena blocks, the odd ones freed (the even
 * ones stay between them, so no two holes merge). */
static void fragment(void)
{
    void **p = malloc(sizeof(void *) * (size_t)(2 * per_arena));
    if (p == NULL)
        exit(1);
    for (long i = 0; i < 2 * per_arena; i++)
        if ((p[i] = malloc(64 + (size_t)(i * 37 % 97))) == NULL)
            exit(1);
    for (long i = 1; i < 2 * per_arena; i += 2)
        free(p[i]);
    /* p and the kept blocks stay allocated: the holes stay */
}

static void *arena_thread(void *arg)
{
    (void)arg;
    fragment();
    pthread_barrier_wait(&built);
    pthread_barrier_wait(&done);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    long chunks = atol(argv[1]), arenas = atol(argv[2]);
    double seconds = atof(argv[3]);
    if (chunks < 1 || arenas < 1 || arenas > 16 || seconds <= 0)
        return 2;
    per_arena = chunks / arenas;
    pthread_t t[16];
    pthread_barrier_init(&built, NULL, (unsigned)arenas);
    pthread_barrier_init(&done, NULL, (unsigned)arenas);
    for (long i = 1; i < arenas; i++)
        if (pthread_create(&t[i], NULL, arena_thread, NULL) != 0)
            return 1;
    fragment();
    pthread_barrier_wait(&built);

    double start = now_us(), end = start + seconds * 1e6, max = 0;
    long pairs = 0;
    for (double t0 = start; t0 < end; pairs++) {
        void *q = malloc(1100 + (size_t)(pairs * 37 % 97) * 16); /* past the tcache: locked */
        if (q == NULL)
            return 1;
        ((volatile char *)q)[0] = 1;
        free(q);
        double t1 = now_us();
        if (t1 - t0 > max)
            max = t1 - t0;
        t0 = t1;
    }
    double run = now_us() - start;

    struct msamp_hosted_heap_cost c = {0, 0, 0, 0, 0, 0};
    int have = msamp_hosted_heap_cost != NULL;
    if (have)
        msamp_hosted_heap_cost(&c);
    double m0 = now_us();
    struct mallinfo2 m = mallinfo2();
    double m1 = now_us();
    struct msamp_heap_stats h = {0, 0, 0, 0, 0, 0};
    msamp_port_heap_stats(&h);
    double m2 = now_us();
    printf("chunks=%ld arenas=%ld pairs=%ld max_us=%.0f mallinfo2_us=%.0f free_blocks=%zu hook_us=%.0f "
           "calls=%lld walks=%lld longest_us=%.0f longest_cpu_us=%.0f longest_walk_us=%.0f total_us=%.0f "
           "seconds=%.2f\n",
           chunks, arenas, pairs, max, m1 - m0, m.ordblks + m.smblks, m2 - m1,
           have ? (long long)c.calls : -1, have ? (long long)c.walks : -1,
           have ? (double)c.longest_ns / 1e3 : -1.0, have ? (double)c.longest_cpu_ns / 1e3 : -1.0,
           have ? (double)c.longest_walk_ns / 1e3 : -1.0,
           have ? (double)c.total_ns / 1e3 : -1.0, run / 1e6);
    pthread_barrier_wait(&done);
    for (long i = 1; i < arenas; i++)
        pthread_join(t[i], NULL);
    return 0;
}
