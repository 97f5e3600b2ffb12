/* bench-thin: what a thinning pass costs (run under callgrind by the bench target, which counts the
 * instructions of each marked function). The core on the fake port, a 4096-slot live table filled
 * by 24..4096-byte blocks at interval 64 until the adaptive interval raises it: right after the
 * raise the whole table is pending. Then:
 *   bench_sampled     64 sampled allocations (interval 1 would change the table: a fresh context
 *                     at the same interval, the table below high water) - the baseline
 *   bench_settle_all  the whole pass at once, what the allocation that finds its bucket full
 *                     mid-pass pays at most (msamp_adapt_room finishes the pass first)
 * and prints the slots and entries the pass settled. */
#include <stdio.h>

#include "fake_port.h"
#include "msamp.h"
#include "msamp_internal.h"

void *__wrap_malloc(size_t size);
void __wrap_free(void *p);

static void *blocks[200000];
static unsigned nblocks;

__attribute__((noinline)) void bench_settle_all(void)
{
    msamp_adapt_settle_all();
}

__attribute__((noinline)) void bench_sampled(void)
{
    for (int i = 0; i < 64; i++)
        __wrap_free(__wrap_malloc(1u << 20)); /* always sampled, at any interval here */
}

int main(void)
{
    struct msamp_config cfg = {.interval = 64, .resend_ms = 100000000, .seed = 3};
    if (msamp_init(&cfg) != 0)
        return 1;
    fake_depth = 4;
    struct msamp_stats st;
    for (;;) {
        fake_stack[0] = 0x410000 + (uintptr_t)(nblocks % 7) * 0x40;
        blocks[nblocks] = __wrap_malloc(24u << (nblocks % 8));
        nblocks++;
        if (nblocks % 32 == 0)
            msamp_flush();
        if (msamp_core.thin_target != 0 && msamp_core.thin_cursor == 0)
            break;
        if (nblocks == sizeof blocks / sizeof blocks[0])
            return 2;
    }
    msamp_get_stats(&st);
    uint32_t pending = st.live_used;
    bench_settle_all();
    msamp_flush();
    msamp_get_stats(&st);
    printf("pass over %u slots: %u entries pending, %u stayed (interval %u)\n", st.live_capacity,
           pending, st.live_used, st.interval);
    bench_sampled();
    msamp_flush();
    return 0;
}
