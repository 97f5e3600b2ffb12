/*
 * Leaks by growth (tests/analysis/t_growth.sh, docs/VERDICTS.md "Leaks by growth"): linked against
 * the hosted library, one loop of ROUNDS rounds makes four kinds of heap use, each at its own
 * call site:
 *   leak_record: LEAK_SIZE bytes every round, never freed: a leak (in use grows to the end);
 *   cache_insert: a bounded cache of CACHE_N entries of CACHE_SIZE bytes, filled in the first
 *     tenth of the rounds, then each insert evicts the oldest entry: grows, then levels off;
 *   keep_table: KEEP_N blocks of KEEP_SIZE bytes allocated once before the loop, kept;
 *   churn_buf: CHURN_N blocks of random size (16..4111 bytes) each round, freed in the same round;
 *   pool_once (with GROWTH_POOL=1): POOL_N blocks of POOL_SIZE bytes allocated at once at 70 % of
 *     the rounds, kept: a step (one batch, then flat) of the same total as leak_record's leak.
 * Only leak_record is a leak; pool_once is a step.
 * With GROWTH_POOL=1 it prints "pool_at F": where pool_once began in the run by the clock (0: the
 * start of main, 1: the loop's end). drain looks for leaks and steps in the run's later half by
 * time; a run descheduled long enough before the pool can put it in the first half, which the
 * test then runs again (tests/analysis/t_growth.sh).
 * usage: growth_app (MSAMP_OUTPUT, MSAMP_INTERVAL, MSAMP_SEED, GROWTH_POOL).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define ROUNDS 200000
#define LEAK_SIZE 200 /* 40 MB over the run: about 38 intervals of 512 KiB in its second half */
#define CACHE_N 20000
#define CACHE_SIZE 512 /* 10 MB */
#define KEEP_N 4000
#define KEEP_SIZE 2048 /* 8 MB */
#define CHURN_N 4
#define POOL_N 2000
#define POOL_SIZE 20000 /* 40 MB: leak_record's total */
#define POOL_AT (ROUNDS / 10 * 7)

static volatile uintptr_t sink;
static void *cache[CACHE_N];
static void *keep[KEEP_N];
static void *pool[POOL_N];
static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

NOINLINE static void leak_record(void)
{
    char *p = malloc(LEAK_SIZE);
    if (p)
        p[0] = 1;
    sink ^= (uintptr_t)p;
}

NOINLINE static void cache_insert(size_t i)
{
    free(cache[i]);
    cache[i] = malloc(CACHE_SIZE);
    if (cache[i])
        memset(cache[i], 0, 8);
}

NOINLINE static void keep_table(void)
{
    for (size_t i = 0; i < KEEP_N; i++) {
        keep[i] = malloc(KEEP_SIZE);
        if (keep[i])
            memset(keep[i], 0, 8);
    }
}

NOINLINE static void churn_buf(void)
{
    void *b[CHURN_N];
    for (int i = 0; i < CHURN_N; i++) {
        b[i] = malloc(16 + next() % 4096);
        sink ^= (uintptr_t)b[i];
    }
    for (int i = 0; i < CHURN_N; i++)
        free(b[i]);
}

NOINLINE static void pool_once(void)
{
    for (size_t i = 0; i < POOL_N; i++) {
        pool[i] = malloc(POOL_SIZE);
        if (pool[i])
            memset(pool[i], 0, 8);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    double t_start = now(), t_pool = 0;
    const char *seed = getenv("MSAMP_SEED"), *pool_on = getenv("GROWTH_POOL");
    int with_pool = pool_on && strcmp(pool_on, "1") == 0;
    if (seed)
        rng += strtoull(seed, NULL, 10) * 0x9e3779b97f4a7c15ull;
    keep_table();
    size_t fill = ROUNDS / 10, step = fill / CACHE_N ? fill / CACHE_N : 1, c = 0;
    for (size_t r = 0; r < ROUNDS; r++) {
        leak_record();
        /* fill: one insert every step rounds; then one a round, evicting the oldest */
        if (r < fill) {
            if (r % step == 0 && c < CACHE_N)
                cache_insert(c++);
        } else {
            cache_insert(c++ % CACHE_N);
        }
        churn_buf();
        if (with_pool && r == POOL_AT) {
            t_pool = now();
            pool_once();
        }
    }
    if (with_pool) { /* snprintf and write: stdio's buffer would be an allocation of its own */
        char line[32];
        int n = snprintf(line, sizeof(line), "pool_at %.3f\n", (t_pool - t_start) / (now() - t_start));
        if (n > 0 && write(1, line, (size_t)n) != n)
            return 1;
    }
    sink ^= (uintptr_t)keep[0] ^ (uintptr_t)cache[0] ^ (uintptr_t)pool[0];
    return 0;
}
