/*
 * Cost of msamp's sampled path on a board, counted in instructions under QEMU (tests/ports/bench.sh
 * runs it with one instruction per translation block and counts the instructions executed between
 * the marker functions below). Three regions, BENCH_N times each, at the end of the same 6-deep
 * call chain:
 *   walk       msamp_port_walk() alone: the unwinder
 *   sampled    malloc + free with the interval at 1 (every allocation sampled: unwind + stack
 *              interning + live table + records)
 *   unsampled  malloc + free with sampling disabled (the wrapped allocator and the fast path)
 *   drain      msamp_flush() after the BENCH_N sampled pairs, which the ring holds: framing and
 *              transport for them (per pair, it is the rest of what a sampled allocation costs)
 *   heap       msamp_port_heap_stats(), BENCH_N calls between bench_heap_begin and bench_heap_end:
 *              the allocator's state as msamp asks it at each poll (the demo heap's hook, a walk of
 *              its free list, which holds a few blocks here; docs/HEALTH.md)
 * The stream goes to the board's transport and is drained between regions.
 */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "demo.h"
#include "msamp.h"
#include "msamp_port.h"
#include "msamp_transport.h"

#ifndef BENCH_N
#define BENCH_N 64
#endif

int main(void);
__attribute__((noinline)) void bench_begin(int region);
__attribute__((noinline)) void bench_end(int region);
__attribute__((noinline)) void bench_heap_begin(void);
__attribute__((noinline)) void bench_heap_end(void);
__attribute__((noinline)) int bench_leaf(int region);
__attribute__((noinline)) int bench_d1(int region);
__attribute__((noinline)) int bench_d2(int region);
__attribute__((noinline)) int bench_d3(int region);
__attribute__((noinline)) int bench_d4(int region);
__attribute__((noinline)) int bench_d5(int region);

static volatile int sink;
static unsigned frames;

void bench_begin(int region)
{
    sink = region;
}

void bench_end(int region)
{
    sink = region;
}

void bench_heap_begin(void)
{
    sink = 4;
}

void bench_heap_end(void)
{
    sink = 4;
}

static int count_frame(void *arg, uintptr_t pc)
{
    (void)arg;
    (void)pc;
    frames++;
    return frames < 32u;
}

int bench_leaf(int region)
{
    bench_begin(region);
    if (region == 0) {
        frames = 0;
        msamp_port_walk(__builtin_frame_address(0), count_frame, NULL);
    } else {
        void *volatile p = malloc(64);
        free(p);
    }
    bench_end(region);
    return sink;
}

int bench_d1(int region)
{
    return bench_leaf(region) + 1;
}

int bench_d2(int region)
{
    return bench_d1(region) + 1;
}

int bench_d3(int region)
{
    return bench_d2(region) + 1;
}

int bench_d4(int region)
{
    return bench_d3(region) + 1;
}

int bench_d5(int region)
{
    return bench_d4(region) + 1;
}

/* The demo heap's error path. */
_Noreturn void demo_fail(const char *why)
{
    board_console("msamp-bench FAIL: ");
    board_console(why);
    board_console("\n");
    board_exit(1);
}

static void fail(const char *why)
{
    demo_fail(why);
}

int main(void)
{
    board_init();
    if (msamp_transport_init() != 0)
        fail("transport init");
    struct msamp_config cfg = {.interval = 1};
    if (msamp_init(&cfg) != 0)
        fail("msamp_init");
    for (int region = 0; region < 3; region++) {
        if (region == 2 && msamp_disable() != 0)
            fail("msamp_disable");
        for (int i = 0; i < BENCH_N; i++) {
            bench_d5(region);
            if (region != 1 && msamp_poll() < 0)
                fail("msamp_poll");
        }
        if (region == 1) {
            struct msamp_stats st;
            msamp_get_stats(&st);
            if (st.ring_records != 0)
                fail("the ring did not hold the sampled pairs");
            bench_begin(3);
            if (msamp_flush() < 0)
                fail("msamp_flush");
            bench_end(3);
        }
    }
    for (int i = 0; i < BENCH_N; i++) {
        struct msamp_heap_stats h = {0};
        bench_heap_begin();
        msamp_port_heap_stats(&h);
        bench_heap_end();
        if ((h.valid & MSAMP_HEAP_FREE) == 0)
            fail("the heap hook knew nothing");
    }
    if (msamp_flush() < 0)
        fail("flush");
    struct msamp_stats st;
    msamp_get_stats(&st);
    if (frames < 6 || st.samples < BENCH_N)
        fail("the walk or the sampling did not happen");
    char line[] = "msamp-bench frames=00\n";
    line[19] = (char)('0' + frames / 10u % 10u);
    line[20] = (char)('0' + frames % 10u);
    board_console(line);
    board_console("msamp-bench done\n");
    board_exit(0);
}
