/*
 * One verdict on newlib (test newlib-verdict, tests/newlib/verdict.sh, docs/HEALTH.md): a firmware
 * for qemu-mps2-an385 (Cortex-M3) linked with Debian's newlib or newlib-nano through port/msamp.mk
 * (tests/newlib/fw.make: msamp's newlib heap hook, MSAMP_LIBC_HEAP=newlib), sampled at a mean
 * interval of NL_INTERVAL bytes with msamp's seed NL_SEED. One loop of NL_ITERATIONS rounds, each
 * kind of heap use at a call site of its own:
 *   leak_record   called every round, a 48-byte block every 10th call, never freed: the leak;
 *   churn_scratch a block of 16..1039 bytes each round, freed at once;
 *   cache_insert  a bounded cache of CACHE_N blocks of CACHE_SIZE bytes, filled over the first
 *                 tenth of the rounds, then every CACHE_EVERY rounds its oldest entry replaced:
 *                 grows, then levels off;
 *   pool_once     POOL_N blocks of POOL_SIZE bytes allocated at once at 70 % of the rounds, kept:
 *                 a step (one batch, then flat), not a leak.
 * msamp_poll() every round. Only leak_record leaks (NL_LEAK=0: nothing leaks, the test's control).
 * newlib grows its heap with _sbrk from a static arena (sbrk_arena.h); with NL_NO_HEAP_END the
 * firmware does not define msamp_newlib_heap_end(), so the heap's total in msamp's HEAP records is
 * what _sbrk has given so far: it grows with the leak. At the end: "nl-done".
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "board_api.h"
#include "msamp.h"

int main(void);
#define NL_ARENA_BYTES (256 * 1024)
#include "nl_sbrk.h"

#ifndef NL_SEED
#define NL_SEED 1
#endif
#ifndef NL_INTERVAL
#define NL_INTERVAL 512
#endif
#ifndef NL_LEAK
#define NL_LEAK 1
#endif
#ifndef NL_ITERATIONS
#define NL_ITERATIONS 10000u
#endif
#define LEAK_EVERY 10u
#define LEAK_SIZE 48u
#define CACHE_N 32u
#define CACHE_SIZE 256u
#define CACHE_EVERY 8u
#define POOL_N 16u
#define POOL_SIZE 1024u
#define POOL_AT (NL_ITERATIONS / 10u * 7u)

#define SITE __attribute__((noinline))
static volatile uintptr_t sink;
static void *cache[CACHE_N];
static void *pool[POOL_N];
static uint32_t rng = 2463534242u;

static void *checked(void *p)
{
    if (p == NULL)
        fail("out of heap");
    *(volatile uint8_t *)p = 1;
    return p;
}

SITE static void leak_record(void)
{
    static uint32_t calls;
    if (!NL_LEAK || calls++ % LEAK_EVERY != 0)
        return;
    sink ^= (uintptr_t)checked(malloc(LEAK_SIZE));
}

SITE static void churn_scratch(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    void *p = checked(malloc(16u + rng % 1024u));
    sink ^= (uintptr_t)p;
    free(p);
}

SITE static void cache_insert(uint32_t i)
{
    free(cache[i]);
    cache[i] = checked(malloc(CACHE_SIZE));
}

SITE static void pool_once(void)
{
    for (uint32_t i = 0; i < POOL_N; i++)
        pool[i] = checked(malloc(POOL_SIZE));
}

int main(void)
{
    board_init();
    struct msamp_config cfg = {.interval = NL_INTERVAL, .seed = NL_SEED};
    if (msamp_init(&cfg) != 0)
        fail("msamp_init");
    const uint32_t fill = NL_ITERATIONS / 10u, fill_every = fill / CACHE_N;
    uint32_t c = 0;
    for (uint32_t r = 0; r < NL_ITERATIONS; r++) {
        leak_record();
        churn_scratch();
        if (r < fill ? r % fill_every == 0 && c < CACHE_N : r % CACHE_EVERY == 0)
            cache_insert(c++ % CACHE_N);
        if (r == POOL_AT)
            pool_once();
        if (msamp_poll() < 0)
            fail("msamp_poll");
    }
    sink ^= (uintptr_t)pool[0];
    if (msamp_flush() < 0)
        fail("msamp_flush");
    if (msamp_end() < 0)
        fail("msamp_end");
    board_console("nl-done\n");
    board_exit(0);
}
