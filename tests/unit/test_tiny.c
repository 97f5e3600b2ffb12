/* The core in the tiny profile (MSAMP_CFG_TINY: compact tables, no snapshot passes) end to end on
 * the fake port, in its smallest useful configuration (msamp_config_small.h): wrappers -> sampler -> tables -> frames in the ring -> transport,
 * decoded by the host decoder. Covers the boot header, events at interval 1 with stacks sent once,
 * realloc as one block, a reused address whose free was missed, full ring with exact drop counts
 * (and the refusals that are not drops), full live bucket, full stack table, truncated stacks,
 * TIME records, interval changes, disable/enable, marks, reentrancy, partial transport writes, the
 * lock balance, and unbiased estimates at a realistic interval; the port's device id in SESSION but
 * where MSAMP_CFG_DEVICE_ID is 0 (unit-tiny_minimal, whose frees scan without the masks). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fake_port.h"
#include "msamp.h"
#include "msamp_decode.h"
#include "msamp_internal.h"
#include "rec_log.h"

#if !MSAMP_CFG_TINY
#error "build with -DMSAMP_CFG_TINY=1"
#endif

static struct msamp_stats stats(void)
{
    struct msamp_stats s;
    CHECK_EQ(msamp_get_stats(&s), 0);
    return s;
}

static const struct rec *last(int type)
{
    const struct rec *r = NULL;
    for (int i = 0; i < nrec; i++)
        if (recs[i].type == type)
            r = &recs[i];
    return r;
}

static void test_boot_and_events(void)
{
    CHECK_EQ(msamp_poll(), MSAMP_ERR_STATE);
    /* Pinned: the tables fill and refusals are counted, as before the adaptive interval. */
    struct msamp_config cfg = {.interval = 1, .seed = 42, .pin_interval = 1};
    static const uint8_t bid[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    fake_build_id = bid;
    fake_build_id_len = sizeof bid;
    fake_device_id = "board-7"; /* sent where MSAMP_CFG_DEVICE_ID (the minimal row: not asked) */
    CHECK_EQ(msamp_init(&cfg), 0);
    CHECK_EQ(msamp_init(&cfg), MSAMP_ERR_STATE);
    CHECK_EQ(msamp_snapshot(), MSAMP_ERR_UNSUPPORTED);

    void *c = basic_events();
    CHECK(msamp_flush() > 0);
    decode_from(0);

    check_basic_events(sizeof bid);
    const struct rec *se = find(MSAMP_REC_SESSION, 0);
    CHECK(se && se->depth == (MSAMP_CFG_DEVICE_ID ? 7u : 0u));
    CHECK(nrec > 1 && recs[1].type == MSAMP_REC_TIME && recs[1].ts == 1000);
#if MSAMP_CFG_REALLOC_CHAINS
    CHECK_EQ(count(MSAMP_REC_ALLOC), 2);
    CHECK_EQ(count(MSAMP_REC_REALLOC), 1);
    CHECK_EQ(count(MSAMP_REC_FREE), 1);
    const struct rec *re = find(MSAMP_REC_REALLOC, 0);
    CHECK(re && re->c == 1000 && re->d == 2);
#else
    /* No chains: the realloc is a, freed, and a new block from the second stack. */
    CHECK_EQ(count(MSAMP_REC_ALLOC), 3);
    CHECK_EQ(count(MSAMP_REC_REALLOC), 0);
    CHECK_EQ(count(MSAMP_REC_FREE), 2);
    const struct rec *re = find(MSAMP_REC_ALLOC, 2);
    CHECK(re && re->b == 1000 && re->c == 2);
#endif
    CHECK_EQ(count(MSAMP_REC_DROPS), 1); /* the first poll reports the (zero) counters */
    /* Ids are taken in order: the first stack is 1, the realloc's 2. */
    const struct rec *s = find(MSAMP_REC_STACK, 0);
    CHECK(s && s->a == 1);
    const struct rec *dr = find(MSAMP_REC_DROPS, 0);
    CHECK(dr && dr->a == 0 && dr->b == 0 && dr->c == 0);

    struct msamp_stats st = stats();
    CHECK_EQ(st.samples, 3);
    CHECK_EQ(st.frees, 2); /* b, and a through the realloc */
    CHECK_EQ(st.live_used, 1);
    CHECK_EQ(st.stacks_used, 2);
    CHECK_EQ(st.live_capacity, MSAMP_CFG_LIVE_CAPACITY);
    CHECK_EQ(st.stack_capacity, MSAMP_CFG_STACK_CAPACITY - 1);
    CHECK_EQ(st.ring_used, 0);
    CHECK(msamp_is_sampled(c));
    __wrap_free(c);
    CHECK(!msamp_is_sampled(c));
    CHECK_EQ(stats().live_used, 0);
    CHECK_EQ(msamp_get_stats(NULL), MSAMP_ERR_INVAL);
    msamp_flush();
}

static void test_reused_address(void)
{
    /* A sampled block freed behind msamp's back (no wrapper on that path), its address handed out
     * again: the new sample first frees the stale slot, so the reader never sees two live blocks
     * at one address. */
    static char block[64];
    msamp_on_alloc(block, 48);
    msamp_flush();
    size_t mark = fake_out_len;
    msamp_on_alloc(block, 40);
    msamp_flush();
    decode_from(mark);
    CHECK_EQ(count(MSAMP_REC_FREE), 1);
    CHECK_EQ(count(MSAMP_REC_ALLOC), 1);
    CHECK(nrec >= 2 && recs[0].type == MSAMP_REC_FREE && recs[1].type == MSAMP_REC_ALLOC);
    CHECK(nrec >= 2 && recs[1].b == 40);
    CHECK_EQ(stats().live_used, 1);
    msamp_on_free(block);
    CHECK_EQ(stats().live_used, 0);
    msamp_flush();
}

static void test_full_ring(void)
{
    /* Stall the transport: frames fill the ring, then whole frames are dropped and counted. */
    fake_transport_stalled = 1;
    struct msamp_stats before = stats();
    enum { N = 400 };
    static void *keep[N];
    for (int i = 0; i < N; i++) {
        fake_stack[0] = 0x500000 + (uintptr_t)(i % 5) * 16;
        keep[i] = __wrap_malloc(16 + (size_t)(i % 7));
    }
    struct msamp_stats after = stats();
    CHECK(after.ring_records > before.ring_records);
    CHECK(after.ring_used > MSAMP_CFG_RING_SIZE - 64);
    CHECK_EQ(after.samples - before.samples, (uint32_t)N);
    /* Refused, not dropped: the caller is told and retries. Marks fill what room is left (frames
     * batch events, so a record smaller than an event may still fit). */
    int marks = 0;
    while (msamp_mark("x", 1) == MSAMP_OK && marks < 64)
        marks++;
    CHECK(marks < 64);
    CHECK_EQ(msamp_mark("x", 1), MSAMP_ERR_BUSY);
    CHECK_EQ(msamp_set_interval(7), MSAMP_ERR_BUSY);
    CHECK_EQ(stats().ring_records, after.ring_records);
    CHECK_EQ(stats().interval, 1);

    size_t mark = fake_out_len;
    fake_transport_stalled = 0;
    fake_transport_max = 3; /* partial writes */
    for (int i = 0; i < 1000; i++)
        msamp_poll();
    fake_transport_max = 0;
    decode_from(mark);
    CHECK_EQ(dstats.frames_bad, 0);
    CHECK_EQ(dstats.frames_lost, 0); /* dropped frames never got a sequence number */
    after = stats();
    const struct rec *dr = last(MSAMP_REC_DROPS);
    CHECK(dr && dr->a == after.ring_records && dr->b == after.ring_bytes);
    /* Every record is accounted for: decoded + dropped = made (one ALLOC per sample, plus a
     * STACK for each of the 5 stacks, all new, and one with every MSAMP_CFG_STACK_RESEND_SAMPLES-th
     * sample after them). */
    uint32_t resent = 0;
    for (uint32_t k = before.samples + 5u; k < before.samples + (uint32_t)N; k++)
        resent += (k & (MSAMP_CFG_STACK_RESEND_SAMPLES - 1u)) == MSAMP_CFG_STACK_RESEND_SAMPLES - 1u;
    CHECK_EQ((uint32_t)(count(MSAMP_REC_ALLOC) + count(MSAMP_REC_STACK)) + after.ring_records -
                 before.ring_records,
             (uint32_t)N + 5u + resent);
    /* A stack whose definition was dropped is sent again with its next use. */
    for (int i = 0; i < nrec; i++) {
        if (recs[i].type != MSAMP_REC_ALLOC || recs[i].c == 0)
            continue;
        int defined = 0;
        for (int k = 0; k < i; k++)
            defined |= recs[k].type == MSAMP_REC_STACK && recs[k].a == recs[i].c;
        CHECK(defined || recs[i].c <= 2); /* ids 1 and 2 came before the mark */
    }
    /* The live table followed every sample, sent or not. */
    uint32_t tracked = 0;
    for (int i = 0; i < N; i++)
        tracked += (uint32_t)msamp_is_sampled(keep[i]);
    CHECK_EQ(after.live_used, tracked);
    CHECK_EQ(after.live_full - before.live_full, (uint32_t)N - tracked);
    for (int i = 0; i < N; i++)
        __wrap_free(keep[i]);
    CHECK_EQ(stats().live_used, 0);
    msamp_flush();
}

static void test_tables_full(void)
{
    size_t mark = fake_out_len;
    struct msamp_stats before = stats();
    /* More distinct stacks than the table holds, freed at once: unused stacks are evicted and
     * their ids defined again, nothing is lost. */
    for (uintptr_t i = 0; i < MSAMP_CFG_STACK_CAPACITY + 10u; i++) {
        fake_stack[0] = 0x600000 + i * 4;
        __wrap_free(__wrap_malloc(8));
        msamp_poll();
    }
    struct msamp_stats after = stats();
    CHECK_EQ(after.stacks_used, MSAMP_CFG_STACK_CAPACITY - 1u);
    CHECK(after.stacks_evicted - before.stacks_evicted >= 10u);
    CHECK_EQ(after.stack_full, before.stack_full);
    /* Kept live: the compact tables still evict in turn (the host has attributed the live blocks
     * already), so nothing goes out as MSAMP_WIRE_STACK_FULL. */
    enum { HELD = 3 * MSAMP_CFG_STACK_CAPACITY };
    static void *held[HELD];
    for (uintptr_t i = 0; i < HELD; i++) {
        fake_stack[0] = 0x680000 + i * 4;
        held[i] = __wrap_malloc(8);
        msamp_poll();
    }
    after = stats();
    CHECK_EQ(after.stack_full, before.stack_full);
    CHECK(after.stacks_evicted - before.stacks_evicted >= (uint32_t)HELD);
    for (uintptr_t i = 0; i < HELD; i++)
        __wrap_free(held[i]);
    /* Deeper than MSAMP_CFG_MAX_DEPTH: cut and counted. */
    for (unsigned i = 0; i < 40; i++)
        fake_stack[i] = 0x700000 + i * 0x10;
    fake_depth = 40;
    __wrap_free(__wrap_malloc(8));
    fake_depth = 3;
    CHECK_EQ(stats().truncated - before.truncated, 1);
    msamp_flush();
    decode_from(mark);
    CHECK_EQ(dstats.frames_bad, 0);
    int unknown = 0;
    for (int i = 0; i < nrec; i++)
        unknown += recs[i].type == MSAMP_REC_ALLOC && recs[i].c == MSAMP_WIRE_STACK_FULL;
    CHECK_EQ((uint32_t)unknown, stats().stack_full - before.stack_full);
    const struct rec *dr = last(MSAMP_REC_DROPS);
    CHECK(dr && dr->c == stats().reentrant);
}

static void test_time_and_controls(void)
{
    size_t mark = fake_out_len;
    fake_time += 100000; /* beyond two varint bytes of dt: a TIME record first */
    fake_stack[0] = 0x401000;
    void *p = __wrap_malloc(10);
    CHECK_EQ(msamp_set_interval(1u << 30), 0);
    struct msamp_stats a = stats();
    for (int i = 0; i < 1000; i++)
        __wrap_free(__wrap_malloc(32));
    CHECK_EQ(stats().samples, a.samples); /* 1 GiB interval: nothing sampled */
    CHECK_EQ(msamp_set_interval(1), 0);
    CHECK_EQ(msamp_set_interval(0), MSAMP_ERR_INVAL);
    CHECK_EQ(msamp_disable(), 0);
    a = stats();
    for (int i = 0; i < 100; i++)
        __wrap_free(__wrap_malloc(32));
    CHECK_EQ(stats().samples, a.samples);
    CHECK_EQ(stats().enabled, 0);
    CHECK_EQ(msamp_enable(), 0);
    __wrap_free(__wrap_malloc(32));
    CHECK_EQ(stats().samples, a.samples + 1);
    CHECK_EQ(msamp_mark("phase 2", 7), 0);
    char big[65] = {0};
    CHECK_EQ(msamp_mark(big, sizeof big), MSAMP_ERR_INVAL);
    CHECK_EQ(msamp_mark(NULL, 0), MSAMP_ERR_INVAL);
    /* Reentrancy: an allocation while the core runs in the same context is skipped and counted. */
    fake_contexts[fake_ctx].busy = 1;
    __wrap_free(__wrap_malloc(32));
    fake_contexts[fake_ctx].busy = 0;
    CHECK_EQ(stats().reentrant, 1);
    /* Another context (an interrupt) samples on its own. */
    fake_ctx = 1;
    __wrap_free(__wrap_malloc(32));
    fake_ctx = 0;
    __wrap_free(p);
    msamp_flush();
    decode_from(mark);
    CHECK_EQ(dstats.frames_bad, 0);
    const struct rec *tm = find(MSAMP_REC_TIME, 0);
    const struct rec *al = find(MSAMP_REC_ALLOC, 0);
    CHECK(tm && al && tm < al && tm->ts == fake_time && al->ts == fake_time);
    CHECK_EQ(count(MSAMP_REC_INTERVAL), 2);
    CHECK_EQ(count(MSAMP_REC_MARK), 1);
    const struct rec *dr = last(MSAMP_REC_DROPS);
    CHECK(dr && dr->c == 1);
    CHECK_EQ(fake_lock_errors, 0);
}

static void test_estimates(void)
{
    /* At a realistic interval the weighted samples estimate the bytes allocated (unbiased, within
     * 4 standard deviations) and in use (the leaked part). */
    const uint32_t R = 4096;
    CHECK_EQ(msamp_set_interval(R), 0);
    uint32_t full_before = stats().live_full;
    size_t mark = fake_out_len;
    double truth = 0, var = 0, live_truth = 0, live_var = 0;
    static void *leak[50];
    int nleak = 0;
    for (int i = 0; i < 20000; i++) {
        size_t n = 16 + (size_t)(i * 7919 % 2000);
        double p = 1 - exp(-(double)n / R);
        void *b = __wrap_malloc(n);
        truth += (double)n;
        var += (double)n * n * (1 - p) / p;
        if (i % 400 == 0 && nleak < 50) {
            leak[nleak++] = b;
            live_truth += (double)n;
            live_var += (double)n * n * (1 - p) / p;
        } else {
            __wrap_free(b);
        }
        if (i % 64 == 0)
            msamp_poll();
    }
    msamp_flush();
    decode_from(mark);
    CHECK_EQ(dstats.frames_bad, 0);
    double est = 0, live_est = 0;
    static uint64_t live_size[MSAMP_CFG_LIVE_CAPACITY + 1];
    memset(live_size, 0, sizeof live_size);
    for (int i = 0; i < nrec; i++) {
        if (recs[i].type == MSAMP_REC_ALLOC) {
            double w = recs[i].b / (1 - exp(-(double)recs[i].b / R));
            est += w;
            if (recs[i].a != 0)
                live_size[recs[i].a - 1] = recs[i].b;
        } else if (recs[i].type == MSAMP_REC_FREE) {
            live_size[recs[i].a] = 0;
        }
    }
    for (int i = 0; i < MSAMP_CFG_LIVE_CAPACITY; i++)
        if (live_size[i] != 0)
            live_est += live_size[i] / (1 - exp(-(double)live_size[i] / R));
    printf("allocated: truth %.0f estimate %.0f (sd %.0f); in use: truth %.0f estimate %.0f (sd "
           "%.0f)\n",
           truth, est, sqrt(var), live_truth, live_est, sqrt(live_var));
    CHECK(fabs(est - truth) < 4 * sqrt(var));
    CHECK(fabs(live_est - live_truth) < 4 * sqrt(live_var) + 1);
    CHECK_EQ(stats().live_full, full_before);
    for (int i = 0; i < nleak; i++)
        __wrap_free(leak[i]);
    CHECK_EQ(stats().live_used, 0);
}

int main(void)
{
    test_boot_and_events();
    test_reused_address();
    test_full_ring();
    test_tables_full();
    test_time_and_controls();
    /* no passes: identity (none again in the minimal configuration: 9 KiB without one) */
    CHECK_EQ(check_identity_by_volume(9u * (MSAMP_CFG_RESEND_BYTES ? MSAMP_CFG_RESEND_BYTES : 1024u)),
             0);
    test_estimates();
    CHECK_EQ(fake_lock_errors, 0);
    CHECK_EQ(fake_lock_depth, 0);
    return check_report(MSAMP_CFG_REALLOC_CHAINS ? "unit-tiny" : "unit-tiny_minimal");
}
