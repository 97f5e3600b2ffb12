/*
 * Time to exhaustion against its truth (docs/VERDICTS.md "Time to exhaustion", the calibration
 * suite's "exhaustion" workload and tests/analysis/t_exhaust.sh). Linked with the hosted library.
 * glibc's heap made one of fixed size: mmap off (M_MMAP_MAX 0), no trimming, one block of
 * ARENA bytes taken from sbrk and freed before the work starts, so the allocator's total
 * (mallinfo2's arena) holds still and its free bytes are the room left, as on a firmware heap.
 * Then, for SECONDS of CLOCK_MONOTONIC (the hosted port's device clock), paced by that clock:
 *   leak_record: LEAK_SIZE bytes, never freed, as many as keep the leaked bytes at RATE * t (a
 *     rate exact in device time; workload "leak" only);
 *   cache_insert: a bounded cache of CACHE_N entries of CACHE_SIZE, filled in the first 100
 *     rounds (by count: filled by time, a loaded machine's few rounds left it growing into the
 *     run's second half, a leak by growth), then every 4th round replaces the oldest: levels off;
 *   churn_buf: a block of random size (16..4111 B), freed at once; a pause of 200 us a round.
 * Workload "steady" is the same without the leak: its heap never runs out.
 * The truth written to TRUTH, "exhaustion - SECONDS" (drain check's budget line): the time the
 * allocator's free bytes at the end (mallinfo2's fordblks, what the last HEAP record says) last at
 * the leak's rate in the allocator's bytes (each block takes malloc_usable_size + 8 of them);
 * "inf" for steady.
 * usage: exhaust_app leak|steady SEED TRUTH   (MSAMP_OUTPUT, MSAMP_INTERVAL, EXHAUST_SECONDS)
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "msamp.h"

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define ARENA (192u << 20)
#define LEAK_SIZE 4088  /* a 4096-byte chunk: the allocator's overhead 0.2 % */
#define RATE 4.0e6      /* bytes a second */
#define CACHE_N 2000
#define CACHE_SIZE 1000 /* 2 MB */

static volatile uintptr_t sink;
static void *cache[CACHE_N];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The blocks due by now (the leaked bytes kept at RATE * t); returns the bytes leaked. */
NOINLINE static uint64_t leak_record(double t, uint64_t leaked)
{
    uint64_t n = 0;
    for (char *p; (double)(leaked + (n + 1) * LEAK_SIZE) <= RATE * t && (p = malloc(LEAK_SIZE));
         n++) {
        p[0] = 1;
        sink ^= (uintptr_t)p;
    }
    return n * LEAK_SIZE;
}

/* The next entry of the ring replaced (the oldest once it is full). */
NOINLINE static void cache_insert(void)
{
    static size_t next;
    void **slot = &cache[next++ % CACHE_N];
    free(*slot);
    sink ^= (uintptr_t)(*slot = malloc(CACHE_SIZE));
}

NOINLINE static void churn_buf(size_t size)
{
    char *p = malloc(size);
    if (p)
        p[0] = 1;
    sink ^= (uintptr_t)p;
    free(p);
}

/* The heap made one of fixed size (above); returns the chunk a leaked block takes. */
NOINLINE static size_t reserve_heap(void)
{
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, (int)(1u << 30));
    mallopt(M_TOP_PAD, 0);
    void *arena = malloc(ARENA);
    if (!arena)
        return 0;
    sink ^= (uintptr_t)arena;
    free(arena);
    void *p = malloc(LEAK_SIZE);
    size_t chunk = malloc_usable_size(p) + sizeof(size_t);
    free(p);
    return chunk;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "leak") && strcmp(argv[1], "steady"))) {
        fprintf(stderr, "usage: %s leak|steady SEED TRUTH\n", argv[0]);
        return 2;
    }
    int leak = strcmp(argv[1], "leak") == 0;
    uint64_t rng = strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ull + 0x1234567ull;
    const char *sec = getenv("EXHAUST_SECONDS");
    double seconds = sec ? atof(sec) : 4.0;
    int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644); /* no stdio: no malloc later */
    if (fd < 0) {
        perror(argv[3]);
        return 1;
    }
    size_t leak_chunk = reserve_heap();
    if (!leak_chunk)
        return 1;
    double t0 = now_s(), t;
    uint64_t leaked = 0, round = 0, filled = 0;
    while ((t = now_s() - t0) < seconds) {
        if (leak)
            leaked += leak_record(t, leaked);
        if (filled < CACHE_N) /* filled in its first 100 rounds, whatever the machine's load */
            for (int k = 0; k < CACHE_N / 100; k++, filled++)
                cache_insert();
        else if (round % 4 == 0)
            cache_insert();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        churn_buf(16 + (size_t)(rng % 4096));
        round++;
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
    }
    /* The session ends here, as the leak does (its END and last HEAP now): the hosted port's exit
     * flush (a snapshot pass and its rounds, slow on a loaded machine) would otherwise stretch
     * the growth window past the last leaked block, a rate up to 15 % low in a few runs. */
    msamp_end();
    struct mallinfo2 m = mallinfo2();
    double rate_alloc = RATE * (double)leak_chunk / LEAK_SIZE; /* the allocator's bytes a second */
    char line[256];
    int len;
    if (leak)
        len = snprintf(line, sizeof(line), "exhaustion - %.6f\n# free %zu rate %.1f leaked %llu\n",
                       (double)m.fordblks / rate_alloc, m.fordblks, rate_alloc,
                       (unsigned long long)leaked);
    else
        len = snprintf(line, sizeof(line), "exhaustion - inf\n# free %zu\n", m.fordblks);
    if (write(fd, line, (size_t)len) != len || close(fd) != 0)
        return 1;
    return 0;
}
