/* A table that fills (docs/ADAPTIVE.md "When the interval changes"): the core on the fake port,
 * unpinned, seeded by argv[1] (the make rule runs several seeds), under a workload of blocks of
 * 16..2047 bytes at 10 000 steps a second of fake time, msamp_poll() every 100 steps:
 * - a ramp to a live set of about 8.5 MB: at most one raise per doubling of the live set past the
 *   size that fills 3/8 of the table at the start interval;
 * - 40 s of steady churn (each step frees a random block and allocates one of a random size in its
 *   place); over the last 30 s the live table holds 3/8..3/4 of its slots at every second, the
 *   interval changes at most twice, and at most one sample in 1000 is refused (its reach full
 *   while the table is under three quarters);
 * - the live set doubled (a second ramp of as many blocks): at most one raise. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "msamp.h"
#include "msamp_internal.h"

void *__wrap_malloc(size_t size);
void __wrap_free(void *p);

static uint64_t rng;
static uint32_t next32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

enum { N = 8192, HZ = 1000000, STEP_US = 100, POLL = 100 };
static void *keep[2 * N];

/* One step of fake time: a poll every POLL steps; the transport's bytes are not looked at. */
static void tick(long step)
{
    fake_time += STEP_US;
    if (step % POLL == 0)
        msamp_poll();
    fake_out_len = 0;
}

static void *alloc_at(uint32_t i, size_t *size)
{
    fake_stack[0] = 0x410000 + (uintptr_t)(i % 5) * 0x100;
    *size = 16u + next32() % 2032u;
    return __wrap_malloc(*size);
}

int main(int argc, char **argv)
{
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
    rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 20);
    fake_hz = HZ;
    fake_time = 0;
    fake_depth = 2;
    struct msamp_config cfg = {.interval = 4096, .resend_ms = 100000000, .seed = seed};
    CHECK_EQ(msamp_init(&cfg), 0);
    uint64_t live = 0;
    /* One raise per doubling of the live set from the size that fills 3/8 of the table. */
    uint32_t ramp_raises_allowed = 0;
    uint64_t doubling_at = 3u * MSAMP_CFG_LIVE_CAPACITY / 8u * cfg.interval;
    size_t sz;
    for (uint32_t i = 0; i < N; i++) {
        keep[i] = alloc_at(i, &sz);
        live += sz;
        while (live > doubling_at) {
            doubling_at *= 2;
            ramp_raises_allowed++;
        }
        tick(i);
    }
    struct msamp_stats st;
    msamp_get_stats(&st);
    printf("seed %u ramp: live set %llu bytes, raises %u (at most %u: one per doubling of the live "
           "set past 3/8 of the table), lowers %u, interval %u, table %u/%u\n",
           seed, (unsigned long long)live, st.raises, ramp_raises_allowed, st.lowers, st.interval,
           st.live_used, st.live_capacity);
    CHECK(st.raises <= ramp_raises_allowed);

    uint32_t raises0 = 0, lowers0 = 0, samples0 = 0, full0 = 0, min_used = ~0u, max_used = 0;
    double sum_used = 0;
    int seconds = 0;
    for (long step = 0; step < 40L * HZ / STEP_US; step++) {
        uint32_t i = next32() % N;
        __wrap_free(keep[i]);
        keep[i] = alloc_at(i, &sz);
        tick(step);
        if (step == 10L * HZ / STEP_US) {
            msamp_get_stats(&st);
            raises0 = st.raises;
            lowers0 = st.lowers;
            samples0 = st.samples;
            full0 = st.live_full;
        }
        if (step > 10L * HZ / STEP_US && step % (HZ / STEP_US) == 0) {
            uint32_t used = msamp_live_used();
            min_used = used < min_used ? used : min_used;
            max_used = used > max_used ? used : max_used;
            sum_used += used;
            seconds++;
        }
    }
    msamp_get_stats(&st);
    uint32_t cap = st.live_capacity, samples = st.samples - samples0, full = st.live_full - full0;
    printf("seed %u steady 30 s: raises %u, lowers %u, interval %u; table %u..%u of %u (mean "
           "%.1f%%); samples %u, refused (live_full) %u\n",
           seed, st.raises - raises0, st.lowers - lowers0, st.interval, min_used, max_used, cap,
           100.0 * sum_used / seconds / cap, samples, full);
    CHECK(st.raises - raises0 + st.lowers - lowers0 <= 2);
    CHECK(full * 1000u <= samples);
    CHECK(min_used * 8 >= cap * 3);
    CHECK(max_used * 4 <= cap * 3);

    /* The live set doubles: one raise at most. */
    raises0 = st.raises;
    lowers0 = st.lowers;
    for (uint32_t i = N; i < 2 * N; i++) {
        keep[i] = alloc_at(i, &sz);
        tick(i);
    }
    msamp_get_stats(&st);
    printf("seed %u doubled: raises %u, lowers %u, interval %u, table %u/%u, refused (live_full) "
           "%u of %u samples in all\n",
           seed, st.raises - raises0, st.lowers - lowers0, st.interval, st.live_used,
           st.live_capacity, st.live_full, st.samples);
    CHECK(st.raises - raises0 <= 1);
    CHECK_EQ(st.lowers - lowers0, 0);
    CHECK_EQ(fake_lock_errors, 0);
    for (uint32_t i = 0; i < 2 * N; i++)
        __wrap_free(keep[i]);
    return check_report("unit-fill");
}
