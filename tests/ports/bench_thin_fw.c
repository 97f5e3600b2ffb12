/*
 * What a thinning pass of the adaptive interval costs on a board, in instructions under QEMU
 * (tests/ports/bench_thin.sh counts those executed between bench_begin and bench_end):
 *   region 0  BENCH_N sampled malloc+free pairs (the baseline)
 *   region 1  the whole pass right after a raise, every live entry pending (msamp_adapt_settle_all:
 *             the most one allocation adds, when its bucket is full mid-pass)
 * The live table is the board library's (256 slots by default), filled at interval 8 by blocks of
 * 24 to 3072 bytes until the interval rises.
 */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "demo.h"
#include "msamp.h"
#include "msamp_internal.h"
#include "msamp_transport.h"

#ifndef BENCH_N
#define BENCH_N 64
#endif

void *malloc(size_t size);
void free(void *p);
__attribute__((noinline)) void bench_begin(int region);
__attribute__((noinline)) void bench_end(int region);
volatile int bench_sink;

void bench_begin(int region)
{
    bench_sink = region;
}

void bench_end(int region)
{
    bench_sink = region;
}

_Noreturn void demo_fail(const char *why)
{
    board_console("msamp-bench FAIL: ");
    board_console(why);
    board_console("\n");
    board_exit(1);
}

static void say_u32(const char *key, uint32_t v)
{
    char buf[16];
    unsigned n = sizeof buf - 1;
    buf[n] = '\0';
    do {
        buf[--n] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0 && n > 0);
    board_console(" ");
    board_console(key);
    board_console("=");
    board_console(&buf[n]);
}

int main(void)
{
    static void *held[4096];
    board_init();
    if (msamp_transport_init() != 0)
        demo_fail("transport init");
    struct msamp_config cfg = {.interval = 8};
    if (msamp_init(&cfg) != 0)
        demo_fail("msamp_init");
    for (int i = 0; i < BENCH_N; i++) {
        bench_begin(0);
        free(malloc(2048)); /* sampled (p = 1 - exp(-256) at interval 8) */
        bench_end(0);
        (void)msamp_poll();
    }
    unsigned n = 0;
    for (;;) { /* until an allocation raises the interval: then the whole table is pending */
        if (n == sizeof held / sizeof held[0])
            demo_fail("no raise");
        held[n] = malloc(24u << (n % 8u));
        n++;
        if (msamp_core.thin_target != 0 && msamp_core.thin_cursor == 0)
            break;
        (void)msamp_poll();
    }
    struct msamp_stats st;
    msamp_get_stats(&st);
    bench_begin(1);
    msamp_adapt_settle_all();
    bench_end(1);
    board_console("msamp-bench thin");
    say_u32("slots", st.live_capacity);
    say_u32("pending", st.live_used);
    msamp_get_stats(&st);
    say_u32("stayed", st.live_used);
    say_u32("interval", st.interval);
    board_console("\n");
    for (unsigned i = 0; i < n; i++)
        free(held[i]);
    (void)msamp_flush();
    board_console("msamp-bench done\n");
    return 0;
}
